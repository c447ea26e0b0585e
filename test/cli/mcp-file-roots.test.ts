import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { existsSync } from "node:fs";
import { mkdir, readdir, symlink, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { cleanEnv, cleanup, copyKitchen, FAKE_SECRET, rejection, runCli, startMcp, tempDir, type McpSession } from "./helpers.js";

// SEC-5: an MCP client chooses the paths of file params. Real `steamharness mcp` processes and
// the SDK's stdio client: pseudo files, files outside the allowed roots (also through links) and
// a call with one refused file import nothing, and the client sees a refused tool result naming the param (DX-17).

jest.setTimeout(120_000);

let tmp: string;
let project: string;
let outside: string;
let allowed: string;

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-roots-");
  project = await copyKitchen(tmp);
  outside = join(tmp, "outside");
  allowed = join(tmp, "allowed");
  await mkdir(join(project, "docs"));
  await mkdir(outside);
  await mkdir(allowed);
  await writeFile(join(project, "docs", "report.md"), "# Report\n");
  await symlink(join(project, "docs", "report.md"), join(project, "docs", "alias.md"));
  await writeFile(join(outside, "secret.txt"), "outside secret\n");
  await symlink(join(outside, "secret.txt"), join(project, "docs", "to-outside.txt"));
  await symlink("/proc/self/environ", join(project, "docs", "environ"));
  await writeFile(join(allowed, "notes.txt"), "allowed notes\n");
  // A real file over 50 MB (sparse: stat and reads both say 50 MB + 1 byte).
  await writeFile(join(project, "docs", "big.bin"), "");
  await truncate(join(project, "docs", "big.bin"), 50 * 1024 * 1024 + 1);
});
afterAll(async () => {
  await cleanup(tmp);
});

async function storedFiles(store: string): Promise<string[]> {
  const dir = join(store, "files");
  if (!existsSync(dir)) return [];
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => entry.name).sort();
}

/** Calls `echo` and resolves the refusal of its arguments (DX-17), or fails if the call ran. */
async function refused(session: McpSession, args: Record<string, unknown>): Promise<{ message: string }> {
  return { message: rejection(await session.client.callTool({ name: "echo", arguments: { text: "t", ...args } }, undefined, { timeout: 30_000 })) };
}

