import type { Telemetry, TelemetryCarrier } from "../../../ports/telemetry.js";
import type { SurfaceServices } from "../../../ports/surface-services.js";
import { LOG_LEVEL_META_KEY, Server, type CallToolRequest, type CallToolResult, type InputRequiredResult, type JSONRPCRequest, type LoggingLevel, type RequestStateCodec, type Result, type ServerContext, type Transport } from "@modelcontextprotocol/server";
import { isSteamharnessError } from "../../../domain/errors.js";
import { workflowServerName, type WorkflowManifest } from "../../../domain/workflow/project-manifest.js";
import type { ProjectRunner } from "../../../ports/project-runner.js";
import type { WorkerLogEntry } from "../../../domain/workflow/worker-protocol.js";
import type { WorkflowCatalog } from "./catalog-cache.js";
import type { JsonValue } from "../../../domain/json.js";
import { answeringHandlers } from "../../../domain/workflow/paused-run.js";
import { answeredRun, keepCallRun } from "./workflow-answer.js";
import { canAskClient, createElicitationHandlers } from "./workflow-elicitation.js";
import type { WorkflowRunReport } from "../../../domain/workflow/run-report.js";
import { createInputRound, envelopeCapabilities, roundAnswers, roundResult, roundRun, type RoundState } from "./input-required.js";
import { createRootsHandler, createSamplingHandler } from "./workflow-sampling.js";
import { invalidParams, rejectedToolResult, remoteSafeError } from "./workflow-result.js";
import { hideAbsolutePaths } from "../../../domain/redaction.js";
import { toWorkflowToolResult } from "./workflow-attachments.js";
import { addTaskHandlers, createTaskStatusNotifier, taskOf } from "./tasks/task-handlers.js";
import type { TaskRuns } from "./tasks/task-runs.js";
import { addTasksExtension, createdTaskOf, TASKS_EXTENSION, wantsTask } from "./tasks/tasks-extension.js";
import { answererOfAuth, dataTenantOf, principalOfAuth, tenantLimitsOfAuth, tenantOfAuth } from "./transport/http-tenant.js";
import { takeTaskSlot } from "./transport/http-admission.js";
import type { StructurePublications } from "../../../domain/workflow/publications.js";
import { addPublicationHandlers, publicationCapabilities } from "./workflow-publications.js";

/** How often a running call reports progress to a client that asked for it. */
export const PROGRESS_INTERVAL_MS = 2000;

/** MCP's log levels, least severe first. */
const LOG_LEVELS: readonly LoggingLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/** Options of {@link createWorkflowMcpServer}. */
export interface WorkflowMcpServerOptions {
  /** Where each `tools/call` is reported (OBS-3): the process runtime's telemetry, handed down by the entry (ARCH-6). */
  telemetry: Telemetry;
  /** Opens the file store a run's attachments are read from (the entry's, ARCH-6). */
  openStorage: SurfaceServices["localStorage"];
  /**
   * Declare `logging` (MCP-15; on over HTTP): a run's `context.log` entries reach the client that
   * called as `notifications/message` (logger: the entrypoint id), from the level it set with
   * `logging/setLevel` (all by default). Off, runs log to stderr only, as over stdio.
   */
  logging?: boolean;
  /**
   * MCP-15: the prompts, resources and resource templates the project declares (its loaded
   * structure report, see {@link publishedOf}). The server declares `prompts`, `resources`
   * (with `subscribe`) and `completions` only for what is declared here, so a project that
   * declares none, or a server built without it, answers exactly as before.
   */
  published?: StructurePublications | undefined;
  /**
   * TEN-2 (on over HTTP): the JSON-RPC errors this server sends name no absolute path of the
   * server (see {@link remoteSafeError}); over stdio the client is the server's own user.
   */
  hideServerPaths?: boolean;
  /**
   * MCP-19 (over HTTP): the signing codec of `requestState` (input-required.ts). With it, a
   * 2026-07-28 call whose run waits for input answers the revision's input-required result and
   * its retry continues the run; without it (stdio), such a run ends `interaction_required`.
   */
  requestState?: RequestStateCodec<RoundState>;
  /**
   * MCP-20: the server answers 2026-07-28 requests (the stateless leg): with a task store it
   * offers the tasks extension (tasks-extension.ts) instead of 2025-11-25's `tasks` capability.
   */
  tasksExtension?: boolean;
  /** How often a running call heartbeats to a client that asked for progress (default {@link PROGRESS_INTERVAL_MS}). */
  progressIntervalMs?: number;
}

