/**
 * Host-driven runs of the gateway (GW-3): each request is one run of the agent node with
 * `hostInput` (so its whole turn's text streams into the one `agent-answer` item, and its session
 * stays in memory, SES-6). Conversations are kept here, each with its own in-memory session
 * backend over the host's shared stores, in an LRU bounded by count and by bytes held (SEC-7):
 * evicting a conversation frees its history. A conversation with a run in progress is not
 * evicted; it is counted and may be evicted once the run ends. A run that pauses (`user_input_required`) is remembered by request id until the
 * client answers and the gateway resumes it under its original run id (SES-8).
 */
import type { TelemetryCarrier } from "../../../ports/telemetry.js";
import type { HarnessRuntime } from "../../../ports/runtime.js";
import { randomUUID } from "node:crypto";
import type { AgentNode } from "../../../app/agent-node/create-agent-node.js";
import { isSteamharnessError, UserInputRequiredError } from "../../../domain/errors.js";
import type { JsonValue } from "../../../domain/json.js";
import { staticTokenPrincipal } from "../../../domain/principal.js";
import type { DecisionAnswerer } from "../../../domain/agent/decision-answerer.js";
import type { ToolCatalogEntry } from "../../../domain/node-context.js";
import type { OutputItemStreamChunk } from "../../../domain/output-items.js";
import type { ToolPermissionDecision, ToolPermissions } from "../../../ports/tool-permissions.js";
import type { UserInput, UserInputResponse } from "../../../ports/user-input.js";
import type { Storage } from "../../../ports/storage.js";
import { buildNodeContext } from "../../../app/node-context/node-context.js";
import { answerApproval, type ApprovalGovernance } from "../../../app/approvals/answer-approval.js";
import { approximateBytes, measuredSessions } from "./gateway-budget.js";
import { GatewayHttpError } from "./gateway-http.js";
import { tenantStorages } from "../../../app/tenants/tenant-storage.js";

/** What a paused run waits for, as the client is shown it. */
export type GatewayPendingRequest =
  | { kind: "tool_approval"; requestId: string; toolId: string; arguments: JsonValue }
  | { kind: "plan"; requestId: string; plan: string }
  | { kind: "question"; requestId: string; question: string }
  /** A run paused at a budget (BUD-3): approving extends the budget and the run goes on. */
  | { kind: "budget"; requestId: string; message: string; budget: JsonValue };

/** A client's answer to a pending request. */
export type GatewayDecision = { approve: boolean; reason?: string } | { answer: string };

/** Token counts of a run, from its `agent-session` item. */
export interface GatewayUsage {
  input: number;
  output: number;
  cacheRead: number;
  total: number;
}

/** How a run ended. `text` is the whole turn's answer text (replayed text included on resume). */
export type GatewayRunOutcome =
  | { status: "completed"; text: string; usage: GatewayUsage }
  | { status: "paused"; text: string; usage: GatewayUsage; pending: GatewayPendingRequest }
  | { status: "cancelled"; text: string; usage: GatewayUsage }
  | { status: "failed"; text: string; usage: GatewayUsage; error: { code: string; message: string } };

/** One run: which conversation, which run id (a resumption reuses it), the prompt and host input. */
export interface GatewayRun {
  conversationId: string;
  runId: string;
  prompt: string;
  hostInput: JsonValue;
}

