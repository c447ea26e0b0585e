import type { TelemetryCarrier } from "../../ports/telemetry.js";
import type { HarnessRuntime } from "../../ports/runtime.js";
import { SteamharnessError, UserInputRequiredError, type SteamharnessErrorCode } from "../../domain/errors.js";
import type { JsonValue } from "../../domain/json.js";
import type { NodeContext, NodeLogger, NodeRunConfiguration, NodeTenantLimits, ToolCatalogEntry } from "../../domain/node-context.js";
import { withFieldDefaults } from "../../domain/workflow/answer-validation.js";
import type { RelatedProject, WorkflowInputRequest, WorkflowRunContext, WorkflowUserInput } from "../../domain/workflow/run-context.js";
import { checkSamplingRequest, type WorkflowRoot, type WorkflowSampling, type WorkflowSamplingRequest, type WorkflowSamplingResult } from "../../domain/workflow/sampling.js";
import type { Storage } from "../../ports/storage.js";
import type { TokenUsageRecorder } from "../../ports/token-usage.js";
import type { ToolPermissionDecision, ToolPermissions } from "../../ports/tool-permissions.js";
import type { UserInput, UserInputField, UserInputResponse } from "../../ports/user-input.js";
import type { ParentMessage, WorkerLogEntry, WorkerMessage } from "../../domain/workflow/worker-protocol.js";

/** The worker's side of the IPC channel: ports that ask the parent (the project runner) and wait for its answer. */
export interface ParentBridge {
  userInput: UserInput;
  toolPermissions: ToolPermissions;
  /** Asks the host to have the calling MCP client sample (it answers or rejects with a typed error). */
  sampling: { createMessage(request: WorkflowSamplingRequest, signals: readonly AbortSignal[]): Promise<WorkflowSamplingResult> };
  /** MCP-19: asks the host for the calling MCP client's roots (it answers or rejects with a typed error). */
  roots: { list(signals: readonly AbortSignal[]): Promise<WorkflowRoot[]> };
  /** Forwards a log entry of the run to the host. */
  log(entry: WorkerLogEntry): void;
  /** Feeds a host message in; returns true when it answered a pending request. */
  handle(message: ParentMessage): boolean;
}

/**
 * Builds the user-input and tool-permission ports of a worker. Each request goes to the host
 * and the run stays suspended (in this same process) until the answer comes back, so a resumed
 * run continues on the same runId with all its in-memory state.
 *
 * @example
 * const bridge = createParentBridge((m) => process.send!(m));
 * process.on("message", (m) => bridge.handle(m as ParentMessage));
 */