describe("SEC-5 steamharness mcp file params (default roots: the project and the working dir)", () => {
  let session: McpSession;
  let store: string;

  beforeAll(async () => {
    store = join(tmp, "store-default");
    session = await startMcp(project, ["--file-store-dir", store, "--workers", "1"], { env: cleanEnv({ SH_SEC5_SECRET: FAKE_SECRET }) });
  }, 90_000);
  afterAll(async () => {
    await session?.close();
  });

  it("SEC-5 /proc/self/environ is refused, names the param, shows no content and imports nothing", async () => {
    const before = await storedFiles(store);
    const error = await refused(session, { doc: "/proc/self/environ" });
    expect(error.message).toMatch(/arguments\.doc is on the \/proc pseudo file system/);
    expect(error.message).not.toContain(FAKE_SECRET);
    expect(await storedFiles(store)).toEqual(before);
  });

  it("SEC-5 /proc/self/pagemap (stat size 0, terabytes to read) is refused before any read", async () => {
    const error = await refused(session, { docs: ["/proc/self/pagemap"] });
    expect(error.message).toMatch(/arguments\.docs\[0\] is on the \/proc pseudo file system/);
  });

  it("SEC-5 a symlink inside the project that points into /proc is refused by its real path", async () => {
    const error = await refused(session, { doc: join(project, "docs", "environ") });
    expect(error.message).toMatch(/is on the \/proc pseudo file system \(through a symbolic link\)/);
    expect(error.message).not.toContain(FAKE_SECRET);
  });

  it("SEC-5 a file outside the allowed roots is refused, directly and through a symlink inside the project", async () => {
    const before = await storedFiles(store);
    const direct = await refused(session, { doc: join(outside, "secret.txt") });
    expect(direct.message).toMatch(/arguments\.doc is outside the allowed file roots/);
    const linked = await refused(session, { doc: join(project, "docs", "to-outside.txt") });
    expect(linked.message).toContain("arguments.doc resolves to a file that is outside the allowed file roots");
    expect(linked.message).not.toContain(tmp);
    expect(linked.message).not.toContain("outside secret");
    expect((await refused(session, { doc: "/etc/passwd" })).message).toMatch(/outside the allowed file roots/);
    expect(await storedFiles(store)).toEqual(before);
  });

  it("SEC-5 the project's .env (the server's secrets) is never imported", async () => {
    await writeFile(join(project, ".env"), `SH_SEC5_DOTENV=${FAKE_SECRET}\n`, { flag: "a" });
    const error = await refused(session, { doc: join(project, ".env") });
    expect(error.message).toMatch(/is part of the server's own state/);
    expect(error.message).not.toContain(FAKE_SECRET);
  });

  it("SEC-5 a real file over 50 MB is refused", async () => {
    expect((await refused(session, { doc: join(project, "docs", "big.bin") })).message).toMatch(/is 52428801 bytes, over the 52428800-byte \(50 MB\) limit/);
  });

  it("SEC-5 two files in one call, one refused: nothing is imported", async () => {
    const good = join(project, "docs", `good-${process.pid}.txt`);
    await writeFile(good, `unique ${good}`);
    const before = await storedFiles(store);
    const error = await refused(session, { doc: good, docs: [join(outside, "secret.txt")] });
    expect(error.message).toMatch(/arguments\.docs\[0\] is outside the allowed file roots/);
    expect(await storedFiles(store)).toEqual(before);
  });

  it("SEC-5 a symlinked file is imported with its target's bytes under the link's own name", async () => {
    const result = (await session.client.callTool({ name: "echo", arguments: { text: "t", doc: join(project, "docs", "alias.md"), docs: [join(project, "docs", "report.md")] } })) as CallToolResult;
    expect(result.structuredContent?.status).toBe("success");
    const params = (result.structuredContent!.output as { params: { doc: { name: string; size: number }; docs: Array<{ name: string }> } }).params;
    expect(params.doc).toMatchObject({ name: "alias.md", size: 9 });
    expect(params.docs.map((file) => file.name)).toEqual(["report.md"]);
  });
});

describe("SEC-5 --allow-file-root", () => {
  it("SEC-5 --allow-file-root replaces the default roots: a file below it is imported, one in the project is refused", async () => {
    const store = join(tmp, "store-allowed");
    const session = await startMcp(project, ["--file-store-dir", store, "--workers", "1", "--allow-file-root", allowed]);
    try {
      const result = (await session.client.callTool({ name: "echo", arguments: { text: "t", doc: join(allowed, "notes.txt") } })) as CallToolResult;
      expect(result.structuredContent?.status).toBe("success");
      expect((result.structuredContent!.output as { params: { doc: { name: string } } }).params.doc.name).toBe("notes.txt");
      const error = await refused(session, { doc: join(project, "docs", "report.md") });
      expect(error.message).toContain("arguments.doc is outside the allowed file roots (the server's --allow-file-root)");
      expect(error.message).not.toContain(allowed);
    } finally {
      await session.close();
    }
  });

  it("SEC-5 a relative or missing --allow-file-root stops the server with exit code 2, naming the flag", async () => {
    const relative = await runCli(["mcp", project, "--allow-file-root", "docs"]);
    expect(relative.code).toBe(2);
    expect(relative.stderr).toMatch(/--allow-file-root "docs" must be an absolute directory path/);
    const missing = await runCli(["mcp", project, "--allow-file-root", join(tmp, "nope")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--allow-file-root ".*nope" does not exist/);
  });
});
