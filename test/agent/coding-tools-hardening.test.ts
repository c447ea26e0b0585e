import { execFileSync, spawn } from "node:child_process";
import { constants, closeSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "@jest/globals";
import { createCodingTools, type CodingToolsOptions } from "../../src/adapters/driven/coding-tools/index.js";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const SECRET = "TOP SECRET outside the workdir\n";

function setup(options: Partial<CodingToolsOptions> = {}) {
  const root = tempDirRemovedAfterAll("coding-hardening-");
  const workdir = path.join(root, "work");
  const outside = path.join(root, "outside");
  mkdirSync(workdir);
  mkdirSync(outside);
  writeFileSync(path.join(outside, "secret.txt"), SECRET);
  writeFileSync(path.join(outside, "only-outside.txt"), SECRET);
  const tools = createCodingTools({ workdir, bashTimeoutMs: 5000, ...options });
  const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool])) as Record<string, AgentTool>;
  const run = async (name: string, args: Record<string, unknown>, signal?: AbortSignal) => {
    const result = await byName[name]!.execute("call", args, signal);
    return result.content.map((block) => block.text).join("");
  };
  const attempt = (name: string, args: Record<string, unknown>) => byName[name]!.execute("call", args).then(() => "ok" as const, (error: unknown) => error);
  const fails = async (name: string, args: Record<string, unknown>) => {
    const error = await attempt(name, args);
    return error === "ok" ? "ok" : isSteamharnessError(error) ? error.code : String(error);
  };
  return { root, workdir, outside, run, fails, attempt };
}

