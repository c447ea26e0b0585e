import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { cp, link, mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { hideAbsolutePaths } from "../../src/domain/redaction.js";
import { remoteSafeError } from "../../src/adapters/driving/mcp/workflow-result.js";
import { checkFileArgument } from "../../src/adapters/driven/worker-process/file-params.js";
import { readFileParam } from "../../src/adapters/driven/worker-process/file-import.js";
import { tenantSegment } from "../../src/app/tenants/tenant-segment.js";
import { fileParamPolicy, resolveFileRoots, type FileParamPolicy } from "../../src/adapters/driven/worker-process/file-roots.js";
import { precheckProjectRunner } from "../../src/app/workflow-runs/host-options.js";
import { workflowRunPorts } from "../../src/compose/workflow-runs.js";
import { KITCHEN } from "../cli/helpers.js";

// TEN-2: the server's own state (stores, run index, SQLite side files, .git, credentials) is
// never a file param, by real path and by inode, even inside an allowed root; with several
// tenants there are no default roots; `{tenant}` roots are per caller; refusals name no path.

let dir: string;
let project: string;
let data: string;
let policy: FileParamPolicy;

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "sh-server-state-")));
  project = join(dir, "project");
  data = join(dir, "data");
  for (const folder of [join(project, ".workflow", "agents", "20260101-abc"), join(project, ".git"), join(project, "docs"), join(data, "kv"), join(dir, "uploads", tenantSegment("key:acme")), join(dir, "uploads", tenantSegment("key:other"))]) {
    await mkdir(folder, { recursive: true });
  }
  await writeFile(join(project, ".workflow", "agents", "20260101-abc", "s1.sqlite"), "SQLite format 3\0 conversation of another tenant");
  await writeFile(join(project, ".workflow", "agents", "_runs.sqlite-wal"), "run index wal");
  await writeFile(join(project, ".git", "config"), "[remote] url = https://token@example.com/x.git\n");
  await writeFile(join(project, ".env"), "API_KEY=server-secret\n");
  await writeFile(join(project, ".env.local"), "OTHER_KEY=server-secret\n");
  await writeFile(join(project, "docs", "notes.sqlite-journal"), "journal");
  await writeFile(join(project, "docs", "report.md"), "# Report\n");
  await writeFile(join(project, "docs", "shared.txt"), "shared by two harmless names\n");
  await link(join(project, "docs", "shared.txt"), join(project, "docs", "shared-twin.txt"));
  await writeFile(join(data, "kv", "kv.sqlite"), "kv store");
  // Hard links inside the allowed root: their paths look harmless, their inodes are server state.
  await link(join(project, ".workflow", "agents", "20260101-abc", "s1.sqlite"), join(project, "docs", "agent-copy.txt"));
  await link(join(project, ".env"), join(project, "docs", "env-copy.txt"));
  await link(join(project, ".git", "config"), join(project, "docs", "git-copy.txt"));
  await link(join(data, "kv", "kv.sqlite"), join(project, "docs", "kv-copy.txt"));
  await writeFile(join(dir, "uploads", tenantSegment("key:acme"), "acme.txt"), "acme's upload\n");
  await writeFile(join(dir, "uploads", tenantSegment("key:other"), "other.txt"), "other's upload\n");
  policy = await fileParamPolicy([project], project, [data, join(data, "kv"), join(project, ".workflow", "agents")]);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function refusal(value: string, options: { policy?: FileParamPolicy; tenant?: string } = {}): Promise<{ message: string; reason: unknown }> {
  try {
    const { tenant, ...rest } = options;
    await checkFileArgument("doc", value, { policy, ...rest, ...(tenant !== undefined ? { tenantFolder: tenantSegment(tenant) } : {}) });
  } catch (error) {
    if (isSteamharnessError(error, "input_validation")) return { message: error.message, reason: error.data?.reason };
    throw error;
  }
  throw new Error(`${value} was accepted`);
}

