/**
 * Runs one documentation program (DX-3) in its own working folder, offline: as a node program, a
 * jest test file or a bash script, optionally as a server stopped after one answer or an MCP
 * stdio server asked `initialize` and `tools/list`. Every child runs in its own process group,
 * which is ended when the run ends (nothing leaks).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";

/** How a program is run. */
export type RunMode =
  | { kind: "node"; file: string }
  | { kind: "jest"; file: string }
  | { kind: "sh"; file: string };

/** What to do while it runs. */
export type Interaction = { kind: "exit" } | { kind: "server" } | { kind: "mcp-stdio" };

/** The outcome of a run. */
export interface RunResult {
  ok: boolean;
  /** Why it failed, or what it answered. */
  detail: string;
  ms: number;
}

const TAIL = 4000;
const tail = (text: string): string => (text.length > TAIL ? `…${text.slice(-TAIL)}` : text);
const URL_PATTERN = /http:\/\/127\.0\.0\.1:\d+[^\s"')]*/;
// A timer that never keeps the test process alive.
const after = <T>(ms: number, value: T): Promise<T> => new Promise((resolve) => setTimeout(resolve, ms, value).unref());

/**
 * A free TCP port on 127.0.0.1 (for blocks whose port the test replaces).
 *
 * @example
 * const port = await freePort();
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** Ends a child's whole process group (bash and what it started), then waits for it to exit. */
export async function stopGroup(child: ChildProcess, exited: Promise<unknown>, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    endGroup(child);
    return;
  }
  try {
    process.kill(-child.pid!, signal);
  } catch {
    return; // already gone
  }
  const timer = after(10_000, "timeout");
  if ((await Promise.race([exited, timer])) === "timeout") {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      /* gone */
    }
    await exited;
  }
  endGroup(child);
}

// After the leader exited: whatever it left in its group goes too, and our ends of its pipes close.
function endGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, "SIGKILL");
  } catch {
    /* the group is empty */
  }
  for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
}

function command(mode: RunMode, repo: string): [string, string[]] {
  switch (mode.kind) {
    case "node":
      return [process.execPath, [mode.file]];
    case "sh":
      return ["bash", ["-eo", "pipefail", mode.file]];
    case "jest": {
      const config = {
        testEnvironment: "node",
        extensionsToTreatAsEsm: [".ts"],
        transform: { "^.+\\.ts$": ["@swc/jest", { jsc: { parser: { syntax: "typescript" }, target: "es2022" }, module: { type: "es6" } }] },
        testMatch: [`**/${mode.file}`],
        testPathIgnorePatterns: ["/node_modules/", "/examples/", "/src/"],
      };
      return [process.execPath, ["--experimental-vm-modules", "--disable-warning=ExperimentalWarning", path.join(repo, "node_modules/jest/bin/jest.js"), "--ci", "--no-watchman", "--rootDir", ".", "--config", JSON.stringify(config)]];
    }
  }
}

/**
 * Runs `mode` in `cwd` with `env`, interacting as `interaction` says, for at most `timeoutMs`.
 *
 * @example
 * await runProgram({ kind: "node", file: "block.mjs" }, { kind: "exit" }, { cwd, env, repo, timeoutMs: 60_000 });
 */