/** Names, contents and modification times of a folder's entries, and the folder's own mtime. */
function snapshot(dir: string) {
  return {
    dirMtime: statSync(dir).mtimeMs,
    entries: readdirSync(dir)
      .sort()
      .map((name) => ({ name, content: readFileSync(path.join(dir, name), "utf8"), mtime: statSync(path.join(dir, name)).mtimeMs })),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("SEC-1 coding tools stay inside the workdir", () => {
  it("SEC-1 write through a dangling symlink is refused and creates nothing outside", async () => {
    const { workdir, outside, fails } = setup();
    symlinkSync(path.join(outside, "new.txt"), path.join(workdir, "dangling"));
    symlinkSync(path.join(workdir, "missing-inside.txt"), path.join(workdir, "dangling-inside"));
    const before = snapshot(outside);
    expect(await fails("write", { path: "dangling", content: "x" })).toBe("input_validation");
    expect(await fails("write", { path: "dangling-inside", content: "x" })).toBe("input_validation");
    expect(await fails("edit", { path: "dangling", oldText: "a", newText: "b" })).toBe("input_validation");
    expect(existsSync(path.join(outside, "new.txt"))).toBe(false);
    expect(existsSync(path.join(workdir, "missing-inside.txt"))).toBe(false);
    expect(lstatSync(path.join(workdir, "dangling")).isSymbolicLink()).toBe(true);
    expect(snapshot(outside)).toEqual(before);
  });

  it("SEC-1 a second process swapping files and folders for links to outside for 5 s: 0 outside reads or writes", async () => {
    const { workdir, outside, run } = setup();
    writeFileSync(path.join(workdir, "flip.txt"), "inside SAFE\n");
    const old = new Date(Date.now() - 3_600_000);
    for (const name of readdirSync(outside)) utimesSync(path.join(outside, name), old, old);
    const before = snapshot(outside);
    const swapper = spawn(process.execPath, [path.join(here, "..", "fixtures", "link-swapper.cjs"), workdir, outside, "5500"], { stdio: ["ignore", "pipe", "inherit"] });
    let swaps = "";
    swapper.stdout.on("data", (data: Buffer) => (swaps += data.toString()));
    const exited = new Promise<number | null>((resolve) => swapper.on("exit", resolve));
    const results: string[] = [];
    const untyped: unknown[] = [];
    let done = 0;
    let refused = 0;
    const ops: Array<[string, Record<string, unknown>]> = [
      ["read", { path: "flip.txt" }],
      ["read", { path: "dir/secret.txt" }],
      ["write", { path: "flip.txt", content: "written by the tool\n" }],
      ["write", { path: "dir/secret.txt", content: "written by the tool\n" }],
      ["write", { path: "dir/new.txt", content: "new\n" }],
      ["edit", { path: "flip.txt", oldText: "SECRET", newText: "PWNED" }],
      ["edit", { path: "dir/secret.txt", oldText: "SECRET", newText: "PWNED" }],
      ["grep", { pattern: "SECRET" }],
      ["ls", { path: "dir" }],
      ["find", { pattern: "**/only-outside.txt" }],
    ];
    await sleep(100); // the swapper is running
    const until = Date.now() + 5000;
    while (Date.now() < until) {
      for (const [name, args] of ops) {
        try {
          results.push(await run(name, args));
          done++;
        } catch (error) {
          if (isSteamharnessError(error)) refused++;
          else untyped.push(error);
        }
      }
    }
    expect(await exited).toBe(0);
    expect(Number(swaps)).toBeGreaterThan(100);
    // The race happened both ways: some calls went through, some were refused.
    expect(done).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
    expect(untyped).toEqual([]);
    expect(results.filter((text) => text.includes("SECRET") || text.includes("only-outside"))).toEqual([]);
    expect(snapshot(outside)).toEqual(before);
  }, 20_000);
});

describe("SEC-2 non-regular files and bounded reads", () => {
  it("SEC-2 a FIFO is refused within 1 s by write, edit, read and grep; four of them do not starve the host's fs", async () => {
    const { workdir, fails } = setup();
    const fifos = [0, 1, 2, 3].map((i) => path.join(workdir, `pipe${i}`));
    for (const fifo of fifos) execFileSync("mkfifo", [fifo]);
    try {
      const hung = sleep(1000).then(() => "hung");
      const writes = fifos.map((fifo) => Promise.race([fails("write", { path: path.basename(fifo), content: "x" }), hung]));
      const unrelated = Promise.race([stat(workdir).then(() => "ok"), hung]);
      expect(await Promise.all(writes)).toEqual(["input_validation", "input_validation", "input_validation", "input_validation"]);
      expect(await unrelated).toBe("ok");
      expect(await Promise.race([fails("edit", { path: "pipe0", oldText: "a", newText: "b" }), hung])).toBe("input_validation");
      expect(await Promise.race([fails("read", { path: "pipe0" }), hung])).toBe("input_validation");
      expect(await Promise.race([fails("grep", { pattern: "x", path: "pipe0" }), hung])).toBe("input_validation");
      for (const fifo of fifos) expect(lstatSync(fifo).isFIFO()).toBe(true);
    } finally {
      // On code that opened a FIFO for writing, that open waits for a reader: give it one.
      for (const fifo of fifos) closeSync(openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK));
    }
  });

  it("SEC-2 a unix socket in the workdir is refused by read and write", async () => {
    const { workdir, fails } = setup();
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path.join(workdir, "sock"), resolve));
    try {
      expect(await fails("read", { path: "sock" })).toBe("input_validation");
      expect(await fails("write", { path: "sock", content: "x" })).toBe("input_validation");
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("SEC-2 read pages through offset/limit (2000 lines or 256 KB) and says where to continue", async () => {
    const { workdir, run } = setup();
    writeFileSync(path.join(workdir, "lines.txt"), Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`).join("\n"));
    const first = await run("read", { path: "lines.txt" });
    expect(first.split("\n").slice(0, 2000).at(-1)).toBe("line 2000");
    expect(first).toMatch(/\[truncated: lines 1-2000 of a \d+-byte file shown; continue with offset 2001\]$/);
    const rest = await run("read", { path: "lines.txt", offset: 2001, limit: 5000 });
    expect(rest.split("\n")).toEqual(Array.from({ length: 1000 }, (_, i) => `line ${i + 2001}`));
    expect(await run("read", { path: "lines.txt", offset: 10, limit: 2 })).toMatch(/^line 10\nline 11\n\n\[truncated: lines 10-11 /);
    expect(await run("read", { path: "lines.txt", offset: 9999 })).toBe("");
    // One 600 KB line of two-byte characters: cut at 256 KB on a character boundary.
    writeFileSync(path.join(workdir, "wide.txt"), `${"é".repeat(300_000)}\nnext`);
    const wide = await run("read", { path: "wide.txt" });
    expect(wide.startsWith("é".repeat(131_072))).toBe(true);
    expect(wide).not.toContain("\uFFFD");
    expect(wide).toContain("[truncated: line 1 is cut at 256 KB;");
  });

  it("SEC-2 edit refuses a file above 10 MB, and an edit keeps the file's mode", async () => {
    const { workdir, fails, run, attempt } = setup();
    writeFileSync(path.join(workdir, "big.txt"), `needle\n${"x".repeat(11 * 1024 * 1024)}`);
    const error = await attempt("edit", { path: "big.txt", oldText: "needle", newText: "pin" });
    expect(isSteamharnessError(error, "input_validation")).toBe(true);
    expect((error as { data?: { reason?: string } }).data?.reason).toBe("too_large");
    expect(readFileSync(path.join(workdir, "big.txt"), "utf8").startsWith("needle\n")).toBe(true);
    writeFileSync(path.join(workdir, "small.sh"), "echo one\n", { mode: 0o750 });
    await run("edit", { path: "small.sh", oldText: "one", newText: "two" });
    expect(readFileSync(path.join(workdir, "small.sh"), "utf8")).toBe("echo two\n");
    expect(statSync(path.join(workdir, "small.sh")).mode & 0o777).toBe(0o750);
    expect(readdirSync(workdir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    expect(await fails("edit", { path: "missing.txt", oldText: "a", newText: "b" })).toBe("not_found");
  });

  it("SEC-2 reading one line of a 400 MB sparse file grows RSS by less than 64 MiB (child process)", async () => {
    const root = tempDirRemovedAfterAll("coding-sparse-");
    const child = spawn(process.execPath, ["--expose-gc", bundledFixture(path.join(here, "..", "fixtures", "sparse-read-child.ts")), root], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (data: Buffer) => (out += data.toString()));
    expect(await new Promise((resolve) => child.on("exit", resolve))).toBe(0);
    const report = JSON.parse(out) as { growthMiB: number; first: string; second: string; edit: string };
    expect(report.growthMiB).toBeLessThan(64);
    expect(report.first).toMatch(/^first line\n\n\[truncated: lines 1-1 of a 419430400-byte file shown/);
    expect(report.second.length).toBeLessThan(300 * 1024);
    expect(report.edit).toBe("input_validation");
  }, 60_000);
});

describe("SEC-3 grep never blocks the host", () => {
  // 28 characters: seconds of backtracking on the main thread (the time doubles per extra "a"),
  // enough to outlast the deadlines below, short enough that code without them fails, not hangs.
  const EVIL = `${"a".repeat(28)}b\n`;

  it("SEC-3 a catastrophic regex (^(a+)+$) stops at the deadline while a 100 ms host timer keeps ticking", async () => {
    const { workdir, fails, run } = setup({ grepTimeoutMs: 1000 });
    writeFileSync(path.join(workdir, "evil.txt"), EVIL);
    let last = Date.now();
    let maxGap = 0;
    const ticker = setInterval(() => {
      const now = Date.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
    }, 100);
    try {
      const started = Date.now();
      expect(await fails("grep", { pattern: "^(a+)+$" })).toBe("timeout");
      expect(Date.now() - started).toBeLessThan(5000);
      expect(maxGap).toBeLessThan(600);
    } finally {
      clearInterval(ticker);
    }
    // A stopped search leaves grep usable.
    expect(await run("grep", { pattern: "b$" })).toBe(`evil.txt:1: ${EVIL.trim()}`);
  }, 40_000);

  it("SEC-3 abort stops a running catastrophic regex within 100 ms, and its thread stops using CPU", async () => {
    const { workdir, run } = setup({ grepTimeoutMs: 60_000 });
    writeFileSync(path.join(workdir, "evil.txt"), EVIL);
    const controller = new AbortController();
    const outcome = run("grep", { pattern: "^(a+)+$" }, controller.signal).then(
      () => ({ code: "ok", at: Date.now() }),
      (error: unknown) => ({ code: isSteamharnessError(error) ? error.code : String(error), at: Date.now() }),
    );
    await sleep(200);
    const cpuRunning = process.cpuUsage();
    await sleep(500);
    const running = process.cpuUsage(cpuRunning);
    const abortedAt = Date.now();
    controller.abort();
    const result = await outcome;
    expect(result.code).toBe("cancelled");
    expect(result.at - abortedAt).toBeLessThan(100);
    await sleep(100);
    const cpuStopped = process.cpuUsage();
    await sleep(500);
    const stopped = process.cpuUsage(cpuStopped);
    expect(stopped.user + stopped.system).toBeLessThan((running.user + running.system) / 3);
  }, 40_000);
});
