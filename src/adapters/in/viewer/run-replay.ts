/**
 * The output items of one run rebuilt from its durable events (VIEW-1), with the agent's own
 * projector, so the viewer draws what a host streamed: the same rows, ids and order (OUT-1 …
 * OUT-5). It mirrors how a resumed run replays committed events (agent-turn, model-step,
 * tool-step, plan-step) without a model or tools. Pure: it runs in the browser bundle too.
 */
import { createContextMeter, type AgentContextUsage } from "../../../domain/agent/context-meter.js";
import { createAgentOutputProjector, type AgentOutputProjector, type AgentRetryRow } from "../../../domain/agent/output-projector.js";
import type { AgentWebSearchRecord, RunStartedPayload, SessionEvent } from "../../../domain/agent/session-events.js";
import type { JsonObject, JsonValue } from "../../../domain/json.js";
import type { OutputItem, OutputItemStreamChunk } from "../../../domain/output-items.js";
import { createOutputStreamAccumulator } from "../../../domain/output-stream.js";
import type { ModelMessage } from "../../../ports/model-provider.js";
import type { TokenCounts } from "../../../ports/token-usage.js";

type Block = Extract<ModelMessage, { role: "assistant" }>["content"][number];

/** How a run stands after the events seen so far. */
export type ViewerRunStatus = "running" | "waiting" | "completed" | "failed" | "cancelled";

/** A request the run waits for (SES-8): a tool approval, a question or a plan decision. */
export interface ViewerPendingRequest {
  requestId: string;
  kind: "tool_approval" | "question" | "plan";
  toolCallId?: string;
  /** The tool asked for (tool approvals and questions). */
  toolName?: string;
  arguments?: JsonValue;
  /** The question's text, or the plan's. */
  message?: string;
}

/** The usage of one model response (a step's attempt) or of a compaction. */
export interface ViewerUsageRow {
  entryId: string;
  model: string;
  counts: TokenCounts;
}

/** A `workflow-ui_present_card` command as a host keeps it: the latest upsert per card id. */
export interface ViewerCardCommand {
  cardId: string;
  command: JsonObject;
  /** The tool row that sent it. */
  toolCallId: string;
}

/** What the viewer draws for a run. */
export interface ViewerRunView {
  runId: string;
  status: ViewerRunStatus;
  start: RunStartedPayload | null;
  /** The run's prompt (its first user message). */
  prompt: string | null;
  /** Output items in stream order; `agent-session` and the ring are kept apart. */
  items: OutputItem[];
  /** The context ring (AG-7): last model usage plus an estimate of what came after. */
  ring: AgentContextUsage;
  usage: TokenCounts;
  usageRows: ViewerUsageRow[];
  pending: ViewerPendingRequest[];
  /** Decisions recorded in the log, by request id. */
  decisions: Record<string, { outcome: string; values?: JsonObject; reason?: string }>;
  cards: ViewerCardCommand[];
  /** Plan cards by item id, with their decision (`pending` while the run waits for it). */
  plans: Record<string, { decision: "pending" | "approved" | "declined" | "undecided"; feedback?: string }>;
  toolCallCount: number;
  /** The error code of a failed run. */
  errorCode: string | null;
  /** The seq of the last event applied. */
  lastSeq: number;
}

/** Options of {@link createRunReplay}. */
export interface RunReplayOptions {
  runId: string;
  sessionKey: string;
  projectId?: string;
  /** The model's context window for the ring; the run's log does not record it (default 128 000). */
  contextWindow?: number;
}

const zero = (): TokenCounts => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 });
const COUNT_KEYS = ["input", "output", "cacheRead", "cacheWrite", "total"] as const;
const PLAN_DECISION = /\/plan\/\d+\/decision$/;

/**
 * A replay of one run: feed it the run's events in `seq` order (pages at a time, and the live
 * tail as it grows) and read the view. Events of other runs are ignored.
 *
 * @example
 * const replay = createRunReplay({ runId, sessionKey: "agent" });
 * replay.push(await store.readAfter(0, { limit: 500 }));
 * replay.view().items.map((item) => item.metadata.partType);
 */