export async function runProgram(mode: RunMode, interaction: Interaction, options: { cwd: string; env: NodeJS.ProcessEnv; repo: string; timeoutMs: number }): Promise<RunResult> {
  const started = Date.now();
  const [file, args] = command(mode, options.repo);
  const child = spawn(file, args, { cwd: options.cwd, env: options.env, detached: true, stdio: [interaction.kind === "mcp-stdio" ? "pipe" : "ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const spawnError = new Promise<Error>((resolve) => child.once("error", resolve));
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((resolve) => (timer = setTimeout(resolve, options.timeoutMs, "timeout")));
  const output = (): string => `\n--- stdout\n${tail(stdout)}\n--- stderr\n${tail(stderr)}`;
  const done = (ok: boolean, detail: string): RunResult => ({ ok, detail: ok ? detail : `${detail}${output()}`, ms: Date.now() - started });
  try {
    if (interaction.kind === "exit") {
      const end = await Promise.race([exited, timedOut, spawnError]);
      if (end === "timeout") return done(false, `did not finish within ${options.timeoutMs} ms`);
      if (end instanceof Error) return done(false, `could not start: ${end.message}`);
      if (end.code !== 0) return done(false, `exited with ${end.code ?? end.signal}`);
      return done(true, "exit 0");
    }
    if (interaction.kind === "server") {
      const url = await Promise.race([
        new Promise<string>((resolve) => {
          const look = () => {
            const match = URL_PATTERN.exec(stdout) ?? URL_PATTERN.exec(stderr);
            if (match) resolve(match[0]);
          };
          child.stdout!.on("data", look);
          child.stderr!.on("data", look);
        }),
        exited.then((end) => `exited with ${end.code ?? end.signal} before printing its URL`),
        timedOut.then(() => `printed no http://127.0.0.1 URL within ${options.timeoutMs} ms`),
      ]);
      if (!url.startsWith("http")) return done(false, url);
      const response = await fetch(url, { signal: AbortSignal.timeout(10_000) }).then(
        (r) => `HTTP ${r.status}`,
        (error: Error) => error,
      );
      await stopGroup(child, exited);
      if (response instanceof Error) return done(false, `${url} did not answer: ${response.message}`);
      return done(true, `${url.replace(/token=[^&]+/, "token=…")} answered ${response}`);
    }
    // MCP over stdio: initialize, then tools/list, then close stdin and let it exit.
    const answers = new Map<number, { result?: { tools?: unknown[] }; error?: unknown }>();
    let buffered = "";
    const waitFor = (id: number) =>
      Promise.race([
        new Promise<void>((resolve) => {
          const look = (chunk: string) => {
            buffered += chunk;
            for (let newline = buffered.indexOf("\n"); newline >= 0; newline = buffered.indexOf("\n")) {
              const line = buffered.slice(0, newline).trim();
              buffered = buffered.slice(newline + 1);
              try {
                const message = JSON.parse(line) as { id?: number; result?: { tools?: unknown[] }; error?: unknown };
                if (typeof message.id === "number") answers.set(message.id, message);
              } catch {
                answers.set(-1, { error: `not JSON-RPC on stdout: ${line}` });
              }
            }
            if (answers.has(id)) resolve();
          };
          if (answers.has(id)) resolve();
          child.stdout!.on("data", look);
        }),
        exited.then((end) => `exited with ${end.code ?? end.signal} before answering request ${id}`),
        timedOut.then(() => `no answer to request ${id} within ${options.timeoutMs} ms`),
      ]);
    const send = (message: object) => child.stdin!.write(`${JSON.stringify(message)}\n`);
    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "docs-blocks", version: "1" } } });
    const first = await waitFor(1);
    if (typeof first === "string") return done(false, first);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
    const second = await waitFor(2);
    if (typeof second === "string") return done(false, second);
    child.stdin!.end();
    const end = await Promise.race([exited, after(15_000, "timeout")]);
    if (end === "timeout") return done(false, "did not exit after stdin closed");
    if (answers.has(-1)) return done(false, String(answers.get(-1)!.error));
    const tools = answers.get(2)!.result?.tools;
    if (!Array.isArray(tools) || tools.length === 0) return done(false, `tools/list answered ${JSON.stringify(answers.get(2))}`);
    return done(true, `initialize and tools/list answered (${tools.length} tools)`);
  } finally {
    clearTimeout(timer);
    await stopGroup(child, exited, "SIGKILL");
  }
}

/**
 * Starts a long-running child in its own group and resolves the first `http://127.0.0.1` URL it
 * prints (a gateway the block talks to).
 *
 * @example
 * const gateway = await startServing(process.execPath, ["dist/cli.js", "gateway", dir, "--port", "0"], { cwd, env });
 */
export async function startServing(file: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(file, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  let output = "";
  const url = await Promise.race([
    new Promise<string>((resolve) => {
      const look = (chunk: string) => {
        output += chunk;
        const match = URL_PATTERN.exec(output);
        if (match) resolve(match[0]);
      };
      child.stdout!.setEncoding("utf8").on("data", look);
      child.stderr!.setEncoding("utf8").on("data", look);
    }),
    exited.then(() => null),
    after<null>(options.timeoutMs ?? 30_000, null),
  ]);
  const stop = () => stopGroup(child, exited);
  if (url === null) {
    await stopGroup(child, exited, "SIGKILL");
    throw new Error(`${args.join(" ")} printed no URL:\n${output}`);
  }
  return { url, stop };
}