/**
 * How long a handshake waits for the project's catalog (MCP-15): the capabilities name the
 * prompts and resources the project declares, known once a worker loaded it (at once from the
 * catalog cache). A project still loading by then is served with its tools only on that
 * connection, so a slow or stuck load never holds the handshake for longer.
 */
export const HANDSHAKE_CATALOG_WAIT_MS = 10_000;

/**
 * The structure a server publishes prompts and resources from, once the catalog settled:
 * `undefined` when the project does not load (the server then offers its tools only, and the
 * host reports the load failure as before) or is still loading after `waitMs` (then `onLate`
 * runs).
 *
 * @example
 * const server = createWorkflowMcpServer(manifest, runner, catalog, undefined, { telemetry, openStorage: services.localStorage, published: await publishedOf(catalog) });
 */
export function publishedOf(catalog: Promise<WorkflowCatalog>, options: { waitMs?: number; onLate?: () => void } = {}): Promise<StructurePublications | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      options.onLate?.();
      resolve(undefined);
    }, options.waitMs ?? HANDSHAKE_CATALOG_WAIT_MS);
    timer.unref();
    const settle = (published: StructurePublications | undefined) => {
      clearTimeout(timer);
      resolve(published);
    };
    catalog.then(({ structure }) => settle(structure), () => settle(undefined));
  });
}

/** The SDK server, closing what a connection holds (resource watchers) when its transport closes. */
class WorkflowServer extends Server {
  readonly closers: (() => void)[] = [];
  hideServerPaths = false;
  tasksExtension = false;

  override async connect(transport: Transport): Promise<void> {
    if (this.hideServerPaths) {
      // Every JSON-RPC error of this connection passes here, whichever handler threw it.
      const send = transport.send.bind(transport);
      transport.send = (message, options) => send(remoteSafeError(message), options);
    }
    // The SDK keeps a handler set before connect and calls it first when the transport closes.
    const previous = transport.onclose;
    transport.onclose = () => {
      previous?.();
      for (const close of this.closers.splice(0)) close();
    };
    await super.connect(transport);
  }

  // MCP-13: a task-augmented call answers a CreateTaskResult, which the SDK's tools/call result
  // check refuses as a foreign result family; such a call goes to the handler unwrapped.
  protected override _wrapHandler(method: string, handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    const wrapped = super._wrapHandler(method, handler);
    if (method !== "tools/call") return wrapped;
    if (this.tasksExtension) {
      // MCP-20: the SDK checks the request, then the handler's CreateTaskResult goes out as it is.
      return async (request, ctx) => {
        let created: Result | undefined;
        const result = await super._wrapHandler(method, async (inner, innerCtx) => {
          const answer = await handler(inner, innerCtx);
          if (answer.resultType !== "task") return answer;
          created = answer;
          return { content: [] };
        })(request, ctx);
        return created ?? result;
      };
    }
    return (request, ctx) => (request.params?.task !== undefined ? handler(request, ctx) : wrapped(request, ctx));
  }
}

/**
 * The catalog of a runner computed from its structure report (TypeBox loads here, with the tools).
 *
 * @example
 * const catalog = await catalogOf(runner);
 */
export async function catalogOf(runner: ProjectRunner): Promise<WorkflowCatalog> {
  const [structure, { workflowTools }] = await Promise.all([runner.structure(), import("./workflow-tools.js")]);
  return { structure, tools: workflowTools(structure) };
}

/** The W3C trace context a client put in a request's `_meta` (`traceparent`, `tracestate`), if any. */
function carrierOfMeta(meta: Record<string, unknown> | undefined): TelemetryCarrier | null {
  const traceparent = meta?.traceparent;
  if (typeof traceparent !== "string") return null;
  return typeof meta?.tracestate === "string" ? { traceparent, tracestate: meta.tracestate } : { traceparent };
}

