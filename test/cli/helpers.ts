// Shared helpers of the CLI and MCP integration tests: real child processes, real SDK clients.
import { execFile, type ExecFileException } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
// Types only: startMcp loads the SDK client when it is called (ARCH-12). About half the files that
// import these helpers never start an MCP server, and loading the client (zod with it) cost each
// of them ~0.25 CPU-s of its module registry (an empty test file: 0.15 CPU-s in all).
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { DIST_IS_FRESH } from "../fixtures/dist-freshness.js";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const KITCHEN = join(REPO, "test/workflow/fixtures/kitchen");
export const KITCHEN_ID = "0f6a3c2e-9d41-4b7a-8c55-1e2d3f4a5b6c";
export const EXAMPLE = join(REPO, "examples/workflow-project");
export const FAKE_SECRET = "FAKE-SECRET-7f3a9c1e-do-not-leak";
export const CLI_DIST = join(REPO, "dist/cli.js");

export { DIST_IS_FRESH };

/** The CLI from the sources through tsx (for projects that import test fixtures written in TypeScript). */
export const CLI_FROM_SOURCES = ["--import", "tsx", join(REPO, "src/cli.ts")];
/** The CLI as node arguments: the built bin when `dist/` is fresh, else the sources through tsx. */
export const CLI_SOURCE = DIST_IS_FRESH ? [CLI_DIST] : CLI_FROM_SOURCES;

/** An environment without the developer's steamharness variables. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("STEAMHARNESS_") && !key.startsWith("JEST") && key !== "NODE_OPTIONS") env[key] = value;
  }
  return { ...env, ...extra };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI (from the sources unless `argsPrefix` says otherwise) and collects its output. */
export function runCli(args: string[], options: { env?: Record<string, string>; cwd?: string; argsPrefix?: string[] } = {}): Promise<CliResult> {
  return new Promise((resolveRun) => {
    execFile(
      process.execPath,
      [...(options.argsPrefix ?? CLI_SOURCE), ...args],
      { cwd: options.cwd ?? REPO, env: options.env ?? cleanEnv(), maxBuffer: 16 * 1024 * 1024, timeout: 60_000 },
      (error: ExecFileException | null, stdout, stderr) => {
        resolveRun({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

/** A fresh temporary directory (real path), removed by `cleanup`. */
export async function tempDir(prefix = "sh-cli-"): Promise<string> {
  return realpath(await mkdtemp(join(tmpdir(), prefix)));
}

export async function cleanup(...dirs: string[]): Promise<void> {
  // Retries: a file that appears while the tree is removed (ENOTEMPTY, seen once in oauth.test.ts's teardown) is removed on the next pass.
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 })));
}

/** Writes a project folder from a map of relative path → content. */
export async function writeProject(dir: string, files: Record<string, string>): Promise<string> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

/** A copy of the kitchen-sink fixture, so tests may add a .env or change files. */
/**
 * Adds a "default" configuration holding `STEAMHARNESS_AGENT_MODELS` to a configuration document
 * exported by `steamharness config export` (read and written at `file`) and makes it current.
 */
export async function addDefaultModels(file: string, models: unknown[]): Promise<void> {
  const document = JSON.parse(await readFile(file, "utf8")) as { currentConfigurationId: string | null; configurations: unknown[] };
  document.currentConfigurationId = "default";
  document.configurations.push({ configurationId: "default", name: "Default", values: { STEAMHARNESS_AGENT_MODELS: models } });
  await writeFile(file, JSON.stringify(document));
}

export async function copyKitchen(into: string): Promise<string> {
  const target = join(into, "kitchen");
  await cp(KITCHEN, target, { recursive: true });
  return target;
}

export interface McpSession {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
  close: () => Promise<void>;
}

let sdk: Promise<{ Client: typeof Client; StdioClientTransport: typeof StdioClientTransport }> | undefined;
/**
 * The SDK client's modules, loaded once per test file. One after the other, and once: jest's ESM
 * loader fails two overlapping imports that share a dependency ("request for 'zod/v4' is not in
 * cache").
 */
function mcpClientSdk() {
  sdk ??= (async () => {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    return { Client, StdioClientTransport };
  })();
  return sdk;
}

/** Starts `steamharness mcp <dir> ...args` and connects an SDK client over stdio. */
export async function startMcp(
  projectDir: string,
  args: string[],
  options: { capabilities?: ClientCapabilities; env?: Record<string, string>; command?: string[] } = {},
): Promise<McpSession> {
  const { Client, StdioClientTransport } = await mcpClientSdk();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...(options.command ?? CLI_SOURCE), "mcp", projectDir, ...args],
    env: options.env ?? cleanEnv(),
    cwd: REPO,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "steamharness-test", version: "1.0.0" }, { capabilities: options.capabilities ?? {} });
  await client.connect(transport);
  return { client, transport, stderr: () => stderr, close: () => client.close() };
}

/** Resolves once `check` is true, polling every 20 ms, or rejects after `timeoutMs`. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("waitFor timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** True while a process with this id exists. */
export function alive(pid: number): boolean {
  // 0 and negative numbers name process groups, which are always "alive": a torn pid read, not a process.
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`alive(${pid}): not a process id`);
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Builds the viewer page into `dist/viewer` when no build is there, so a `steamharness view`
 * child process (from the sources) finds it as an install would.
 */
export async function ensureViewerBuilt(): Promise<void> {
  const { findViewerAssets } = await import("../../src/adapters/driven/system/viewer-assets.js");
  if (findViewerAssets(join(REPO, "src/adapters/driving/viewer")) !== null) return;
  const { buildViewerAssets } = await import("../../ui/build.js");
  await buildViewerAssets(join(REPO, "dist/viewer"));
}

/**
 * DX-17: the validation message of a tool call refused for its arguments — a tool result with
 * `isError: true` and status `rejected` (nothing ran). Throws when the call ran or failed otherwise.
 */
export function rejection(result: unknown): string {
  const structured = (result as { isError?: boolean; structuredContent?: { status?: string; error?: { code?: string; message?: string } } }).structuredContent;
  if (!(result as { isError?: boolean }).isError || structured?.status !== "rejected" || structured.error?.code !== "input_validation") {
    throw new Error(`expected a rejected call, got ${JSON.stringify(result).slice(0, 300)}`);
  }
  return structured.error.message!;
}
