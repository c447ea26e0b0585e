// DX-8: no command hangs or exits 0 on a fatal error. Each case starts the real CLI in a child
// process (broken projects, bad flag values, a port in use, closed stdin, a broken pipe) and
// checks the exit code and that stderr is one `steamharness: …` line without a doubled prefix.
import { spawn, type StdioOptions } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { bundledProject } from "../fixtures/bundled-fixture.js";
import { cleanEnv, cleanup, CLI_SOURCE, ensureViewerBuilt, EXAMPLE, KITCHEN, REPO, runCli, tempDir, writeProject } from "./helpers.js";

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  hung: boolean;
}

/** Runs the CLI with the given stdio; a process still alive after `limitMs` is killed and reported as hung. */
function runWith(args: string[], options: { stdin: "ignore" | "pipe"; closeStdout?: boolean; limitMs?: number; prefix?: string[] }): Promise<Ended> {
  return new Promise((resolve) => {
    const stdio: StdioOptions = [options.stdin, "pipe", "pipe"];
    const child = spawn(process.execPath, [...(options.prefix ?? CLI_SOURCE), ...args], { cwd: REPO, env: cleanEnv(), stdio });
    let stdout = "";
    let stderr = "";
    // A reader that went away before the command wrote: every write meets a broken pipe.
    if (options.closeStdout) child.stdout!.destroy();
    else child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      child.kill("SIGKILL");
    }, options.limitMs ?? 30_000);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      // Let the pipes drain before reporting.
      setTimeout(() => resolve({ code, signal, stdout, stderr, hung }), 50);
    });
  });
}

/** The stderr of a fatal error: exactly one line, `steamharness: …`, the library's own tag not repeated, no stack. */
function expectOneLine(stderr: string, pattern: RegExp): void {
  const lines = stderr.split("\n").filter(Boolean);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^steamharness: /);
  expect(lines[0]).not.toContain("[steamharness]");
  expect(lines[0]).toMatch(pattern);
}

let tmp: string;
// The conversation projects (TypeScript importing our sources) are bundled (bundledProject): each
// CLI process then loads plain JavaScript instead of compiling the sources through tsx (~3 s of
// CPU per process on the test machine).
let chatProject: string;
let badPolicy: string;
let brokenWorkflow: string;
let held: Server;
let heldPort: number;

beforeAll(async () => {
  await ensureViewerBuilt();
  tmp = await tempDir("sh-dx8-");
  chatProject = bundledProject("test/conversation/fixtures/chat-assistant", join(tmp, "chat-assistant"));
  const badPolicySource = await writeProject(join(tmp, "bad-policy-source"), {
    "package.json": JSON.stringify({ name: "bad-policy", type: "module", id: "5d1f0b7e-3a2c-4e8d-9f10-2b3c4d5e6f70", projectType: "conversation", main: "conversation.ts" }),
    "conversation.ts": [
      `import { defineAgentConversationExecutor } from ${JSON.stringify(join(REPO, "src/app/conversation/define-executor.js"))};`,
      `import { createOfflineModel } from ${JSON.stringify(join(REPO, "src/testing/offline-model.js"))};`,
      `export default defineAgentConversationExecutor({ name: "bad-policy", systemPrompt: "x", models: createOfflineModel({ steps: () => ({ text: "hi" }) }),`,
      `  permissionPolicy: "sometimes" as never, executor: { tools: [], conversation: { recovery: { enabled: false }, durable: { enabled: false } } } });`,
    ].join("\n"),
  });
  badPolicy = bundledProject(badPolicySource, join(tmp, "bad-policy"));
  brokenWorkflow = await writeProject(join(tmp, "broken-workflow"), {
    "package.json": JSON.stringify({ name: "broken", type: "module", id: "5d1f0b7e-3a2c-4e8d-9f10-2b3c4d5e6f71", projectType: "workflow", main: "workflow.mjs" }),
    "workflow.mjs": "export default {",
  });
  held = createServer();
  await new Promise<void>((resolve) => held.listen(0, "127.0.0.1", resolve));
  heldPort = (held.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => held.close(() => resolve()));
  await cleanup(tmp);
});