export function createParentBridge(send: (message: WorkerMessage) => void): ParentBridge {
  const inputs = new Map<string, (response: UserInputResponse) => void>();
  const approvals = new Map<string, (decision: ToolPermissionDecision) => void>();
  const wait = <T>(pending: Map<string, (value: T) => void>, requestId: string, signal?: AbortSignal) =>
    new Promise<T>((resolvePromise, reject) => {
      if (signal?.aborted) return reject(new SteamharnessError("cancelled", "the run was cancelled"));
      pending.set(requestId, resolvePromise);
      signal?.addEventListener("abort", () => reject(new SteamharnessError("cancelled", "the run was cancelled")), { once: true });
    });
  // The run's requests to the calling client (sampling, roots), answered or rejected by the host.
  const samplings = new Map<string, { resolve: (result: never) => void; reject: (error: SteamharnessError) => void }>();
  const askClient = <T>(requestId: string, message: WorkerMessage, signals: readonly AbortSignal[]) =>
    new Promise<T>((resolvePromise, reject) => {
      const cancelled = () => new SteamharnessError("cancelled", "the sampling request was cancelled", { data: { requestId } });
      if (signals.some((signal) => signal.aborted)) return reject(cancelled());
      // Abandoned by the run (any of its signals): the host stops waiting for the client,
      // which is told; the run goes on. The listeners go when the request settles, so the
      // run's signal does not collect one per request.
      const onAbort = () => {
        if (!samplings.delete(requestId)) return;
        settle();
        send({ type: "sampling-cancel", requestId });
        reject(cancelled());
      };
      const settle = () => signals.forEach((signal) => signal.removeEventListener("abort", onAbort));
      samplings.set(requestId, { resolve: (result: never) => (settle(), resolvePromise(result)), reject: (error: SteamharnessError) => (settle(), reject(error)) });
      for (const signal of signals) signal.addEventListener("abort", onAbort, { once: true });
      send(message);
    });
  let sampled = 0;
  let rooted = 0;
  return {
    sampling: {
      createMessage(request, signals) {
        sampled += 1;
        const requestId = `sampling-${sampled}`;
        return askClient<WorkflowSamplingResult>(requestId, { type: "sampling-request", requestId, request }, signals);
      },
    },
    roots: {
      list(signals) {
        rooted += 1;
        const requestId = `roots-${rooted}`;
        return askClient<WorkflowRoot[]>(requestId, { type: "roots-request", requestId }, signals);
      },
    },
    userInput: {
      request(request, signal) {
        const answer = wait(inputs, request.requestId, signal);
        send({ type: "input-request", request });
        return answer;
      },
    },
    toolPermissions: {
      request(request, signal) {
        const answer = wait(approvals, request.requestId, signal);
        send({ type: "approval-request", request });
        return answer;
      },
    },
    log(entry) {
      // Only JSON data travels (a function or a cycle in `data` must not fail the run's log call).
      let data: Record<string, unknown> | undefined;
      try {
        data = entry.data === undefined ? undefined : (JSON.parse(JSON.stringify(entry.data)) as Record<string, unknown>);
      } catch {
        data = { unserializable: true };
      }
      send({ type: "log", level: entry.level, message: String(entry.message), ...(data === undefined ? {} : { data }) });
    },
    handle(message) {
      if (message.type === "sampling-response" || message.type === "roots-response") {
        const open = samplings.get(message.requestId);
        if (!open) return false;
        samplings.delete(message.requestId);
        if ("result" in message) open.resolve(message.result as never);
        else if ("roots" in message) open.resolve(message.roots as never);
        else open.reject(new SteamharnessError(message.error.code as SteamharnessErrorCode, message.error.message, message.error.data ? { data: message.error.data } : {}));
        return true;
      }
      const table: Map<string, (value: never) => void> | undefined =
        message.type === "input-response" ? inputs : message.type === "approval-response" ? approvals : undefined;
      if (!table || !("requestId" in message)) return false;
      const resolveRequest = table.get(message.requestId);
      if (!resolveRequest) return false;
      table.delete(message.requestId);
      resolveRequest((message.type === "input-response" ? message.response : (message as { decision: ToolPermissionDecision }).decision) as never);
      return true;
    },
  };
}

/**
 * A logger that writes one line per entry to stderr (never stdout), tagged with the run, and
 * hands each entry to `forward` when given (the host, which may pass it to an MCP client).
 *
 * @example
 * createStderrLogger("run-1").info("started", { step: 1 });
 */
export function createStderrLogger(runId: string, forward?: (entry: WorkerLogEntry) => void): NodeLogger {
  const line = (level: WorkerLogEntry["level"]) => (message: string, data?: Record<string, unknown>) => {
    process.stderr.write(`[steamharness] [run ${runId}] ${level} ${message}${data ? ` ${JSON.stringify(data)}` : ""}\n`);
    forward?.({ level, message, ...(data === undefined ? {} : { data }) });
  };
  return { debug: line("debug"), info: line("info"), warn: line("warn"), error: line("error") };
}

function friendlyUserInput(runId: string, port: UserInput, signal: AbortSignal): WorkflowUserInput {
  let asked = 0;
  const request = async (input: WorkflowInputRequest): Promise<Record<string, JsonValue>> => {
    asked += 1;
    const requestId = input.requestId ?? `input-${asked}`;
    // A declared field is a UserInputField with readonly arrays; the port only reads it.
    const fields = [...(input.fields ?? [])] as UserInputField[];
    const response = await port.request({ requestId, runId, kind: "form", message: input.message, fields }, signal);
    if (response.outcome === "answered") return withFieldDefaults(fields, response.values);
    if (response.outcome === "pending") throw new UserInputRequiredError(requestId, { message: input.message, fields });
    throw new SteamharnessError("cancelled", response.outcome === "declined" ? "the user declined the input request" : "the user cancelled the input request", {
      data: { requestId },
    });
  };
  // The answer is checked against its fields by the host (terminal or MCP form), so it has the
  // shape WorkflowUserInput infers from them.
  return { request } as WorkflowUserInput;
}

function friendlySampling(bridge: ParentBridge, runSignal: AbortSignal): WorkflowSampling {
  return {
    async createMessage(request, options = {}) {
      const checked = checkSamplingRequest(request);
      return bridge.sampling.createMessage(checked, options.signal ? [runSignal, options.signal] : [runSignal]);
    },
  };
}

