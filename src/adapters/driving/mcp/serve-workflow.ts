import type { SurfaceServices } from "../../../ports/surface-services.js";
import { SteamharnessError } from "../../../domain/errors.js";
import { exitCodeOfError } from "../shared/exit-codes.js";
import { periodMsFromEnv } from "../shared/option-parsers.js";
import { precheckProjectRunner, type PrecheckOptions } from "../../../app/workflow-runs/host-options.js";
import type { ProjectRunnerOptions } from "../../../app/workflow-runs/project-runner.js";
import type { ProjectRunner } from "../../../ports/project-runner.js";
import { catalogCacheSlot, readCatalogCache, writeCatalogCache, type CatalogCacheSlot, type WorkflowCatalog } from "./catalog-cache.js";

/** Warm workers, and runs at once, when `--workers` is not given. */
export const DEFAULT_WORKERS = 2;
/** The largest `--workers` accepted: each worker is a node process holding the project. */
export const MAX_WORKERS = 64;

/** Options of {@link serveWorkflowOverStdio}. */
export interface ServeWorkflowOptions extends Omit<ProjectRunnerOptions, "output" | "prechecked" | "workers" | "ports">, Omit<PrecheckOptions, "ports"> {
  /** What the runs execute on, wired by the composition root (`SurfaceServices.workflowRunPorts`). */
  ports: ProjectRunnerOptions["ports"];
  /** Warm workers and the most runs at once (`--workers`); {@link DEFAULT_WORKERS} by default. */
  workers?: number;
  /**
   * `false` (`--fresh-worker`): every call runs in a fresh worker process, which serves that one
   * run. By default a worker whose run ended cleanly serves later calls (MCP-9).
   */
  workerReuse?: boolean;
  /** The steamharness version, part of the catalog cache key (a new version re-reads projects). */
  version?: string;
}

/**
 * Parses `--workers`: a whole number from 1 to {@link MAX_WORKERS}; anything else is an
 * `input_validation` error naming the flag (the CLI exits with code 2).
 *
 * @example
 * parseWorkers("4") // 4
 * parseWorkers("0") // throws SteamharnessError input_validation
 */
export function parseWorkers(value: string): number {
  const workers = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(workers) || workers < 1 || workers > MAX_WORKERS) {
    throw new SteamharnessError("input_validation", `--workers must be a whole number from 1 to ${MAX_WORKERS}, got ${JSON.stringify(value)}`, { field: "--workers" });
  }
  return workers;
}

/**
 * Parses `--max-runs-per-worker`: a whole number from 1 to 1,000,000; anything else is an
 * `input_validation` error naming the flag (the CLI exits with code 2).
 *
 * @example
 * parseMaxRunsPerWorker("100") // 100
 */
export function parseMaxRunsPerWorker(value: string): number {
  const runs = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(runs) || runs < 1 || runs > 1_000_000) {
    throw new SteamharnessError("input_validation", `--max-runs-per-worker must be a whole number from 1 to 1000000, got ${JSON.stringify(value)}`, { field: "--max-runs-per-worker" });
  }
  return runs;
}

/** How long a closed stdin waits for a project load in progress before the server exits anyway. */
const STDIN_END_GRACE_MS = 20_000;

const log = (line: string) => process.stderr.write(`[steamharness] ${line}\n`);

/**
 * ARCH-12: the environment variable setting how often `steamharness mcp` heartbeats a call whose
 * client asked for progress, in milliseconds (default: the server's `PROGRESS_INTERVAL_MS`, 2 s);
 * a test that waits on heartbeats shortens it.
 */
export const PROGRESS_INTERVAL_MS_ENV = "STEAMHARNESS_MCP_PROGRESS_MS";

/**
 * The server option {@link PROGRESS_INTERVAL_MS_ENV} sets: none when it is unset. A bad value is
 * `input_validation` naming the variable (exit 2).
 *
 * @example
 * createWorkflowMcpServer(manifest, runner, catalog, undefined, { telemetry, openStorage, ...progressIntervalFromEnv() });
 */
export function progressIntervalFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): { progressIntervalMs?: number } {
  const ms = periodMsFromEnv(PROGRESS_INTERVAL_MS_ENV, undefined, env);
  return ms === undefined ? {} : { progressIntervalMs: ms };
}

/** What a server says when a handshake could not wait for the project's prompts and resources (MCP-15). */
export const LATE_CATALOG = `the project is still loading: this connection offers its tools only (prompts and resources the project declares are offered to connections made once it loaded)`;

/**
 * The catalog to publish: the cached one when the project files are unchanged, else the one a
 * worker loads (then cached). On a cache hit the first worker's structure is still compared
 * when it arrives; if it differs (the project reads something the fingerprint does not cover),
 * the cache is rewritten for the next start and this connection keeps its static catalog.
 *
 * @example
 * const catalog = publishedCatalog(runner, slot, await readCatalogCache(slot), () => false);
 */