describe("DX-8 a broken project ends every command with its code and one line", () => {
  it.each([
    ["stdin left open", "pipe" as const],
    ["stdin closed", "ignore" as const],
  ])("DX-8 chat on a project with permissionPolicy \"sometimes\" exits 2 (%s), never hangs", async (_label, stdin) => {
    const ended = await runWith(["chat", badPolicy, "--data-dir", join(tmp, "data")], { stdin });
    expect(ended.hung).toBe(false);
    expect(ended.code).toBe(2);
    expectOneLine(ended.stderr, /unknown permissionPolicy "sometimes"/);
  });

  it("DX-8 gateway on the same project exits 2 with the same line", async () => {
    const ended = await runWith(["gateway", badPolicy, "--port", "0", "--data-dir", join(tmp, "data")], { stdin: "ignore" });
    expect([ended.hung, ended.code]).toEqual([false, 2]);
    expectOneLine(ended.stderr, /unknown permissionPolicy "sometimes"/);
  });

  it("DX-8 mcp on a project whose module does not load, stdin closed at once, exits 2 and says why (was a silent 0)", async () => {
    const ended = await runWith(["mcp", brokenWorkflow, "--data-dir", join(tmp, "data")], { stdin: "ignore" });
    expect([ended.hung, ended.code]).toEqual([false, 2]);
    expect(ended.stdout).toBe("");
    expect(ended.stderr).toMatch(/cannot load workflow module/);
  });

  it("DX-8 mcp on a project that loads, stdin closed at once, still exits 0", async () => {
    // The kitchen project (plain JavaScript): its workers load without compiling TypeScript.
    const ended = await runWith(["mcp", KITCHEN, "--data-dir", join(tmp, "data")], { stdin: "ignore" });
    expect([ended.hung, ended.code]).toEqual([false, 0]);
  });

  it("DX-8 a library message keeps one prefix: the gateway's short-token error reads `steamharness: [gateway] …`", async () => {
    const result = await runCli(["gateway", chatProject, "--port", "0"], { env: cleanEnv({ STEAMHARNESS_GATEWAY_TOKEN: "short" }) });
    expect(result.code).toBe(2);
    expectOneLine(result.stderr, /^steamharness: \[gateway\] STEAMHARNESS_GATEWAY_TOKEN must hold at least 16/);
  });

  it("DX-8 config on a folder without a project id, and an export to a folder that does not exist, exit 2 with one line", async () => {
    const plain = await writeProject(join(tmp, "plain"), { "package.json": "{}" });
    const show = await runCli(["config", "show", plain, "--data-dir", join(tmp, "data")]);
    expect(show.code).toBe(2);
    expectOneLine(show.stderr, /has no UUID "id"/);
    const exported = await runCli(["config", "export", KITCHEN, "--data-dir", join(tmp, "data"), "-o", join(tmp, "missing/dir/out.json")]);
    expect(exported.code).toBe(2);
    expectOneLine(exported.stderr, /cannot write .*out\.json: ENOENT/);
  });

  it("DX-8 init with an unknown kind exits 2 with one line naming the choices", async () => {
    const result = await runCli(["init", "kanban", join(tmp, "init-bad")]);
    expect(result.code).toBe(2);
    expectOneLine(result.stderr, /Allowed choices are workflow, conversation/);
  });

  it("DX-8 a stack trace only with --debug", async () => {
    const file = join(tmp, "a-file");
    writeFileSync(file, "x");
    const plain = await runCli(["view", "--store", file]);
    expect(plain.code).not.toBe(0);
    expectOneLine(plain.stderr, /cannot create the directory of store /);
    const debug = await runCli(["view", "--store", file, "--debug"]);
    expect(debug.code).toBe(plain.code);
    expect(debug.stderr).toMatch(/^steamharness: [^\n]*cannot create the directory of store [^\n]*\n[\s\S]*\n\s+at /);
  });
});