/** What {@link createWorkerRunContext} needs. */
export interface WorkerRunContextOptions {
  runId: string;
  projectId: string;
  entrypointId: string;
  storage: Storage;
  bridge: ParentBridge;
  signal: AbortSignal;
  /** The run's `fileCreateDir`: created (with its parents, by `makeDirectory`) when the run first reads it. */
  fileCreateDir: string;
  makeDirectory: (directory: string) => void;
  /** The process's runtime (its clock, ids, telemetry) the run's agents use. */
  runtime: HarnessRuntime;
  relatedProjects: RelatedProject[];
  /** The project's tool catalog (`executor.tools` of its definition, WF-2). */
  tools: readonly ToolCatalogEntry[];
  /** The run's configuration snapshot (CFG-2, WF-2). */
  configuration: NodeRunConfiguration;
  /** The trace context the run's agents continue (OBS-3). */
  trace?: TelemetryCarrier;
  /** BUD-5: the caller's tenant (MCP over HTTP), the id of the run's `tenant` budgets. */
  tenantId?: string;
  /** BUD-4: the host's key-store limits on that tenant (its budget, its token window). */
  tenantLimits?: NodeTenantLimits;
  /** Send each `context.log` entry to the host too (its handlers take them). */
  forwardLogs?: boolean;
}

/**
 * The context a workflow entrypoint runs with inside its worker (WF-1), including the same run
 * as a WF-0 `NodeContext` for agent and stream nodes.
 *
 * @example
 * const context = createWorkerRunContext({ runId, projectId, entrypointId, storage, bridge, signal, fileCreateDir, makeDirectory, runtime, relatedProjects: [], tools, configuration });
 */
export function createWorkerRunContext(options: WorkerRunContextOptions): WorkflowRunContext {
  const { runId, projectId, storage, bridge, signal } = options;
  const log = createStderrLogger(runId, options.forwardLogs ? (entry) => bridge.log(entry) : undefined);
  const { runtime } = options;
  // The usage recorder and the node context are made when the run first reads them: most
  // entrypoints never do, and a run's start is on every call's path (MCP-9).
  let tokenUsage: TokenUsageRecorder | undefined;
  const usage = (): TokenUsageRecorder => (tokenUsage ??= storage.tokenUsage?.({ projectId }) ?? runtime.tokenUsage(storage.kv, { projectId }));
  let created = false;
  let node: NodeContext | undefined;
  const nodeContext = (): NodeContext => {
    if (node) return node;
    const toolCatalog = options.tools.map((tool) => ({ ...tool }));
    node = {
      runId,
      projectId,
      // The workflow run is its agents' conversation: their sessions are durable (SES-10), so a run
      // answered later from a fresh process (DX-10, a budget approval BUD-3) resumes them where they
      // stopped instead of redoing the model calls and tool calls they committed.
      conversationId: runId,
      storage,
      // WF-2: the same catalog and configuration snapshot a conversation turn runs with.
      toolCatalog,
      configuration: options.configuration,
      toolPermissions: bridge.toolPermissions,
      userInput: bridge.userInput,
      tokenUsage: usage(),
      signal,
      log,
      clock: runtime.clock(),
      ids: runtime.ids(),
      runtime,
      ...(options.trace ? { trace: options.trace } : {}),
      ...(options.tenantId !== undefined ? { tenantId: options.tenantId } : {}),
      ...(options.tenantLimits ? { tenantLimits: options.tenantLimits } : {}),
    };
    return node;
  };
  return {
    runId,
    projectId,
    entrypointId: options.entrypointId,
    kv: storage.kv,
    knowledge: storage.knowledge,
    files: storage.files,
    values: storage.values,
    storage,
    userInput: friendlyUserInput(runId, bridge.userInput, signal),
    sampling: friendlySampling(bridge, signal),
    roots: { list: (listOptions = {}) => bridge.roots.list(listOptions.signal ? [signal, listOptions.signal] : [signal]) },
    toolPermissions: bridge.toolPermissions,
    get tokenUsage() {
      return usage();
    },
    signal,
    log,
    // Every run that reads the folder finds it (an earlier run may have removed it); a run that
    // never reads it costs no file-system call (MCP-9: a reused worker's per-call work).
    get fileCreateDir() {
      if (!created) options.makeDirectory(options.fileCreateDir);
      created = true;
      return options.fileCreateDir;
    },
    relatedProjects: Object.fromEntries(options.relatedProjects.map((project) => [project.alias, project])),
    configuration: options.configuration.snapshot,
    get node() {
      return nodeContext();
    },
  };
}
