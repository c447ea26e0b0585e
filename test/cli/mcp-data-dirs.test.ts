import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { cleanEnv, cleanup, copyKitchen, KITCHEN, KITCHEN_ID, rejection, runCli, startMcp, tempDir, writeProject, type McpSession } from "./helpers.js";

// Real child processes under tsx on a shared 2-core machine: allow slow starts.
jest.setTimeout(90_000);

let tmp: string;
const ns = { projectId: KITCHEN_ID };

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-dirs-");
});
afterAll(async () => {
  await cleanup(tmp);
});

function output(result: unknown): Record<string, unknown> {
  const content = (result as CallToolResult).structuredContent!;
  if (content.status !== "success") throw new Error(`the call failed: ${JSON.stringify(content)}`);
  return content.output as Record<string, unknown>;
}

async function listFiles(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath ?? entry.path, entry.name));
}

describe("MCP-2 / MCP-8 data dirs and MCP-4 file import", () => {
  let session: McpSession;
  const dirs = { data: "", kv: "", values: "", files: "", created: "", auth: "" };

  // CFG-5: the kitchen fixture lists these two ids in its package.json, and each lists the kitchen.
  const RELATED = { billing: "6e2d4c1b-8a9f-4b3e-9d7c-5f1a2b3c4d5e", crm: "8b4f2e6a-1c3d-4e5f-a7b8-9c0d1e2f3a4b" };
  const relatedDir = (alias: keyof typeof RELATED) => join(tmp, `related-${alias}`);

  beforeAll(async () => {
    for (const key of Object.keys(dirs) as (keyof typeof dirs)[]) dirs[key] = join(tmp, `dir-${key}`);
    for (const [alias, id] of Object.entries(RELATED) as [keyof typeof RELATED, string][]) {
      await writeProject(relatedDir(alias), {
        "package.json": JSON.stringify({ name: alias, type: "module", id, projectType: "workflow", main: "workflow.mjs", relatedProjects: [KITCHEN_ID] }),
        "workflow.mjs": "export default { entrypoints: { noop: { run: () => null } } };\n",
      });
    }
    session = await startMcp(KITCHEN, [
      "--data-dir", dirs.data,
      "--kv-store-dir", dirs.kv,
      "--persistent-value-store-dir", dirs.values,
      "--file-store-dir", dirs.files,
      "--file-create-store-dir", dirs.created,
      "--auth-dir", dirs.auth,
      "--related-project", `billing=${relatedDir("billing")}`,
      "--related-project", `crm=${relatedDir("crm")}`,
      "--allow-file-root", tmp,
    ]);
  }, 60_000);
  afterAll(async () => {
    await session?.close();
  });

  it("MCP-8 KV, PersistentValue, knowledge, managed files and created files land in their given dirs", async () => {
    const result = await session.client.callTool({ name: "store", arguments: { value: "v1" } });
    const { fileId } = output(result) as { fileId: string };
    const runId = (result as CallToolResult).structuredContent!.runId as string;
    const kv = createSqliteStorage({ directory: dirs.kv });
    const values = createSqliteStorage({ directory: dirs.values });
    const files = createSqliteStorage({ directory: dirs.files });
    try {
      expect((await kv.kv.get(ns, "last"))?.value).toBe("v1");
      expect(await values.values.get(KITCHEN_ID, "counter")).toBe("v1");
      expect((await values.knowledge.get(KITCHEN_ID, "doc-1"))?.markdown).toBe("v1");
      expect(new TextDecoder().decode((await files.files.read(KITCHEN_ID, fileId))!)).toBe("v1");
      // Each store only in its own dir.
      expect(await kv.values.get(KITCHEN_ID, "counter")).toBeNull();
      expect(await values.kv.get(ns, "last")).toBeNull();
      expect(await kv.files.get(KITCHEN_ID, fileId)).toBeNull();
    } finally {
      await Promise.all([kv.close(), values.close(), files.close()]);
    }
    expect(existsSync(join(dirs.created, `created-${runId}.txt`))).toBe(true);
    expect(existsSync(join(dirs.data, "kv"))).toBe(false);
    expect(existsSync(join(dirs.data, "files"))).toBe(false);
  });

  it("MCP-4 / SEC-5 file params are imported into the managed-file store (a symlink: its target's bytes, under the link's own name)", async () => {
    const source = join(tmp, "report.md");
    await writeFile(source, "# Report\n");
    await symlink(source, join(tmp, "report-link.md"));
    const result = await session.client.callTool({ name: "echo", arguments: { text: "t", doc: source, docs: [source, join(tmp, "report-link.md")] } });
    const params = output(result).params as { doc: { fileId: string; name: string; size: number; sha256: string }; docs: Array<{ name: string }> };
    const sha256 = createHash("sha256").update("# Report\n").digest("hex");
    expect(params.doc).toMatchObject({ name: "report.md", size: 9, sha256 });
    expect(params.docs.map((file) => file.name)).toEqual(["report.md", "report-link.md"]);
    const files = createSqliteStorage({ directory: dirs.files });
    try {
      expect(new TextDecoder().decode((await files.files.read(KITCHEN_ID, params.doc.fileId))!)).toBe("# Report\n");
    } finally {
      await files.close();
    }
  });

  it.each([
    ["a directory", () => tmp, /is a directory/],
    ["a relative path", () => "report.md", /not an absolute path/],
    ["a data: URL", () => "data:text/plain;base64,aGk=", /data: URL/],
    ["a device", () => "/dev/null", /is on the \/dev pseudo file system/],
  ])("MCP-4 / DX-17 %s is refused as a tool result with isError and nothing is imported", async (_label, bad, message) => {
    const good = join(tmp, `good-${Math.random()}.txt`);
    await writeFile(good, `unique ${good}`);
    const before = await listFiles(join(dirs.files, "files"));
    expect(rejection(await session.client.callTool({ name: "echo", arguments: { text: "t", docs: [good, bad()] } }))).toMatch(message);
    expect(await listFiles(join(dirs.files, "files"))).toEqual(before);
  });

  it("MCP-2 / CFG-5 --related-project binds each confirmed alias to its project id and absolute dir", async () => {
    const related = output(await session.client.callTool({ name: "env", arguments: {} })).related;
    expect(related).toEqual({
      billing: { alias: "billing", projectId: RELATED.billing, directory: relatedDir("billing") },
      crm: { alias: "crm", projectId: RELATED.crm, directory: relatedDir("crm") },
    });
  });
});