describe("DX-8 flag values are checked before anything starts", () => {
  it.each([
    ["run", "abc"],
    ["run", "-5"],
    ["run", "0"],
    ["mcp", "abc"],
    ["mcp", "-5"],
  ])("DX-8 %s --timeout %s is a usage error (exit 2, one line)", async (command, value) => {
    const args = command === "run" ? ["run", EXAMPLE, "greet", "--timeout", value] : ["mcp", EXAMPLE, "--timeout", value];
    const ended = await runWith([...args, "--data-dir", join(tmp, "data")], { stdin: "ignore" });
    expect([ended.hung, ended.code]).toEqual([false, 2]);
    expect(ended.stdout).toBe("");
    expectOneLine(ended.stderr, new RegExp(`option '--timeout <ms>' argument '${value}' is invalid\\. expected a whole number of milliseconds`));
  });

  it("DX-8 run --timeout with a whole number still runs", async () => {
    const result = await runCli(["run", KITCHEN, "echo", "--params", '{"text":"Ada"}', "--timeout", "60000", "--json", "--data-dir", join(tmp, "data")]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: "success" });
  });

  // DX-14: every server binds through one helper (src/adapters/driving/shared/listen.ts), so a
  // port in use reads the same everywhere; `mcp --http` binds before its workers start, so no
  // "does not load … killed by SIGKILL" line from a worker stopped on the way out.
  it.each([
    ["server", () => ["server", "--sqlite", join(tmp, "config-server.sqlite"), "--port", String(heldPort)]],
    ["gateway", () => ["gateway", chatProject, "--port", String(heldPort), "--data-dir", join(tmp, "data")]],
    ["view", () => ["view", "--store", tmp, "--port", String(heldPort)]],
    ["mcp --http", () => ["mcp", EXAMPLE, "--http", "--port", String(heldPort), "--data-dir", join(tmp, "data")]],
  ])("DX-14 %s on a port in use exits 2 with the same one line naming the port and --port, no worker line", async (_name, args) => {
    const ended = await runWith(args(), { stdin: "ignore" });
    expect([ended.hung, ended.code]).toEqual([false, 2]);
    expect(ended.stderr).not.toMatch(/worker|does not load|SIGKILL|EADDRINUSE:/);
    expectOneLine(ended.stderr, new RegExp(`^steamharness: port ${heldPort} on 127\\.0\\.0\\.1 is already in use \\(127\\.0\\.0\\.1:${heldPort}\\): pass another --port, or --port 0 for a free one$`));
  });
});

describe("DX-8 a broken pipe on stdout ends quietly", () => {
  it.each([[["--help"]], [["run", "--help"]], [["structure", EXAMPLE]]])("DX-8 %j with its reader gone exits 0 without an EPIPE trace", async (args) => {
    const ended = await runWith(args, { stdin: "ignore", closeStdout: true });
    expect([ended.hung, ended.signal, ended.code]).toEqual([false, null, 0]);
    expect(ended.stderr).not.toMatch(/EPIPE|Unhandled 'error' event/);
  });
});

describe("DX-8 gateway --host 0.0.0.0", () => {
  it("DX-8 warns that every interface listens and prints a URL a client on this machine can use", async () => {
    const child = spawn(process.execPath, [...CLI_SOURCE, "gateway", chatProject, "--host", "0.0.0.0", "--port", "0", "--data-dir", join(tmp, "data")], { cwd: REPO, env: cleanEnv(), stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr!.on("data", (chunk: Buffer) => {
          stderr += chunk.toString();
          const found = /at (http:\/\/[^ ]+\/v1)/.exec(stderr);
          if (found && stderr.includes("warning:")) resolve(found[1]!);
        });
        child.once("exit", (code) => reject(new Error(`gateway exited (${code}): ${stderr}`)));
      });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      expect(stderr).toMatch(/warning: listening on every interface \(--host 0\.0\.0\.0\)/);
      // The printed URL reaches the gateway (401: it asks for the token).
      expect((await fetch(`${url}/responses`, { method: "POST" })).status).toBe(401);
    } finally {
      child.kill("SIGTERM");
    }
  });
});