/**
 * Builds the low-level MCP `Server` of a workflow project: `workflow-<id>`, a tool catalog that
 * is fixed for the connection (`catalog`, by default computed once from the runner's structure
 * report), arguments validated against the published schema (malformed → a tool result with
 * `isError: true` and the validation message, DX-17; an unknown tool → JSON-RPC InvalidParams), every call in its own worker, form elicitation for runs that wait, and results
 * as MCP-7 prescribes. On 2026-07-28 a run that waits for input answers the revision's
 * input-required result and the client's retry continues it (MCP-19, input-required.ts); on
 * 2025-11-25 a run that ends `interaction_required` is kept, and a later call of the same tool
 * with `_meta["steamharness/answer"]` answers it (DX-10, workflow-answer.ts). Requests
 * wait for the catalog, so the handshake does not; the prompts, resources and completions of
 * `options.published` are served beside the tools (MCP-15, workflow-publications.ts).
 *
 * @example
 * const server = createWorkflowMcpServer(manifest, runner, catalogOf(runner), undefined, { telemetry: runtime.telemetry, openStorage: services.localStorage });
 * await server.connect(new StdioServerTransport());
 */
export function createWorkflowMcpServer(manifest: WorkflowManifest, runner: ProjectRunner, catalog: Promise<WorkflowCatalog> = catalogOf(runner), tasks: TaskRuns | undefined, options: WorkflowMcpServerOptions): Server {
  // MCP-13: with a task store, entrypoints may run as tasks (`tools/call` with `params.task`).
  const taskCapability = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
  const publications = publicationCapabilities(options.published);
  const server = new WorkflowServer(
    { name: workflowServerName(manifest.id), version: manifest.version ?? "0.0.0", ...(manifest.name ? { title: manifest.name } : {}) },
    { capabilities: { tools: { listChanged: false }, ...(tasks ? (options.tasksExtension ? { extensions: { [TASKS_EXTENSION]: {} } } : { tasks: taskCapability }) : {}), ...(options.logging ? { logging: {} } : {}), ...publications }, ...(options.requestState ? { requestState: { verify: options.requestState.verify } } : {}) },
  );
  server.hideServerPaths = options.hideServerPaths === true;
  const extension = tasks !== undefined && options.tasksExtension === true;
  server.tasksExtension = extension;
  catalog.catch(() => undefined);
  // The catalog once it is in: a call then reaches its worker without yielding to the event loop
  // (the SDK's own work for the request, such as writing the response headers, runs meanwhile).
  let catalogNow: WorkflowCatalog | undefined;
  void catalog.then((ready) => (catalogNow = ready), () => undefined);
  if (options.published && Object.keys(publications).length > 0) {
    const subscriptions = addPublicationHandlers(server, options.published, publications, { directory: runner.location.directory, files: runner.ports.files });
    server.closers.push(() => subscriptions.close());
  }
  // One server per session (HTTP) or per connection (stdio): the level is this client's.
  let minimumLevel = 0;
  if (options.logging) {
    server.setRequestHandler("logging/setLevel", async (request) => {
      minimumLevel = Math.max(0, LOG_LEVELS.indexOf(request.params.level));
      return {};
    });
  }

  server.setRequestHandler("tools/list", async () => {
    const { tools, structure } = await catalog;
    if (!tasks) return { tools };
    // MCP-20: on 2026-07-28 the entrypoints that declare `task` say so; on 2025-11-25 any may run as a task.
    if (!extension) return { tools: tools.map((tool) => ({ ...tool, execution: { taskSupport: "optional" as const } })) };
    const declared = new Map(structure.entrypoints.map((entry) => [entry.id, entry.task]));
    return { tools: tools.map((tool) => (declared.get(tool.name) ? { ...tool, execution: { taskSupport: declared.get(tool.name)! } } : tool)) };
  });
  const entrypointOf = async (id: string) => (await catalog).structure.entrypoints.find((entry) => entry.id === id);
  // MCP-13: this connection hears of the tasks it starts or answers (notifications/tasks/status).
  const notifier = tasks && !extension ? createTaskStatusNotifier(server, tasks) : undefined;
  if (notifier) server.closers.push(() => notifier.close());
  if (tasks && extension) addTasksExtension(server, tasks, entrypointOf);
  else if (tasks) addTaskHandlers(server, tasks, entrypointOf, notifier);

  // One tools/call, named so the route bench (bench/architecture.bench.ts) starts the per-request path here.
  const callTool = async (request: CallToolRequest, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> => {
    const authInfo = ctx.http?.authInfo;
    const requestId = ctx.mcpReq.id;
    const signal = ctx.mcpReq.signal;
    // Arguments are checked against the published catalog (MCP-7), even when it came from the cache.
    const entrypoint = (catalogNow ?? (await catalog)).structure.entrypoints.find((entry) => entry.id === request.params.name);
    if (!entrypoint) throw invalidParams(`unknown tool: ${request.params.name}`);
    // BUD-5: the verified caller (HTTP) queues and is charged as its tenant; stdio has none.
    const tenant = tenantOfAuth(authInfo);
    // MCP-19: on 2026-07-28 a retry names its paused run in its verified requestState.
    const codec = canAskClient(server) ? undefined : options.requestState;
    const continued = codec && (await roundRun(runner, entrypoint.id, ctx.mcpReq.requestState<RoundState>(), tenant));
    // DX-10: a call that answers a paused run (of its own tenant) runs it again with the arguments it was started with.
    const lookup = codec ? undefined : answeredRun(runner, entrypoint.id, request.params._meta, tenant, answererOfAuth(authInfo, Date.now()));
    const answered = continued ?? (lookup && (await lookup));
    const args = (answered ? answered.args : (request.params.arguments ?? {})) as JsonValue;
    // BUD-4: an API key's tenant budget and token rate hold inside the run, not only at admission.
    const tenantLimits = tenantLimitsOfAuth(authInfo);
    // MCP-19 × MCP-20: an entrypoint that asks before its task runs its first round as this call;
    // the retry that answers it becomes the task (the same run, with those answers).
    const asksFirst = codec !== undefined && entrypoint.askBeforeTask === true;
    const taskCall = tasks && (!answered || (asksFirst && continued !== undefined)) && (extension ? wantsTask(entrypoint, ctx) : request.params.task);
    if (tasks && taskCall && !(asksFirst && continued === undefined)) {
      try {
        await runner.prepare(entrypoint, args, tenant);
      } catch (error) {
        // The answer to a task-augmented call must be a CreateTaskResult: bad arguments stay a protocol error here.
        if (isSteamharnessError(error, "input_validation")) throw invalidParams(error.message);
        throw error;
      }
      // OBS-3: the task's run continues the client's trace through the server span of this call.
      const span = options.telemetry.mcpRequest({ method: "tools/call", target: entrypoint.id, requestId: requestId, parent: carrierOfMeta(request.params._meta) });
      try {
        // TEN-5: the key tenant's concurrency slot goes with the task's run, not with this response.
        // On 2026-07-28 the client names no TTL (a legacy `task` hint is ignored): the default one.
        const from = continued && { runId: continued.runId, answers: roundAnswers(continued, ctx.mcpReq.inputResponses, ctx.mcpReq.requestState<RoundState>(), answererOfAuth(authInfo, Date.now())) };
        const record = await tasks.start(entrypoint, args, extension ? undefined : request.params.task?.ttl, tenant, span.carrier(), tenantLimits, takeTaskSlot(authInfo, requestId), from);
        // The task row holds the run now: the call's paused run is forgotten (a replayed retry names no run).
        const dataTenant = dataTenantOf(tenant);
        if (continued) await runner.keepPausedRun({ runId: continued.runId, status: "success" } as WorkflowRunReport, { entrypointId: entrypoint.id, args, answers: {}, ...(dataTenant !== undefined ? { dataTenant } : {}) });
        notifier?.watch(record.taskId);
        span.end({ attributes: { "steamharness.run.id": record.taskId, "mcp.task.id": record.taskId } });
        return (extension ? createdTaskOf(record) : { task: taskOf(record) }) as never;
      } catch (error) {
        span.end({ error: isSteamharnessError(error) ? error.code : "internal" });
        throw error;
      }
    }
    let prepared;
    try {
      const preparing = runner.prepare(entrypoint, args, tenant);
      prepared = preparing instanceof Promise ? await preparing : preparing;
    } catch (error) {
      // DX-17: the calling model reads a tool result and may correct its arguments; a protocol error it never sees.
      if (isSteamharnessError(error, "input_validation")) return rejectedToolResult(entrypoint, server.hideServerPaths ? hideAbsolutePaths(error.message) : error.message);
      throw error;
    }
    // A run may wait minutes for a person: when the client asked for progress, a heartbeat lets
    // it keep the call alive (`resetTimeoutOnProgress`) instead of timing out mid-form.
    const progressToken = request.params._meta?.progressToken;
    let beats = 0;
    let status = "the workflow run is in progress";
    const beat = () => {
      beats += 1;
      const params = { progressToken: progressToken!, progress: beats, message: status };
      ctx.mcpReq.notify({ method: "notifications/progress", params }).catch(() => undefined);
    };
    const heartbeat = progressToken === undefined ? undefined : setInterval(beat, options.progressIntervalMs ?? PROGRESS_INTERVAL_MS);
    // A call that finds every worker busy says so at once (MCP-9), then heartbeats as usual.
    const onQueued = (busy: number) => {
      if (progressToken === undefined) return;
      status = `waiting for a free worker (${busy} runs in progress)`;
      beat();
      status = "the workflow run is in progress";
    };
    // OBS-3: a server span continuing the client's trace (`_meta.traceparent`); the worker's run continues it.
    const span = options.telemetry.mcpRequest({ method: "tools/call", target: entrypoint.id, requestId: requestId, parent: carrierOfMeta(request.params._meta) });
    try {
      const round = codec && createInputRound({ responses: ctx.mcpReq.inputResponses, paused: continued, capabilities: envelopeCapabilities(ctx), answeredBy: () => answererOfAuth(authInfo, Date.now()) });
      const elicitation = () => createElicitationHandlers(server, { signal: signal, ...(authInfo ? { authInfo } : {}) });
      // 2025-11-25: the run's forms and sampling requests go to this client, on this call's stream (HTTP).
      const answering = round ? round.handlers : { ...(answered ? answeringHandlers(answered, elicitation()) : elicitation()), onSampling: createSamplingHandler(server, { signal: signal, relatedRequestId: requestId }), onRoots: createRootsHandler(server, { signal: signal, relatedRequestId: requestId }) };
      // MCP-17: a 2026-07-28 request has no session to set a level on: it names its own in
      // `_meta` (io.modelcontextprotocol/logLevel), and a request that names none hears no logs.
      const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
      const callLevel = envelope === undefined ? minimumLevel : LOG_LEVELS.indexOf(envelope[LOG_LEVEL_META_KEY] as LoggingLevel);
      const handlers = options.logging && callLevel >= 0
        ? {
            ...answering,
            onLog(entry: WorkerLogEntry) {
              const level: LoggingLevel = entry.level === "warn" ? "warning" : entry.level;
              if (LOG_LEVELS.indexOf(level) < callLevel) return;
              const params = { level, logger: entrypoint.id, data: entry.data === undefined ? entry.message : { message: entry.message, ...entry.data } };
              ctx.mcpReq.notify({ method: "notifications/message", params }).catch(() => undefined);
            },
          }
        : answering;
      const trace = span.carrier();
      const dataTenant = dataTenantOf(tenant);
      // GOV-1: the caller is the requester of the run's governed approvals.
      const principal = principalOfAuth(authInfo);
      const report = await runner.run(entrypoint, prepared, handlers, { signal: signal, onQueued, ...(principal ? { requester: { tenant: principal.tenant, subject: principal.subject } } : {}), ...(tenant !== undefined ? { tenant } : {}), ...(dataTenant !== undefined ? { dataTenant } : {}), ...(tenantLimits ? { tenantLimits } : {}), ...(answered ? { runId: answered.runId } : {}), ...(trace ? { trace } : {}) });
      const start = { entrypointId: entrypoint.id, args, ...(tenant !== undefined ? { tenant } : {}) };
      const needsInput = round && (await roundResult(runner, round, report, start, codec, ctx, continued));
      if (!round) await keepCallRun(runner, report, start, answered);
      span.end({ ...(report.status === "failed" ? { error: report.error?.code ?? "run_failed" } : {}), attributes: { "steamharness.run.id": report.runId, "steamharness.run.status": report.status } });
      return needsInput || (await toWorkflowToolResult(report, entrypoint, runner, options.openStorage, dataTenant));
    } catch (error) {
      span.end({ error: isSteamharnessError(error) ? error.code : "internal" });
      throw error;
    } finally {
      if (heartbeat) clearInterval(heartbeat);
    }
  };
  server.setRequestHandler("tools/call", callTool);
  return server;
}