export async function publishedCatalog(runner: ProjectRunner, slot: CatalogCacheSlot, cached: WorkflowCatalog | null, closing: () => boolean): Promise<WorkflowCatalog> {
  const { catalogOf } = await import("./workflow-server.js");
  const store = async (catalog: WorkflowCatalog) => {
    const problem = await writeCatalogCache(slot, catalog);
    if (problem) log(`cannot cache the tool catalog in ${slot.path}: ${problem.message}`);
  };
  if (cached) {
    log(`catalog: ${cached.tools.length} tools from the cache (${slot.path})`);
    // Waits for the first worker's own structure before building tools (and loading TypeBox).
    void runner.structure().then(
      async () => {
        const loaded = await catalogOf(runner);
        if (JSON.stringify(loaded) === JSON.stringify(cached)) return;
        log("the project's structure differs from the cached one: the cache is refreshed; restart the server to publish it");
        await store(loaded);
      },
      (error: unknown) => {
        if (!closing()) log(`the workflow project does not load: ${(error as Error)?.message ?? String(error)}`);
      },
    );
    return cached;
  }
  const loaded = await catalogOf(runner);
  log(`catalog: ${loaded.tools.length} tools loaded by a worker`);
  await store(loaded);
  return loaded;
}

/**
 * `steamharness mcp`: serves a workflow project over stdio until stdin closes, the client
 * disconnects or a SIGTERM/SIGINT arrives; then every worker is ended. Stdout carries only
 * JSON-RPC: the process's own console output goes to stderr, and so does worker output.
 *
 * Start-up order (MCP-9): the cheap checks (manifest, data dirs, related projects, `.env`,
 * saved login; errors exit at once), then the catalog cache in the data dir. When the project
 * files are unchanged, the cached catalog answers the first `tools/list` and the workers fork
 * once the client confirms the handshake (`notifications/initialized`), or at the first call;
 * otherwise the workers fork before the MCP SDK even loads, so the first one loads the project
 * while the SDK loads. The `initialize` answer waits for the catalog (stdin is read meanwhile),
 * because the capabilities name the prompts and resources the project declares (MCP-15) — at
 * most `HANDSHAKE_CATALOG_WAIT_MS`, after which the connection offers its tools only.
 *
 * @example
 * await serveWorkflowOverStdio({ projectDir: "/abs/project", workers: 2, ports: await services.workflowRunPorts() }, services);
 */
export async function serveWorkflowOverStdio(options: ServeWorkflowOptions, services: SurfaceServices): Promise<void> {
  for (const method of ["log", "info", "debug", "warn"] as const) console[method] = (...args: unknown[]) => console.error(...args);
  const prechecked = await precheckProjectRunner(options);
  const progress = progressIntervalFromEnv();
  // OBS-3: an OTLP endpoint in the environment turns the server's (and its workers') spans on.
  const { telemetry } = await services.runtime();
  const { createProjectRunner } = await import("../../../app/workflow-runs/project-runner.js");
  const runner = await createProjectRunner({ ...options, workers: options.workers ?? DEFAULT_WORKERS, prechecked, output: process.stderr, startWorkers: false });
  const slot = await catalogCacheSlot(prechecked.location, prechecked.dirs, options.version ?? "0.0.0", options.ports.files);
  const cached = await readCatalogCache(slot);
  // Without a cached catalog the first tools/list needs a worker: fork it before the SDK loads.
  // With one, the workers wait for the handshake, so they do not compete with it for the cores.
  if (!cached) runner.startWorkers();
  let closing = false;
  const shutdown = (code = 0) => {
    if (closing) return;
    closing = true;
    void runner
      .close()
      .catch(() => undefined)
      .then(() => services.shutdown())
      .finally(() => process.exit(code));
  };
  process.once("SIGTERM", () => shutdown());
  process.once("SIGINT", () => shutdown());
  const catalog = publishedCatalog(runner, slot, cached, () => closing);
  // DX-8: stdin closing while the first worker still loads the project waits for that load
  // (at most STDIN_END_GRACE_MS), so a project that does not load is reported and exits 1, never
  // a silent 0.
  process.stdin.once("end", () => {
    const grace = setTimeout(() => shutdown(), STDIN_END_GRACE_MS);
    void catalog.then(
      () => shutdown(),
      () => clearTimeout(grace),
    );
  });
  catalog.catch((error: unknown) => {
    // A load cut short by our own shutdown (stdin closed before the first worker loaded) is no
    // load failure: nothing to report, and the exit code stays the shutdown's.
    if (closing) return;
    log((error as Error)?.message ?? String(error));
    // A project that does not load is the project's fault (2), as for `run` and `structure`.
    shutdown(exitCodeOfError(error));
  });
  try {
    const [{ createWorkflowMcpServer, publishedOf }, { connectStdio }] = await Promise.all([import("./workflow-server.js"), import("./transport/stdio.js")]);
    // MCP-15: the capabilities depend on the prompts and resources the project declares, so the
    // handshake is answered once the catalog is there (at once from the cache), or after
    // HANDSHAKE_CATALOG_WAIT_MS without them.
    const server = publishedOf(catalog, { onLate: () => log(LATE_CATALOG) }).then((published) => {
      const created = createWorkflowMcpServer(prechecked.location.manifest, runner, catalog, undefined, { telemetry, openStorage: services.localStorage, published, ...progress });
      created.onclose = () => shutdown();
      created.oninitialized = () => runner.startWorkers();
      return created;
    });
    await connectStdio(server);
  } catch (error) {
    log((error as Error)?.message ?? String(error));
    shutdown(1);
  }
  // Argument checks need TypeBox: load it once the first tools/list is answered, not before.
  void catalog.then(() => setTimeout(() => void runner.preloadValidation(), 50).unref(), () => undefined);
}
