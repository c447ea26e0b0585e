/**
 * `steamharness mcp <dir> --http` (MCP-11): a workflow project served over Streamable HTTP.
 * One workflow host (its worker pool and catalog) serves every session; each session gets its
 * own MCP server from {@link createWorkflowMcpServer}, so elicitation and progress reach the
 * client that made the call.
 *
 * `startWorkflowHttpServer` is the library-level part (listen, serve, close), which later
 * features extend (a task store, several hosts on one store); `serveWorkflowOverHttp` is the
 * command: signals, stderr lines, exit codes.
 */
import { createServer, type Server as HttpServer } from "node:http";
import { networkInterfaces, hostname } from "node:os";
import { createTenantAdmission } from "../../../app/tenants/tenant-admission.js";
import { SteamharnessError } from "../../../domain/errors.js";
import type { KeyStore, SurfaceServices } from "../../../ports/surface-services.js";
import { exitCodeOfError } from "../shared/exit-codes.js";
import { isLoopbackHost } from "../shared/host-check.js";
import { listenOn } from "../shared/listen.js";
import { periodMsFromEnv } from "../shared/option-parsers.js";
import { precheckProjectRunner } from "../../../app/workflow-runs/host-options.js";
import type { ProjectRunner } from "../../../ports/project-runner.js";
import { catalogCacheSlot, readCatalogCache } from "./catalog-cache.js";
import { DEFAULT_WORKERS, LATE_CATALOG, progressIntervalFromEnv, publishedCatalog, type ServeWorkflowOptions } from "./serve-workflow.js";
import type { McpHttpAuthOptions } from "./transport/http-auth.js";
import { paramHeadersOf, type ParamHeader } from "./transport/http-param-headers.js";
import { DEFAULT_MCP_PATH, LOOPBACK_HOSTS, type McpHttpHandler } from "./transport/http-handler.js";

/** The port `--http` listens on when `--port` is not given. */
export const DEFAULT_HTTP_PORT = 3000;
/** The address `--http` binds when `--host` is not given. */
export const DEFAULT_HTTP_HOST = "127.0.0.1";

/** Options of {@link startWorkflowHttpServer}. */
export interface ServeWorkflowHttpOptions extends ServeWorkflowOptions {
  /** The address to bind ({@link DEFAULT_HTTP_HOST}); a non-loopback one requires `auth`. */
  host?: string;
  /** The port ({@link DEFAULT_HTTP_PORT}); 0 picks a free one. */
  port?: number;
  /** The MCP endpoint's path (`/mcp`). */
  path?: string;
  /** Extra host names the Host header may name (a load balancer's public name). */
  allowedHosts?: string[];
  /** Origins browsers may call from. */
  allowedOrigins?: string[];
  /** Bearer authorization; required for a non-loopback bind. */
  auth?: McpHttpAuthOptions;
  /** MCP-13: the PostgreSQL database of the task store (`--postgres`); the project's SQLite file by default. */
  postgres?: string;
  /** MCP-13: the PostgreSQL schema of the task table (`--postgres-schema`, default `steamharness`). */
  postgresSchema?: string;
  /** MCP-13: the owner lease of running tasks (`--task-lease-ms`, default 15 s). */
  taskLeaseMs?: number;
  /** MCP-13: this host's id in the task rows it owns (default: random per process). */
  taskHostId?: string;
  /**
   * MCP-19: the key (≥ 32 bytes) that signs `requestState` on 2026-07-28, shared by every host of
   * a deployment; by default `mcp-request-state.key` in the data dir, created once
   * (`steamharness mcp --http` reads `STEAMHARNESS_MCP_STATE_KEY`).
   */
  requestStateKey?: string;
  /**
   * BUD-4 (`--keys`): accept the API keys of this key store (the one `steamharness gateway keys add`
   * writes to); instead of `auth`. Counts as authorization for a non-loopback bind.
   */
  keys?: McpHttpKeyStore;
  /** TEN-4 (`--max-sessions-per-tenant`): the most open MCP sessions one tenant holds (see `McpHttpHandlerOptions`). */
  maxSessionsPerTenant?: number;
}