/** Options of {@link createGatewayRuns}. */
export interface GatewayRunsOptions {
  node: AgentNode;
  projectId: string;
  /** The shared stores (KV, knowledge, files, values) the project's tools use. */
  storage: Storage;
  /** The host's tool catalog. */
  toolCatalog: ToolCatalogEntry[];
  /** The `agent-answer` item id the node writes; default: the first `agent-answer` item. */
  answerItemId?: string;
  /**
   * Most conversations kept. Over it, or over `maxHeldBytes`, the least recently used idle
   * conversation of the tenant holding most (conversations, or bytes) is evicted first, so a
   * tenant's growth evicts its own conversations before anyone else's (TEN-4).
   */
  maxConversations: number;
  /** Most bytes all kept conversations hold together. */
  maxHeldBytes: number;
  /** TEN-4: most conversations one tenant keeps; opening more evicts its own least recently used idle one (default `maxConversations`). */
  maxConversationsPerTenant?: number;
  /** The trace context a request's runs continue (its gateway span, OBS-3), by the request's signal. */
  traceOf?: (signal: AbortSignal) => TelemetryCarrier | undefined;
  /**
   * The node of a request's runs (BUD-4: its tenant's budget), by the request's signal; default
   * `node`. `onUsage` hears the usage of each of its runs once it ended.
   */
  scopeOf?: (signal: AbortSignal) => { node?: AgentNode; onUsage?: (usage: GatewayUsage) => void } | undefined;
  /** The runtime of the runs' node contexts and the conversations' in-memory sessions (the entry's, ARCH-6). */
  runtime: HarnessRuntime;
  /** The principal of a request (by its signal): its runs' requester (GOV-1), the answerer of its decisions (UI-7). */
  principalOf?: (signal: AbortSignal) => { tenant: string; subject: string } | undefined;
  /** Issue 47: tool approvals go through this governed adapter; answers are recorded by its `decide()`. */
  approvals?: ApprovalGovernance;
  /** Called once per failed run (DX-9), with the details a client is not shown (an unexpected error's own message). */
  onRunFailure?: (failure: { runId: string; conversationId: string; code: string; message: string; detail?: string }) => void;
}

/** What a client is told when a run fails with an error that is not steamharness's own (its details go to the log). */
export const INTERNAL_RUN_MESSAGE = "[steamharness] [gateway] the run failed with an internal error (the gateway's log has the details)";

/** What the gateway holds now. */
export interface GatewayStats {
  /** Conversations kept. */
  conversations: number;
  /** Their approximate size: session logs, snapshots and stored responses (JSON bytes). */
  heldBytes: number;
  /** Runs executing. */
  activeRuns: number;
}

interface Conversation {
  id: string;
  /** BUD-4: the tenant whose request opened it; no other tenant continues it. */
  tenant: string;
  storage: Storage;
  /** Data a front end keeps with the conversation (stored responses); dropped on eviction. */
  attachments: Map<string, { value: unknown; bytes: number }>;
  bytes: number;
  running: number;
}

/** The tenant of requests on a gateway without API keys: its one token's principal (TEN-1). */
export const SHARED_TENANT = staticTokenPrincipal("gateway").tenant;

/** The abort reason of runs the gateway cancels because it is closing. */
const CLOSING = Symbol("gateway closing");

const zeroUsage = (): GatewayUsage => ({ input: 0, output: 0, cacheRead: 0, total: 0 });
const closingError = { code: "gateway_closing", message: "[steamharness] [gateway] the gateway is shutting down: the run was cancelled" };

function pendingOf(error: UserInputRequiredError): GatewayPendingRequest {
  const request = error.request;
  if (request.kind === "plan") return { kind: "plan", requestId: error.requestId, plan: String(request.plan ?? "") };
  if (request.kind === "question") return { kind: "question", requestId: error.requestId, question: String(request.question ?? error.message) };
  if (request.kind === "form" && request.budget !== undefined) return { kind: "budget", requestId: error.requestId, message: String(request.message ?? error.message), budget: request.budget as JsonValue };
  return { kind: "tool_approval", requestId: error.requestId, toolId: String(request.toolId ?? "tool"), arguments: (request.arguments ?? null) as JsonValue };
}

/**
 * The gateway's run engine: conversations, runs with cancellation, pending requests and the
 * decision ports that answer them.
 *
 * @example
 * const runs = createGatewayRuns({ node, projectId, storage, toolCatalog: [], maxConversations: 1000, maxHeldBytes: DEFAULT_MAX_HELD_BYTES });
 * const outcome = await runs.run(runs.start("hi", { gateway: "openai-responses" }), signal, (delta) => write(delta));
 */
