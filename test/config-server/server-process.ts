// A real `steamharness server` child process for the CFG-4 tests, and the admin calls they make.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll } from "@jest/globals";
import { CLI_SOURCE, REPO, cleanEnv, cleanup, tempDir } from "../cli/helpers.js";

export const ADMIN_KEY = "admin-key-for-tests-0123456789abcdef";

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

/** Starts `steamharness server --port 0 …args` and resolves with its URL once it listens. */
export function startServerProcess(args: string[], env: Record<string, string> = { STEAMHARNESS_SERVER_ADMIN_KEY: ADMIN_KEY }): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...CLI_SOURCE, "server", "--port", "0", ...args], { cwd: REPO, env: cleanEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${output}`)), 60_000);
    const stop = () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once("exit", () => done());
        child.kill("SIGTERM");
      });
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const match = /configuration server at (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1]!, child, output: () => output, stop });
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}):\n${output}`));
    });
  });
}

/** A raw JSON request; answers status and body. */
export async function request(url: string, method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** Creates an account with the admin key; its id and token. */
export async function createAccount(url: string, name: string): Promise<{ accountId: string; token: string }> {
  const answer = await request(url, "POST", "/v1/accounts", { authorization: `Bearer ${ADMIN_KEY}` }, { name });
  if (answer.status !== 201) throw new Error(`account creation failed: ${JSON.stringify(answer)}`);
  return { accountId: answer.body.account.accountId, token: answer.body.token };
}

/** What {@link useServerInTempDir} started: a temp folder and a server on `<dir>/server.sqlite`. */
export interface ServerInTempDir {
  dir: string;
  server: ServerProcess;
}

/**
 * The set-up the CFG-4 tests share, registered in the calling `describe`: before its tests a temp
 * folder (`<prefix>…`) and a `steamharness server --sqlite <dir>/server.sqlite`, handed to `bind`;
 * after them the server stopped and the folder removed.
 *
 * @example
 * let dir = "";
 * let server: ServerProcess;
 * useServerInTempDir("sh-cfg-accounts-", (started) => ({ dir, server } = started));
 */
export function useServerInTempDir(prefix: string, bind: (started: ServerInTempDir) => void): void {
  let dir: string | undefined;
  let server: ServerProcess | undefined;
  beforeAll(async () => {
    dir = await tempDir(prefix);
    server = await startServerProcess(["--sqlite", join(dir, "server.sqlite")]);
    bind({ dir, server });
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    if (dir !== undefined) await cleanup(dir);
  });
}