/** Where `--keys` reads API keys: the gateway's key store location, and the revocation bound. */
export interface McpHttpKeyStore {
  /** The SQLite store directory (`--store`, default `<data-dir>/gateway`), used without `postgres`. */
  directory: string;
  /** The PostgreSQL database of the keys (`--postgres`, shared with the task store). */
  postgres?: string;
  schema?: string;
  /** How long a verified key is trusted (`--key-cache-ms`, default 2000): the revocation bound. */
  cacheMs?: number;
}

/** A running workflow HTTP server. */
export interface WorkflowHttpServer {
  /** The MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  url: URL;
  host: ProjectRunner;
  handler: McpHttpHandler;
  http: HttpServer;
  /** Ends the sessions, the listener and every worker. */
  close(): Promise<void>;
}

/**
 * Refuses, with `input_validation` (exit code 2), to serve a non-loopback address without
 * authorization: anyone who can reach the port could run the project's entrypoints.
 *
 * @example
 * assertBindAllowed("0.0.0.0", undefined) // throws
 */
export function assertBindAllowed(host: string, auth: McpHttpAuthOptions | undefined): void {
  if (isLoopbackHost(host) || auth) return;
  throw new SteamharnessError(
    "input_validation",
    `[steamharness] [mcp] refusing to serve ${host} without authorization: anyone who can reach it could run this project's entrypoints. Bind 127.0.0.1, or pass --auth-token-file <file>, --keys, or --oauth-issuer <url> --oauth-audience <url>`,
    { field: "--host" },
  );
}

/** The host names the Host header may carry: loopback names, the bound address (or, for a wildcard bind, this machine's names and addresses), and the extra ones. */
function allowedHostsFor(host: string, extra: string[]): string[] {
  const names = new Set(LOOPBACK_HOSTS);
  const bracket = (address: string) => (address.includes(":") ? `[${address}]` : address);
  if (host === "0.0.0.0" || host === "::") {
    names.add(hostname());
    for (const addresses of Object.values(networkInterfaces())) for (const address of addresses ?? []) names.add(bracket(address.address));
  } else names.add(bracket(host.replace(/^\[|\]$/g, "")));
  for (const name of extra) names.add(name);
  return [...names];
}

/**
 * Starts serving a workflow project over Streamable HTTP: checks the bind (see
 * {@link assertBindAllowed}), listens, starts the workers, and resolves once they serve.
 * A port in use rejects with `input_validation` before any worker starts (DX-14: no worker line).
 *
 * @example
 * const server = await startWorkflowHttpServer({ projectDir: "/abs/project", port: 0 });
 * console.error(server.url.href);
 * await server.close();
 */
export async function startWorkflowHttpServer(options: ServeWorkflowHttpOptions, services: SurfaceServices, log: (line: string) => void = () => undefined): Promise<WorkflowHttpServer & { catalog: Promise<unknown> }> {
  const bind = options.host ?? DEFAULT_HTTP_HOST;
  if (options.keys && options.auth) throw new SteamharnessError("input_validation", "[steamharness] [mcp] --keys and --auth-token-file/--oauth-issuer are alternatives: pass one", { field: "--keys" });
  if (!options.keys) assertBindAllowed(bind, options.auth);
  // TEN-2: OAuth and API keys serve several tenants, whose file params get no default roots; the key store is server state.
  const multiTenant = options.keys !== undefined || options.auth?.kind === "oauth";
  const serverState = [...(options.serverState ?? []), ...(options.keys ? [options.keys.directory] : [])];
  const prechecked = await precheckProjectRunner({ ...options, multiTenant, serverState });
  // DX-14: the port is taken first, so a port in use fails before any worker starts (a worker
  // killed on the way out used to print a false "does not load" line). Until the MCP handler
  // is ready, a request is told to retry.
  let ready: McpHttpHandler | undefined;
  const http = createServer((request, response) => {
    if (ready) return void ready(request, response);
    response.writeHead(503, { "retry-after": "1" }).end();
  });
  const { authority } = await listenOn(http, { hostname: bind, port: options.port ?? DEFAULT_HTTP_PORT });
  const serving = { http, authority, handOver: (handler: McpHttpHandler) => void (ready = handler) };
  return serveProject(options, services, log, bind, prechecked, serving).catch(async (error: unknown) => {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
    throw error;
  });
}

