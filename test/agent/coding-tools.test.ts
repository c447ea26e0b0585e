import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "@jest/globals";
import { createCodingTools } from "../../src/adapters/driven/coding-tools/index.js";
import { compileGlob } from "../../src/adapters/driven/coding-tools/glob.js";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";

function setup(allowed = false) {
  const root = tempDirRemovedAfterAll("coding-tools-");
  const workdir = path.join(root, "work");
  const outside = path.join(root, "outside");
  const extra = path.join(root, "extra");
  mkdirSync(path.join(workdir, "src"), { recursive: true });
  mkdirSync(outside);
  mkdirSync(extra);
  writeFileSync(path.join(workdir, "src", "a.ts"), "export const a = 1;\n// TODO: more\n");
  writeFileSync(path.join(workdir, "README.md"), "# Title\nhello world\n");
  writeFileSync(path.join(outside, "secret.txt"), "secret");
  writeFileSync(path.join(extra, "shared.txt"), "shared");
  symlinkSync(outside, path.join(workdir, "escape"));
  symlinkSync(path.join(outside, "secret.txt"), path.join(workdir, "secret-link.txt"));
  const tools = createCodingTools({ workdir, ...(allowed ? { allowedDirectories: [extra] } : {}), bashTimeoutMs: 5000 });
  const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool])) as Record<string, AgentTool>;
  const run = async (name: string, args: Record<string, unknown>) => {
    const result = await byName[name]!.execute("call", args);
    return result.content.map((block) => block.text).join("");
  };
  const fails = async (name: string, args: Record<string, unknown>) => byName[name]!.execute("call", args).then(() => "ok", (error: unknown) => (isSteamharnessError(error) ? error.code : String(error)));
  return { root, workdir, outside, extra, tools, byName, run, fails };
}

describe("AG-6 built-in coding tools", () => {
  it("AG-6 the seven tools exist, in order, with replay declarations", () => {
    const { tools } = setup();
    expect(tools.map((tool) => tool.name)).toEqual(["read", "write", "edit", "bash", "grep", "find", "ls"]);
    expect(Object.fromEntries(tools.map((tool) => [tool.name, tool.replay]))).toEqual({ read: "safe", write: "never", edit: "never", bash: "never", grep: "safe", find: "safe", ls: "safe" });
  });

  it("AG-6 read, write, edit, ls, find and grep work inside the workdir", async () => {
    const { run, fails, workdir } = setup();
    expect(await run("read", { path: "README.md" })).toBe("# Title\nhello world\n");
    expect(await run("read", { path: "README.md", offset: 2, limit: 1 })).toContain("hello world");
    expect(await run("write", { path: "new/dir/file.txt", content: "abc" })).toMatch(/Wrote 3 bytes/);
    expect(readFileSync(path.join(workdir, "new/dir/file.txt"), "utf8")).toBe("abc");
    await run("edit", { path: "new/dir/file.txt", oldText: "b", newText: "BB" });
    expect(readFileSync(path.join(workdir, "new/dir/file.txt"), "utf8")).toBe("aBBc");
    expect(await fails("edit", { path: "new/dir/file.txt", oldText: "zzz", newText: "q" })).toBe("not_found");
    writeFileSync(path.join(workdir, "twice.txt"), "x x");
    expect(await fails("edit", { path: "twice.txt", oldText: "x", newText: "y" })).toBe("input_validation");
    expect((await run("ls", {})).split("\n")).toEqual(expect.arrayContaining(["README.md", "src/", "new/"]));
    expect(await run("find", { pattern: "**/*.ts" })).toBe("src/a.ts");
    expect(await run("find", { pattern: "*.md" })).toBe("README.md");
    expect(await run("grep", { pattern: "todo", ignoreCase: true })).toBe("src/a.ts:2: // TODO: more");
    expect(await run("grep", { pattern: "a.", literal: true })).toBe("No matches found");
    expect(await fails("grep", { pattern: "(" })).toBe("input_validation");
    expect(await fails("read", { path: "missing.txt" })).toBe("not_found");
  });

  it("AG-6 .. paths, absolute paths and symlinks pointing outside are refused", async () => {
    const { fails, outside } = setup();
    expect(await fails("read", { path: "../outside/secret.txt" })).toBe("input_validation");
    expect(await fails("read", { path: path.join(outside, "secret.txt") })).toBe("input_validation");
    expect(await fails("read", { path: "/etc/passwd" })).toBe("input_validation");
    expect(await fails("read", { path: "secret-link.txt" })).toBe("input_validation");
    expect(await fails("read", { path: "escape/secret.txt" })).toBe("input_validation");
    expect(await fails("write", { path: "escape/new.txt", content: "x" })).toBe("input_validation");
    expect(await fails("write", { path: "src/../../outside/x.txt", content: "x" })).toBe("input_validation");
    expect(await fails("ls", { path: "escape" })).toBe("input_validation");
    expect(await fails("find", { pattern: "*", path: ".." })).toBe("input_validation");
    expect(await fails("grep", { pattern: "secret", path: "escape" })).toBe("input_validation");
  });

  it("AG-6 allowedDirectories extend the confinement, and search never follows symlinks out", async () => {
    const { run, fails, extra } = setup(true);
    expect(await run("read", { path: path.join(extra, "shared.txt") })).toBe("shared");
    expect(await run("read", { path: "../extra/shared.txt" })).toBe("shared");
    expect(await fails("read", { path: "../outside/secret.txt" })).toBe("input_validation");
    expect(await run("grep", { pattern: "secret" })).toBe("No matches found");
  });

  it("AG-6 bash runs in the workdir and reports the exit code", async () => {
    const { run, workdir } = setup();
    const out = await run("bash", { command: "pwd; echo err >&2; exit 3" });
    expect(out).toContain(workdir);
    expect(out).toContain("err");
    expect(out).toMatch(/\[exit code 3\]$/);
  });

  it("AG-6 a bash timeout kills the whole process group", async () => {
    const { fails, workdir } = setup();
    const marker = path.join(workdir, "survivor.txt");
    const started = Date.now();
    const code = await fails("bash", { command: `(sleep 1; echo alive > ${marker}) & sleep 30`, timeout: 0.5 });
    expect(code).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(5000);
    // A survivor would write the marker 1 s after the start: look 1 s after that at the earliest.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + 2000 - Date.now())));
    expect(() => readFileSync(marker)).toThrow();
  });

  it("AG-6 an aborted signal cancels bash", async () => {
    const { tools } = setup();
    const bash = tools.find((tool) => tool.name === "bash")!;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const error = await bash.execute("c", { command: "sleep 30" }, controller.signal).catch((e: unknown) => e);
    expect(isSteamharnessError(error, "cancelled")).toBe(true);
  });

  it("globs: ** spans directories, * stays in a segment, braces alternate", () => {
    expect(compileGlob("src/**/*.ts").test("src/a/b/c.ts")).toBe(true);
    expect(compileGlob("src/**/*.ts").test("src/c.ts")).toBe(true);
    expect(compileGlob("src/*.ts").test("src/a/c.ts")).toBe(false);
    expect(compileGlob("*.{md,txt}").test("a.txt")).toBe(true);
    expect(compileGlob("a?.js").test("ab.js")).toBe(true);
  });

  it("AG-6 a workdir that does not exist yet fails with not_found, and works once created", async () => {
    const root = tempDirRemovedAfterAll("coding-late-");
    const workdir = path.join(root, "later");
    const ls = createCodingTools({ workdir }).find((tool) => tool.name === "ls")!;
    const error = await ls.execute("c", {}).catch((e: unknown) => e);
    expect(isSteamharnessError(error, "not_found")).toBe(true);
    mkdirSync(workdir);
    writeFileSync(path.join(workdir, "x.txt"), "x");
    expect((await ls.execute("c", {})).content[0]!.text).toBe("x.txt");
  });
});