export function createGatewayRuns(options: GatewayRunsOptions) {
  const conversations = new Map<string, Conversation>();
  const tenantView = tenantStorages(options.storage);
  const perTenant = options.maxConversationsPerTenant ?? options.maxConversations;
  const pending = new Map<string, { run: GatewayRun; request: GatewayPendingRequest }>();
  // Decisions live only until the resumed run has recorded them in its session.
  const decisions = new Map<string, ToolPermissionDecision | UserInputResponse>();
  const active = new Set<AbortController>();
  let heldBytes = 0;
  let closing = false;
  const { approvals } = options;
  const toolPermissions: ToolPermissions = approvals
    ? { request: (request, signal) => approvals.request(request, signal) }
    : { request: async (request) => (decisions.get(request.requestId) as ToolPermissionDecision | undefined) ?? { outcome: "pending" } };
  const userInput: UserInput = { request: async (request) => (decisions.get(request.requestId) as UserInputResponse | undefined) ?? { outcome: "pending" } };

  const conversation = (id: string): Conversation | undefined => {
    const found = conversations.get(id);
    if (found) {
      conversations.delete(id);
      conversations.set(id, found);
    }
    return found;
  };
  const drop = (id: string): void => {
    const found = conversations.get(id);
    if (!found) return;
    conversations.delete(id);
    heldBytes -= found.bytes;
    for (const [requestId, entry] of pending) if (entry.run.conversationId === id) pending.delete(requestId);
    void found.storage.sessions?.close();
  };
  const over = (): boolean => heldBytes > options.maxHeldBytes || conversations.size > options.maxConversations;
  /** The least recently used idle conversation of `tenant`, but `keep`. */
  const oldestIdle = (tenant: string, keep?: Conversation): Conversation | undefined => {
    for (const found of conversations.values()) if (found.running === 0 && found !== keep && found.tenant === tenant) return found;
    return undefined;
  };
  /**
   * Evicts idle conversations (but `keep`) until the kept ones fit both bounds: each time the
   * least recently used one of the tenant holding most of what is over (bytes or conversations).
   */
  const evict = (keep?: Conversation): void => {
    while (over()) {
      const byBytes = heldBytes > options.maxHeldBytes;
      const held = new Map<string, number>();
      for (const found of conversations.values()) held.set(found.tenant, (held.get(found.tenant) ?? 0) + (byBytes ? found.bytes : 1));
      // Largest holder first; a tenant whose conversations are all running cannot give one up.
      const victim = [...held].sort((a, b) => b[1] - a[1]).map(([tenant]) => oldestIdle(tenant, keep)).find((found) => found !== undefined);
      if (!victim) return;
      drop(victim.id);
    }
  };
  const grow = (found: Conversation, delta: number): void => {
    // A late write of an evicted conversation counts nothing: its bytes left with it.
    if (conversations.get(found.id) !== found) return;
    found.bytes += delta;
    heldBytes += delta;
    if (delta > 0) evict();
  };
  const open = (tenant: string): string => {
    const id = `conv_${randomUUID().replace(/-/g, "")}`;
    // TEN-3: an API key's tenant reads and writes its own namespace of the shared stores.
    const shared = tenant === SHARED_TENANT ? options.storage : tenantView(tenant);
    // The shared stores, with this conversation's own in-memory sessions (SES-6).
    const storage: Storage = {
      kv: shared.kv,
      knowledge: shared.knowledge,
      files: shared.files,
      values: shared.values,
      sessions: measuredSessions(options.runtime.conversationSessions(), (delta) => grow(found, delta)),
      ...(shared.budgets ? { budgets: shared.budgets } : {}),
      ...(shared.tokenUsage ? { tokenUsage: (namespace) => shared.tokenUsage!(namespace) } : {}),
      close: async () => {},
    };
    const found: Conversation = { id, tenant, storage, attachments: new Map(), bytes: 0, running: 0 };
    // TEN-4: a tenant at its cap gives up its own least recently used idle conversation.
    let own = 0;
    for (const kept of conversations.values()) if (kept.tenant === tenant) own += 1;
    const oldest = own >= perTenant ? oldestIdle(tenant) : undefined;
    if (oldest) drop(oldest.id);
    conversations.set(id, found);
    evict(found);
    return id;
  };

  return {
    /** A new conversation of `tenant` (BUD-4; one shared tenant by default) and the first run in it. */
    start(prompt: string, hostInput: JsonValue, tenant = SHARED_TENANT): GatewayRun {
      return { conversationId: open(tenant), runId: `run_${randomUUID()}`, prompt, hostInput };
    },
    /** A new run in an existing conversation of `tenant`, or `null` when it is unknown, was evicted or is another tenant's. */
    next(conversationId: string, prompt: string, hostInput: JsonValue, tenant = SHARED_TENANT): GatewayRun | null {
      return conversation(conversationId)?.tenant === tenant ? { conversationId, runId: `run_${randomUUID()}`, prompt, hostInput } : null;
    },
    /** The paused run waiting for `requestId` in a conversation of `tenant`, or `null`. */
    pendingRun(requestId: string, tenant = SHARED_TENANT): { run: GatewayRun; request: GatewayPendingRequest } | null {
      const entry = pending.get(requestId);
      return entry && conversation(entry.run.conversationId)?.tenant === tenant ? entry : null;
    },
    /** The tenant of a kept conversation, or `undefined`. */
    tenantOf(conversationId: string): string | undefined {
      return conversations.get(conversationId)?.tenant;
    },
    /**
     * Records the answer of the request with `signal` to a pending request (answered by its
     * principal, UI-7); the next run of that run id consumes it. A tool approval goes through
     * `answerApproval` (the governed `decide()`, which may refuse it: GOV-4).
     */
    async decide(request: GatewayPendingRequest, decision: GatewayDecision, signal: AbortSignal): Promise<void> {
      const principal = options.principalOf?.(signal);
      const answeredBy: DecisionAnswerer = { surface: "gateway", tenant: principal?.tenant ?? SHARED_TENANT, ...(principal ? { subject: principal.subject } : {}), at: Date.now() };
      let recorded: ToolPermissionDecision | UserInputResponse;
      if ("answer" in decision) recorded = { outcome: "answered", values: { answer: decision.answer } };
      // BUD-3: the budget's form has one field, `approve`.
      else if (request.kind === "budget") recorded = { outcome: "answered", values: { approve: decision.approve } };
      else if (request.kind === "tool_approval") {
        recorded = await answerApproval(approvals, { requestId: request.requestId, outcome: decision.approve ? "approved" : "denied", answeredBy, ...(decision.reason ? { reason: decision.reason } : {}) }).catch((error: unknown) => {
          // The governed decide() refused this answerer (GOV-4) or the request (expired, decided): the client's fault, said as such.
          if (isSteamharnessError(error, "forbidden")) throw new GatewayHttpError(403, error.message, { type: "invalid_request_error", code: "forbidden" });
          if (isSteamharnessError(error, "approval_expired") || isSteamharnessError(error, "conflict")) throw new GatewayHttpError(409, error.message, { type: "invalid_request_error", code: error.code });
          throw error;
        });
      }
      else if (decision.approve) recorded = { outcome: "answered", values: { approved: true } };
      else recorded = decision.reason ? { outcome: "answered", values: { approved: false, feedback: decision.reason } } : { outcome: "declined" };
      decisions.set(request.requestId, { answeredBy, ...recorded });
    },
    /** Keeps front-end data with a conversation (dropped when it is evicted). */
    attach(conversationId: string, key: string, value: unknown): void {
      const found = conversations.get(conversationId);
      if (!found) return;
      const bytes = approximateBytes(value);
      const before = found.attachments.get(key)?.bytes ?? 0;
      found.attachments.set(key, { value, bytes });
      grow(found, bytes - before);
    },
    attachment(conversationId: string, key: string): unknown {
      return conversations.get(conversationId)?.attachments.get(key)?.value;
    },
    /** Forgets a conversation (its session history and pending requests). */
    drop,
    /** Runs currently executing. */
    activeRuns: (): number => active.size,
    /** What is held now. */
    stats: (): GatewayStats => ({ conversations: conversations.size, heldBytes, activeRuns: active.size }),
    /**
     * Cancels every running run because the gateway closes: each ends `failed` with code
     * `gateway_closing` (its client is told so), and runs started later end so at once.
     */
    closeAll(): void {
      closing = true;
      for (const controller of active) controller.abort(CLOSING);
    },
    /**
     * Executes (or resumes) a run; `onText` receives the answer text as it streams. Resolves how
     * it ended; never rejects for run failures. `signal` aborting cancels the run.
     */
    async run(run: GatewayRun, signal: AbortSignal, onText: (delta: string) => void = () => {}): Promise<GatewayRunOutcome> {
      const found = conversation(run.conversationId);
      const refused = (error: { code: string; message: string }): GatewayRunOutcome => {
        options.onRunFailure?.({ runId: run.runId, conversationId: run.conversationId, ...error });
        return { status: "failed", text: "", usage: zeroUsage(), error };
      };
      if (!found) return refused({ code: "not_found", message: `conversation ${run.conversationId} is no longer kept by the gateway` });
      if (closing) return refused(closingError);
      const controller = new AbortController();
      const requester = options.principalOf?.(signal);
      const abort = () => controller.abort();
      if (signal.aborted) controller.abort();
      else signal.addEventListener("abort", abort, { once: true });
      active.add(controller);
      found.running++;
      const context = buildNodeContext({
        projectId: options.projectId,
        conversationId: run.conversationId,
        storage: found.storage,
        runId: run.runId,
        toolPermissions,
        userInput,
        toolCatalog: options.toolCatalog,
        ...(requester ? { requester: { tenant: requester.tenant, subject: requester.subject } } : {}),
        signal: controller.signal,
        ...(options.traceOf?.(signal) ? { trace: options.traceOf(signal)! } : {}),
      }, options.runtime);
      let answerId = options.answerItemId ?? null;
      let sessionId: string | null = null;
      let text = "";
      let usage = zeroUsage();
      const observe = (chunk: OutputItemStreamChunk): void => {
        if (chunk.type === "add") {
          if (answerId === null && chunk.item.metadata.kind === "agent-answer") answerId = chunk.item.id;
          if (chunk.item.metadata.kind === "agent-session") sessionId = chunk.item.id;
          if (chunk.item.id === sessionId) usage = usageOf(chunk.item.content) ?? usage;
        } else if (chunk.type === "delta" && chunk.id === answerId && chunk.delta !== "") {
          text += chunk.delta;
          onText(chunk.delta);
        } else if (chunk.type === "replace" && chunk.id === sessionId) usage = usageOf(chunk.content) ?? usage;
      };
      const scope = options.scopeOf?.(signal);
      const waitedFor = [...pending.values()].find((entry) => entry.run.runId === run.runId)?.request.requestId;
      let outcome: GatewayRunOutcome;
      let detail: string | undefined;
      try {
        for await (const chunk of (scope?.node ?? options.node).stream({ prompt: run.prompt, runId: run.runId, hostInput: run.hostInput }, context)) observe(chunk);
        outcome = { status: "completed", text, usage };
      } catch (error) {
        if (error instanceof UserInputRequiredError) outcome = { status: "paused", text, usage, pending: pendingOf(error) };
        else if (controller.signal.aborted && controller.signal.reason === CLOSING) outcome = { status: "failed", text, usage, error: closingError };
        else if (controller.signal.aborted || isSteamharnessError(error, "cancelled")) outcome = { status: "cancelled", text, usage };
        // DX-9: an error that is not ours (a bug in the project's code, a parser message) reaches
        // the client as a clean internal error; its own message and stack go to the log only.
        else if (isSteamharnessError(error) && error.code !== "internal") outcome = { status: "failed", text, usage, error: { code: error.code, message: error.message } };
        else {
          outcome = { status: "failed", text, usage, error: { code: "internal", message: INTERNAL_RUN_MESSAGE } };
          detail = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
        }
      } finally {
        signal.removeEventListener("abort", abort);
        active.delete(controller);
        found.running--;
        evict();
      }
      // The request this run waited for is settled unless the run stopped at it again.
      if (waitedFor !== undefined && !(outcome.status === "paused" && outcome.pending.requestId === waitedFor)) {
        pending.delete(waitedFor);
        decisions.delete(waitedFor);
      }
      scope?.onUsage?.(outcome.usage);
      if (outcome.status === "paused") pending.set(outcome.pending.requestId, { run, request: outcome.pending });
      if (outcome.status === "failed") options.onRunFailure?.({ runId: run.runId, conversationId: run.conversationId, ...outcome.error, ...(detail === undefined ? {} : { detail }) });
      return outcome;
    },
  };
}

/** The run engine returned by {@link createGatewayRuns}. */
export type GatewayRuns = ReturnType<typeof createGatewayRuns>;

function usageOf(content: unknown): GatewayUsage | null {
  const usage = (content as { usage?: Record<string, unknown> } | null)?.usage;
  if (!usage || typeof usage !== "object") return null;
  const number = (key: string): number => (typeof usage[key] === "number" ? (usage[key] as number) : 0);
  return { input: number("input"), output: number("output"), cacheRead: number("cacheRead"), total: number("total") };
}