/** The rest of {@link startWorkflowHttpServer} once the port is bound: the workers, the stores and the MCP handler. */
/**
 * ARCH-12: the environment variable setting the poll interval `steamharness mcp --http` suggests
 * to task clients, in milliseconds (default: the task runs' `TASK_POLL_INTERVAL_MS`, 1 s); a test
 * whose client polls (the ext-tasks client waits that long between `tasks/get`s) shortens it.
 */
export const TASK_POLL_MS_ENV = "STEAMHARNESS_MCP_TASK_POLL_MS";

async function serveProject(
  options: ServeWorkflowHttpOptions,
  services: SurfaceServices,
  log: (line: string) => void,
  bind: string,
  prechecked: Awaited<ReturnType<typeof precheckProjectRunner>>,
  { http, authority, handOver }: { http: HttpServer; authority: string; handOver: (handler: McpHttpHandler) => void },
): Promise<WorkflowHttpServer & { catalog: Promise<unknown> }> {
  const progress = progressIntervalFromEnv();
  const pollIntervalMs = periodMsFromEnv(TASK_POLL_MS_ENV, undefined);
  // OBS-3: an OTLP endpoint in the environment turns the server's (and its workers') spans on, task runs included.
  const { telemetry } = await services.runtime();
  const [{ createProjectRunner }, { createWorkflowMcpServer, publishedOf }, { mcpHttpListener }, { createTaskRuns }, { listenedTaskIds, serveTaskListen }] = await Promise.all([
    import("../../../app/workflow-runs/project-runner.js"),
    import("./workflow-server.js"),
    import("./transport/http-handler.js"),
    import("./tasks/task-runs.js"),
    import("./tasks/task-listen.js"),
  ]);
  // BUD-4: with --keys the workers reserve the key tenants' budgets in the key store's ledger (and charge its token windows).
  const tenantStore = options.keys ? { directory: options.keys.directory, ...(options.keys.postgres !== undefined ? { postgres: options.keys.postgres } : {}), ...(options.keys.schema !== undefined ? { schema: options.keys.schema } : {}) } : undefined;
  const host = await createProjectRunner({ ...options, workers: options.workers ?? DEFAULT_WORKERS, prechecked, output: process.stderr, ...(tenantStore ? { tenantStore } : {}) });
  let taskStore;
  let keyStore: KeyStore | null = null;
  let auth = options.auth;
  try {
    if (options.keys) {
      keyStore = await services.keyStore({ directory: options.keys.directory, ...(options.keys.postgres !== undefined ? { postgres: options.keys.postgres } : {}), ...(options.keys.schema !== undefined ? { schema: options.keys.schema } : {}) });
      auth = { kind: "keys", admission: createTenantAdmission({ keys: keyStore.keys, budgets: keyStore.budgets, cacheMs: options.keys.cacheMs ?? 2000, slotTtlMs: 30_000, now: Date.now }) };
    }
    taskStore = await services.mcpTasks({ directory: host.dirs.persistentValueStoreDir, ...(options.postgres !== undefined ? { postgres: options.postgres } : {}), ...(options.postgresSchema !== undefined ? { schema: options.postgresSchema } : {}) });
  } catch (error) {
    await keyStore?.close().catch(() => undefined);
    await host.close().catch(() => undefined);
    throw error;
  }
  const tasks = createTaskRuns({ runner: host, store: taskStore, openStorage: services.localStorage, ...(pollIntervalMs !== undefined ? { pollIntervalMs } : {}), ...(options.taskLeaseMs !== undefined ? { leaseMs: options.taskLeaseMs } : {}), ...(options.taskHostId !== undefined ? { hostId: options.taskHostId } : {}) });
  const slot = await catalogCacheSlot(prechecked.location, prechecked.dirs, options.version ?? "0.0.0", options.ports.files);
  let closing = false;
  const catalog = publishedCatalog(host, slot, await readCatalogCache(slot), () => closing);
  catalog.catch(() => undefined);
  // MCP-19: every host on this data dir (or given the same key) signs and verifies the same requestState.
  const { createRoundStateCodec, loadRequestStateKey } = await import("./input-required.js");
  const requestState = createRoundStateCodec(await loadRequestStateKey(options.ports.files, host.dirs.dataDir, options.requestStateKey));
  const mirrored = catalog.then(({ tools }) => new Map(tools.map((tool) => [tool.name, paramHeadersOf(tool.inputSchema)])), () => new Map<string, ParamHeader[]>());
  // Once the catalog has settled its publications are fixed: a server (one per 2026-07-28 request) then takes them as they are, with no wait.
  let settled: { published: Awaited<ReturnType<typeof publishedOf>> } | undefined;
  void catalog.then(({ structure }) => (settled = { published: structure }), () => (settled = { published: undefined }));
  const handler = await mcpHttpListener({
    // MCP-15: a session's capabilities include the prompts and resources the project declares.
    createServer: async (revision) => createWorkflowMcpServer(prechecked.location.manifest, host, catalog, tasks, { telemetry, openStorage: services.localStorage, logging: true, hideServerPaths: true, requestState, tasksExtension: revision !== undefined, ...progress, published: settled ? settled.published : await publishedOf(catalog, { onLate: () => log(LATE_CATALOG) }) }),
    // MCP-20: task notifications over subscriptions/listen, read from the shared task store (any host's changes).
    listen: (body, auth, signal) => (listenedTaskIds(body) ? serveTaskListen(body, (taskId, tenant) => tasks.read(taskId, tenant), auth, signal) : undefined),
    // MCP-17: params that declare a `header` are mirrored in Mcp-Param-* headers (SEP-2243).
    paramHeaders: async (tool) => (await mirrored).get(tool) ?? [],
    path: options.path ?? DEFAULT_MCP_PATH,
    allowedHosts: allowedHostsFor(bind, options.allowedHosts ?? []),
    ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
    ...(auth ? { auth } : {}),
    ...(options.maxSessionsPerTenant !== undefined ? { maxSessionsPerTenant: options.maxSessionsPerTenant } : {}),
  });
  handOver(handler);
  const url = new URL(`http://${authority}${options.path ?? DEFAULT_MCP_PATH}`);
  log(`MCP server listening on ${url.href}`);
  return {
    url,
    host,
    handler,
    http,
    catalog,
    async close() {
      closing = true;
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await tasks.close();
      await taskStore.close();
      await keyStore?.close();
      await host.close();
      await services.shutdown();
    },
  };
}