describe("TEN-2 the server's own state inside an allowed root", () => {
  it.each([
    ["an agent-store session database", () => join(project, ".workflow", "agents", "20260101-abc", "s1.sqlite")],
    ["the run index's write-ahead log", () => join(project, ".workflow", "agents", "_runs.sqlite-wal")],
    ["a SQLite side file outside the stores", () => join(project, "docs", "notes.sqlite-journal")],
    ["a .git file", () => join(project, ".git", "config")],
    ["the project's .env", () => join(project, ".env")],
    ["a .env variant", () => join(project, ".env.local")],
    ["a hard link to an agent-store session database", () => join(project, "docs", "agent-copy.txt")],
    ["a hard link to the .env", () => join(project, "docs", "env-copy.txt")],
    ["a hard link to .git/config", () => join(project, "docs", "git-copy.txt")],
    ["a hard link to a data-dir store", () => join(project, "docs", "kv-copy.txt")],
  ])("TEN-2 refuses %s, naming no server path", async (_label, path) => {
    const { message, reason } = await refusal(path());
    expect(reason).toBe("denied");
    expect(message).toMatch(/^arguments\.doc is part of the server's own state/);
    expect(message).not.toContain(dir);
  });

  it("TEN-2 a missing file in the server's state is refused like an existing one (no existence probe)", async () => {
    expect((await refusal(join(project, ".workflow", "agents", "nope.sqlite"))).reason).toBe("denied");
    expect((await refusal(join(dir, "elsewhere", "nope.txt"))).reason).toBe("outside_roots");
    expect((await refusal(join(project, "docs", "nope.txt"))).reason).toBe("not_found");
  });

  it("TEN-2 ordinary files are imported, hard-linked ones too when no link is server state", async () => {
    await expect(checkFileArgument("doc", join(project, "docs", "report.md"), { policy })).resolves.toMatchObject({ name: "report.md" });
    await expect(checkFileArgument("doc", join(project, "docs", "shared-twin.txt"), { policy })).resolves.toMatchObject({ name: "shared-twin.txt" });
  });

  it("TEN-2 the copy refuses another file swapped in under the checked path (its inode differs)", async () => {
    const path = join(project, "docs", "swap.txt");
    await writeFile(path, "harmless");
    const source = await checkFileArgument("doc", path, { policy });
    await rm(path);
    await link(join(project, ".env"), path);
    await expect(readFileParam("doc", source)).rejects.toThrow(/^arguments\.doc was moved or replaced after it was checked$/);
  });
});

describe("TEN-2 a host's policy is computed from what it uses", () => {
  it("TEN-2 every data and store dir of the host, its .workflow and its extra server files are denied inside a root", async () => {
    const host = join(dir, "host");
    await cp(KITCHEN, host, { recursive: true });
    const token = join(host, "token.txt");
    await writeFile(token, "a-static-token-of-the-server");
    const checked = await precheckProjectRunner({ projectDir: host, ports: workflowRunPorts(), dirs: { dataDir: join(host, "state"), fileStoreDir: join(host, "files") }, allowedFileRoots: [host], serverState: [token] });
    const files = { token, imported: join(host, "files", "f.bin"), kv: join(host, "state", "kv", "kv.sqlite"), cache: join(host, "state", "cache", "c.json"), sessions: join(host, ".workflow", "agents", "r", "s.sqlite") };
    for (const file of Object.values(files)) {
      await mkdir(join(file, ".."), { recursive: true });
      await writeFile(file, "server state", { flag: "a" });
      expect((await refusal(file, { policy: checked.filePolicy })).reason).toBe("denied");
    }
    await expect(checkFileArgument("doc", join(host, "workflow.mjs"), { policy: checked.filePolicy })).resolves.toMatchObject({ name: "workflow.mjs" });
    const single = await precheckProjectRunner({ projectDir: host, ports: workflowRunPorts() });
    expect(single.filePolicy.roots).toContain(host);
    const several = await precheckProjectRunner({ projectDir: host, ports: workflowRunPorts(), multiTenant: true });
    expect(several.filePolicy).toMatchObject({ roots: [], noRoots: true });
  });
});

describe("TEN-2 roots with several tenants", () => {
  it("TEN-2 a multi-tenant host without --allow-file-root has no roots: every file param is refused, saying what to pass", async () => {
    const none = await fileParamPolicy(undefined, project, [data], { multiTenant: true });
    expect(none.roots).toEqual([]);
    const { message, reason } = await refusal(join(project, "docs", "report.md"), { policy: none, tenant: "key:acme" });
    expect(reason).toBe("no_roots");
    expect(message).toMatch(/several tenants .*--allow-file-root/);
    expect(message).not.toContain(dir);
  });

  it("TEN-2 {tenant} roots: a tenant imports from its own folder, not from another tenant's, and a call without a tenant from none", async () => {
    const perTenant = await fileParamPolicy([join(dir, "uploads", "{tenant}")], project, [data], { multiTenant: true });
    const acme = join(dir, "uploads", tenantSegment("key:acme"), "acme.txt");
    await expect(checkFileArgument("doc", acme, { policy: perTenant, tenantFolder: tenantSegment("key:acme") })).resolves.toMatchObject({ name: "acme.txt" });
    expect((await refusal(acme, { policy: perTenant, tenant: "key:other" })).reason).toBe("outside_roots");
    expect((await refusal(acme, { policy: perTenant })).reason).toBe("outside_roots");
    // A tenant whose key would climb out of the uploads folder gets its own encoded folder (none here).
    expect((await refusal(acme, { policy: perTenant, tenant: "../uploads/key:acme" })).reason).toBe("outside_roots");
  });

  it("TEN-2 a {tenant} value needs the folder before the placeholder; . and .. segments are refused", async () => {
    await expect(resolveFileRoots([join(dir, "uploads", "{tenant}")], project)).resolves.toEqual([join(dir, "uploads", "{tenant}")]);
    await expect(resolveFileRoots([join(dir, "missing", "{tenant}")], project)).rejects.toThrow(/does not exist/);
    await expect(resolveFileRoots([`${dir}/uploads/../{tenant}`], project)).rejects.toThrow(/must not contain \. or \.\. segments/);
  });

  it.each([
    ["key:acme", "key_3aacme"],
    ["oauth:user/42", "oauth_3auser_2f42"],
    ["..", "_2e_2e"],
    ["../x", "_2e_2e_2fx"],
    ["a\u0000b", "a_00b"],
    ["100%", "100_25"],
    ["é", "_c3_a9"],
  ])("TEN-2 the tenant %j is the one path segment %j", (tenant, segment) => {
    expect(tenantSegment(tenant)).toBe(segment);
  });
});

describe("TEN-2 error texts for remote clients", () => {
  it.each([
    ["cannot open /srv/data/kv/store.sqlite: EACCES", "cannot open <path>: EACCES"],
    ['ENOENT: no such file, open "/home/me/.steamharness/x.json"', 'ENOENT: no such file, open "<path>"'],
    ["see https://example.com/a/b and steamharness://files/p/f", "see https://example.com/a/b and steamharness://files/p/f"],
    ["is on the /proc pseudo file system; pointer /doc", "is on the /proc pseudo file system; pointer /doc"],
  ])("TEN-2 hideAbsolutePaths(%j)", (text, hidden) => {
    expect(hideAbsolutePaths(text)).toBe(hidden);
  });

  it("TEN-2 remoteSafeError: JSON-RPC errors sent over HTTP name no server path; an internal error's data (the server's) is dropped", () => {
    const internal = { jsonrpc: "2.0" as const, id: 7, error: { code: -32603, message: "cannot load workflow module /srv/p/workflow.mjs: boom", data: { path: "/srv/p/workflow.mjs" } } };
    expect(remoteSafeError(internal)).toEqual({ jsonrpc: "2.0", id: 7, error: { code: -32603, message: "cannot load workflow module <path>: boom" } });
    const invalid = { jsonrpc: "2.0" as const, id: 8, error: { code: -32602, message: "arguments.doc is outside the allowed file roots", data: { reason: "outside_roots" } } };
    expect(remoteSafeError(invalid)).toEqual(invalid);
    const result = { jsonrpc: "2.0" as const, id: 9, result: { content: [{ type: "text", text: "/srv/p/a.txt" }] } };
    expect(remoteSafeError(result)).toBe(result);
  });
});