describe("MCP-8 default data dir", () => {
  it("MCP-8 without options everything lives under ~/.steamharness", async () => {
    const home = join(tmp, "home");
    await mkdir(home);
    const session = await startMcp(KITCHEN, [], { env: cleanEnv({ HOME: home }) });
    try {
      const { fileId } = output(await session.client.callTool({ name: "store", arguments: { value: "home" } })) as { fileId: string };
      const root = join(home, ".steamharness");
      const kv = createSqliteStorage({ directory: join(root, "kv") });
      const values = createSqliteStorage({ directory: join(root, "values") });
      const files = createSqliteStorage({ directory: join(root, "files") });
      try {
        expect((await kv.kv.get(ns, "last"))?.value).toBe("home");
        expect(await values.values.get(KITCHEN_ID, "counter")).toBe("home");
        expect((await values.knowledge.get(KITCHEN_ID, "doc-1"))?.title).toBe("Note");
        expect(await files.files.get(KITCHEN_ID, fileId)).not.toBeNull();
      } finally {
        await Promise.all([kv.close(), values.close(), files.close()]);
      }
      expect((await readdir(join(root, "created"))).some((name) => name.startsWith("created-"))).toBe(true);
    } finally {
      await session.close();
    }
  });
});

describe("MCP-2 options", () => {
  // --data-dir may be relative (DX-18, resolved against the working directory: test/cli/relative-data-dir.test.ts).
  it.each([["--file-store-dir"], ["--kv-store-dir"], ["--persistent-value-store-dir"], ["--file-create-store-dir"], ["--auth-dir"]])(
    "MCP-2 %s must be absolute",
    async (flag) => {
      const result = await runCli(["mcp", KITCHEN, flag, "relative/dir"]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain(`${flag} must be an absolute directory path, got "relative/dir"`);
    },
  );

  it("MCP-2 --related-project needs alias=<absolute dir> of a workflow project", async () => {
    expect((await runCli(["mcp", KITCHEN, "--related-project", "x=relative"])).stderr).toContain("the project dir must be an absolute path");
    expect((await runCli(["mcp", KITCHEN, "--related-project", "no-equals"])).stderr).toContain("expects <alias>=<absolute project dir>");
    expect((await runCli(["mcp", KITCHEN, "--related-project", `x=${tmp}`])).stderr).toContain("not a workflow project");
  });

  it("MCP-1 a non-workflow folder is refused before serving", async () => {
    const result = await runCli(["mcp", tmp]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/not a workflow project/);
  });
});

describe("MCP-2 .env and server auth precedence", () => {
  let project: string;
  let authDir: string;
  let emptyAuthDir: string;
  const callEnv = async (env: Record<string, string>, dir = authDir) => {
    const session = await startMcp(project, ["--data-dir", join(tmp, "auth-data"), "--auth-dir", dir], { env: cleanEnv(env) });
    try {
      return (await session.client.callTool({ name: "env", arguments: {} })) as CallToolResult;
    } finally {
      await session.close();
    }
  };

  beforeAll(async () => {
    project = await copyKitchen(join(tmp, "auth"));
    authDir = join(tmp, "auth-dir");
    emptyAuthDir = join(tmp, "auth-dir-empty");
    await mkdir(authDir, { recursive: true });
    await mkdir(emptyAuthDir, { recursive: true });
    await writeFile(join(authDir, "workflow-auth.json"), JSON.stringify({ serverUrl: "https://saved.example", adminKey: "saved-admin-key-0001" }));
  });

  it("MCP-2 the project's .env is loaded; with no server set up nothing names one", async () => {
    expect(output(await callEnv({}, emptyAuthDir))).toMatchObject({ fromDotEnv: "dotenv-value", adminKeyLength: 0 });
  });

  // Since CFG-4 the server variables choose the configuration server: the saved login is used when
  // nothing explicit is set, and explicit variables win over it (a credential missing is a typed error).
  // TEN-7: a chosen server without a usable credential (here an admin key without the account it
  // acts as) stops `mcp` before it serves: exit 2 and one line naming the server that was chosen.
  const startFailure = async (env: Record<string, string>) => {
    const result = await runCli(["mcp", project, "--data-dir", join(tmp, "auth-data"), "--auth-dir", authDir], { env: cleanEnv(env) });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    return result.stderr;
  };

  it("MCP-2 TEN-7 saved auth is used when nothing explicit is set (CFG-4: its server is the one chosen)", async () => {
    expect(await startFailure({})).toContain("https://saved.example");
  });

  it("MCP-2 TEN-7 explicit STEAMHARNESS_SERVER_URL / STEAMHARNESS_SERVER_ADMIN_KEY override saved auth", async () => {
    const message = await startFailure({ STEAMHARNESS_SERVER_URL: "https://explicit.example", STEAMHARNESS_SERVER_ADMIN_KEY: "explicit-key-0002" });
    expect(message).toContain("https://explicit.example");
    expect(message).not.toContain("saved.example");
  });

  it("MCP-2 TEN-7 an explicit URL never receives the saved key", async () => {
    const message = await startFailure({ STEAMHARNESS_SERVER_URL: "https://other.example" });
    expect(message).toContain("https://other.example");
    expect(message).toMatch(/no credential/);
  });
});