const log = (line: string) => process.stderr.write(`[steamharness] ${line}\n`);

/**
 * `steamharness mcp <dir> --http`: serves until SIGTERM/SIGINT, then ends the sessions and the
 * workers. Prints the endpoint's URL on stderr. A project that does not load exits 2, as over
 * stdio; a refused bind or a port in use rejects (the CLI exits 2).
 *
 * @example
 * await serveWorkflowOverHttp({ projectDir: "/abs/project", port: 8080, ports: await services.workflowRunPorts() }, services);
 */
export async function serveWorkflowOverHttp(options: ServeWorkflowHttpOptions, services: SurfaceServices): Promise<void> {
  for (const method of ["log", "info", "debug", "warn"] as const) console[method] = (...args: unknown[]) => console.error(...args);
  const stateKey = options.requestStateKey ?? process.env.STEAMHARNESS_MCP_STATE_KEY;
  const server = await startWorkflowHttpServer({ ...options, ...(stateKey ? { requestStateKey: stateKey } : {}) }, services, log);
  let closing = false;
  const shutdown = (code = 0) => {
    if (closing) return;
    closing = true;
    void server
      .close()
      .catch(() => undefined)
      .finally(() => process.exit(code));
  };
  process.once("SIGTERM", () => shutdown());
  process.once("SIGINT", () => shutdown());
  server.catalog.catch((error: unknown) => {
    if (closing) return;
    log((error as Error)?.message ?? String(error));
    shutdown(exitCodeOfError(error));
  });
  void server.catalog.then(() => setTimeout(() => void server.host.preloadValidation(), 50).unref(), () => undefined);
}