describe("coding-tool path guard by segments", () => {
  it("AG-6 names starting with two dots inside the workdir are allowed (..draft.md, a/..b), real escapes still refused", async () => {
    const { run, fails, workdir, outside } = setup();
    expect(await run("write", { path: "..draft.md", content: "draft" })).toContain("..draft.md");
    expect(readFileSync(path.join(workdir, "..draft.md"), "utf8")).toBe("draft");
    expect(await run("write", { path: "notes/..hidden/x.md", content: "x" })).toContain(path.join("notes", "..hidden", "x.md"));
    expect(await run("read", { path: "..draft.md" })).toBe("draft");
    for (const escape of ["../outside/secret.txt", "..", "notes/../../outside/secret.txt", path.join(outside, "secret.txt"), "escape/secret.txt", "secret-link.txt", "escape/..new.md"]) {
      expect([escape, await fails("read", { path: escape })]).toEqual([escape, "input_validation"]);
    }
    expect(await fails("write", { path: "escape/..new.md", content: "no" })).toBe("input_validation");
  });
});

describe("OUT-9 patch and file details", () => {
  it("OUT-9 edit returns a unified diff of the change; write says which file, its size and whether it is new", async () => {
    const { byName, workdir } = setup();
    const edited = await byName.edit!.execute("call", { path: "src/a.ts", oldText: "// TODO: more", newText: "// done" });
    expect((edited.details as { diff: string }).diff).toBe("--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,2 +1,2 @@\n export const a = 1;\n-// TODO: more\n+// done\n");
    const created = await byName.write!.execute("call", { path: "new.txt", content: "héllo" });
    expect(created.details).toEqual({ path: "new.txt", bytes: 6, created: true });
    const overwritten = await byName.write!.execute("call", { path: "new.txt", content: "x" });
    expect(overwritten.details).toEqual({ path: "new.txt", bytes: 1, created: false });
    expect(readFileSync(path.join(workdir, "src", "a.ts"), "utf8")).toBe("export const a = 1;\n// done\n");
  });
});