export function createRunReplay(options: RunReplayOptions) {
  const { runId } = options;
  const accumulator = createOutputStreamAccumulator();
  const meter = createContextMeter(options.contextWindow ?? 128_000);
  let projector: AgentOutputProjector | null = null;
  let start: RunStartedPayload | null = null;
  let prompt: string | null = null;
  let lastPlan: string | null = null;
  let status: ViewerRunStatus = "running";
  let errorCode: string | null = null;
  let toolCallCount = 0;
  let lastSeq = 0;
  const usage = zero();
  const usageRows: ViewerUsageRow[] = [];
  const waits = new Map<string, ViewerPendingRequest>();
  const intents = new Map<string, { toolName: string; arguments: JsonObject }>();
  const decisions: ViewerRunView["decisions"] = {};
  const cards = new Map<string, ViewerCardCommand>();
  const plans: ViewerRunView["plans"] = {};
  let planItem: string | null = null;

  const project = (): AgentOutputProjector => {
    projector ??= createAgentOutputProjector({ runId, sessionKey: options.sessionKey, answerItemId: start?.answerItemId ?? null, ...(options.projectId === undefined ? {} : { projectId: options.projectId }) });
    return projector;
  };
  // The view keeps unchanged items as the same objects, so a page of 10 000 events copies only
  // what changed since the last view, and a renderer can skip unchanged rows by identity.
  const changed = new Set<string>();
  const order: string[] = [];
  const shown = new Map<string, OutputItem>();
  const emit = (chunks: Iterable<OutputItemStreamChunk>): void => {
    for (const chunk of chunks) push(chunk);
  };
  const push = (chunk: OutputItemStreamChunk): void => {
    accumulator.push(chunk);
    const id = chunk.type === "add" ? chunk.item.id : chunk.id;
    if (!shown.has(id) && !changed.has(id)) order.push(id);
    changed.add(id);
  };

  /**
   * As model-step's `emitContent`: blocks, with built-in web searches at their positions (OUT-5);
   * the first text block of a continuation appends to the text part it continues (`join`, OUT-7).
   */
  const content = (blocks: readonly Block[], prefix: string, searches: readonly AgentWebSearchRecord[] = [], join?: string): void => {
    const p = project();
    // As model-step's `webSearchRows`: a cited-only record is a notice without a search row.
    const searchRows = (search: AgentWebSearchRecord): void => {
      if (search.cited !== true) {
        const id = `web_search:${prefix}:${searches.indexOf(search)}`;
        toolCallCount++;
        emit(p.toolCall({ id, name: "web_search", arguments: search.query === undefined ? {} : { query: search.query } }));
        emit(p.toolResult(id, { isError: search.error !== undefined, text: search.error === undefined ? `${search.sources.length} sources` : `search failed: ${search.error}` }));
      }
      if (search.sources.length > 0) {
        const links = search.sources.map((source) => `- [${(source.title ?? source.url).replace(/[[\]]/g, "")}](${source.url})`).join("\n");
        emit(p.notice(`Sources:\n${links}`, { sources: true, ...(search.cited === true ? { cited: true } : {}) }));
      }
    };
    for (const [index, block] of blocks.entries()) {
      for (const search of searches.filter((s) => s.position === index)) searchRows(search);
      if (block.type === "toolCall") {
        meter.add(JSON.stringify(block.arguments));
        emit(p.toolCall({ id: block.id, name: block.name, arguments: block.arguments }));
        continue;
      }
      if (block.text === "") continue;
      meter.add(block.text);
      const key = index === 0 && join !== undefined && block.type === "text" ? join : `${prefix}:${index}`;
      emit(block.type === "text" ? p.text(block.text, key) : p.reasoning(block.text, key));
      emit(p.endBlock());
    }
    for (const search of searches.filter((s) => s.position >= blocks.length)) searchRows(search);
  };
  /** The display key a step's next attempt appends to (model-step's `Continuation.join`), by step. */
  const joins = new Map<number, string | undefined>();
  const continueAfter = (step: number, kind: AgentRetryRow["kind"], partial: readonly Block[], joinKey: string | undefined): void => {
    if (kind === "length" || kind === "lost-call") joins.set(step, joinKey);
    // A failed attempt that streamed text stands apart: the retry starts a part of its own.
    else if (partial.some((block) => block.type !== "toolCall" && block.text !== "")) joins.set(step, undefined);
  };

  const apply = (event: SessionEvent): void => {
    // A run started again after a stop continues: any later event means it runs.
    if (event.type !== "run_stopped" && event.type !== "run_finished" && (status === "waiting" || status === "cancelled" || status === "failed")) status = "running";
    switch (event.type) {
      case "run_started":
        start = event.payload;
        meter.reset();
        meter.add(event.payload.prompt);
        break;
      case "user_message": {
        const text = typeof event.payload.message.content === "string" ? event.payload.message.content : JSON.stringify(event.payload.message.content);
        if (prompt === null) prompt = text;
        else meter.add(text);
        break;
      }
      case "model_retry": {
        const { payload } = event;
        content(payload.partial, `${payload.step}:${payload.attempt - 1}`, [], joins.get(payload.step));
        // Tool calls cut off with the answer end as failed rows: they never ran (OUT-7).
        if (payload.kind === "lost-call") {
          for (const block of payload.partial) if (block.type === "toolCall") emit(project().toolResult(block.id, { isError: true, text: "the tool call was cut off before it was complete; it did not run" }));
        }
        // Only `dropped` is a visible row; `recovery`, `length` and `lost-call` are hidden, silent records (OUT-3).
        emit(project().retry({ kind: payload.kind, attempt: payload.attempt, max: payload.max, message: payload.errorMessage, ...(payload.status === undefined ? {} : { status: payload.status }) }));
        continueAfter(payload.step, payload.kind, payload.partial, payload.joinKey);
        break;
      }
      case "assistant_message": {
        const { payload } = event;
        // What this attempt itself said (`shown`), not the joined message the history uses.
        content(payload.shown ?? payload.message.content, `${payload.step}:${payload.attempt}`, payload.webSearches, joins.get(payload.step));
        break;
      }
      case "usage": {
        const { entry } = event.payload;
        for (const key of COUNT_KEYS) usage[key] += entry[key];
        usageRows.push({ entryId: entry.entryId, model: entry.model, counts: { input: entry.input, output: entry.output, cacheRead: entry.cacheRead, cacheWrite: entry.cacheWrite, total: entry.total } });
        // Compaction requests are billed but are not the context's occupancy.
        if (!event.eventId.includes("/compact/")) meter.recordUsage(entry);
        break;
      }
      case "tool_intent":
        toolCallCount++;
        intents.set(event.payload.toolCallId, { toolName: event.payload.toolName, arguments: event.payload.arguments });
        break;
      case "approval_wait": {
        const { payload } = event;
        const intent = payload.toolCallId === undefined ? undefined : intents.get(payload.toolCallId);
        const question = intent && payload.kind === "question" && typeof intent.arguments.question === "string" ? intent.arguments.question : undefined;
        waits.set(payload.requestId, {
          requestId: payload.requestId,
          kind: payload.kind,
          ...(payload.toolCallId === undefined ? {} : { toolCallId: payload.toolCallId }),
          ...(intent ? { toolName: intent.toolName, arguments: intent.arguments } : {}),
          ...(question === undefined ? {} : { message: question }),
          ...(payload.kind === "plan" && lastPlan !== null ? { message: lastPlan } : {}),
        });
        if (payload.kind === "plan" && planItem !== null) plans[planItem] = { decision: "pending" };
        if (payload.toolCallId !== undefined && payload.kind !== "plan") emit(project().toolStatus(payload.toolCallId, payload.kind === "question" ? "awaiting_input" : "awaiting_approval"));
        break;
      }
      case "approval_decision": {
        const { payload } = event;
        waits.delete(payload.requestId);
        decisions[payload.requestId] = { outcome: payload.outcome, ...(payload.values ? { values: payload.values } : {}), ...(payload.reason ? { reason: payload.reason } : {}) };
        if (PLAN_DECISION.test(event.eventId)) {
          const feedback = typeof payload.values?.feedback === "string" && payload.values.feedback.trim() !== "" ? payload.values.feedback : null;
          if (planItem !== null) plans[planItem] = { decision: payload.outcome === "approved" ? "approved" : "declined", ...(feedback ? { feedback } : {}) };
          emit(project().notice(payload.outcome === "approved" ? "Plan approved." : feedback ? `Plan declined: ${feedback}` : "Plan declined."));
        }
        break;
      }
      case "tool_started":
        break;
      case "tool_result": {
        const { message, details } = event.payload;
        const text = message.content.map((block) => block.text).join("\n");
        meter.add(text);
        emit(project().toolResult(message.toolCallId, { isError: message.isError, text, details }));
        const command = !message.isError && details && typeof details === "object" && !Array.isArray(details) ? details.cardCommand : undefined;
        if (command && typeof command === "object" && !Array.isArray(command) && typeof command.cardId === "string") {
          if (command.action === "remove") cards.delete(command.cardId);
          else cards.set(command.cardId, { cardId: command.cardId, command, toolCallId: message.toolCallId });
        }
        break;
      }
      case "plan":
        for (const chunk of project().finalPlan(event.payload.text)) {
          push(chunk);
          const isPlan = chunk.type === "add" ? chunk.item.metadata.plan === true : chunk.type === "replace" && chunk.metadata?.plan === true;
          if (isPlan) planItem = chunk.type === "add" ? chunk.item.id : chunk.id;
        }
        if (planItem !== null) plans[planItem] = { decision: "undecided" };
        // The plan's wait (written next) names no text: the plan is what is decided on.
        lastPlan = event.payload.text;
        break;
      case "compaction":
        meter.reset();
        meter.add(JSON.stringify(event.payload.messages));
        emit(project().compaction({ summary: event.payload.summary, usedBefore: event.payload.usedBefore, usedAfter: meter.usage().used }));
        break;
      case "run_finished":
        status = "completed";
        emit(project().finish());
        break;
      case "run_stopped":
        status = event.payload.status;
        if (event.payload.status === "failed") {
          errorCode = event.payload.code ?? "internal";
          emit(project().error(errorCode, `The run failed (${errorCode}).`));
        }
        break;
    }
  };

  const items = (): OutputItem[] => {
    for (const id of changed) shown.set(id, accumulator.get(id)!);
    changed.clear();
    return order.map((id) => shown.get(id)!).filter((item) => item.metadata.kind !== "agent-session" && item.display?.type !== "ring");
  };

  return {
    /** Applies events in `seq` order; events of other runs and events already applied are skipped. */
    push(events: readonly SessionEvent[]): void {
      for (const event of events) {
        if (event.seq <= lastSeq) continue;
        lastSeq = event.seq;
        if (event.runId !== runId) continue;
        apply(event);
      }
    },
    /** Marks everything up to `seq` as seen (a page that held no event of this run). */
    seen(seq: number): void {
      if (seq > lastSeq) lastSeq = seq;
    },
    /** The view after the events pushed so far. */
    view(): ViewerRunView {
      // Only a run stopped to wait has requests to answer; a running one may still ask.
      const pending = status === "waiting" ? [...waits.values()] : [];
      return {
        runId,
        status,
        start,
        prompt,
        items: items(),
        ring: meter.usage(),
        usage: { ...usage },
        usageRows: usageRows.map((row) => ({ ...row, counts: { ...row.counts } })),
        pending,
        decisions: structuredClone(decisions),
        cards: [...cards.values()].map((card) => structuredClone(card)),
        plans: structuredClone(plans),
        toolCallCount,
        errorCode,
        lastSeq,
      };
    },
  };
}

/** The replay returned by {@link createRunReplay}. */
export type RunReplay = ReturnType<typeof createRunReplay>;
