import type { OutputItemStreamChunk } from "../output-items.js";
import type { ModelMessage } from "../../ports/model-provider.js";
import { createAgentOutputState, projectAgentOutput, type AgentOutputEvent, type AgentRetryRow } from "./output-handlers.js";
import type { RunViewState } from "./run-view.js";
import type { AgentWebSearchRecord, SessionEvent } from "./session-events.js";

type Block = Extract<ModelMessage, { role: "assistant" }>["content"][number];
type EventOf<T extends SessionEvent["type"]> = Extract<SessionEvent, { type: T }>;
type Handler<T extends SessionEvent["type"]> = (state: RunViewState, event: EventOf<T>) => OutputItemStreamChunk[];

const COUNT_KEYS = ["input", "output", "cacheRead", "cacheWrite", "total"] as const;
const PLAN_DECISION = /\/plan\/\d+\/decision$/;
const none = (): OutputItemStreamChunk[] => [];

/** The run's projection, made with the run's `answerItemId` once it is known. */
function project(state: RunViewState, event: AgentOutputEvent): OutputItemStreamChunk[] {
  const { runId, sessionKey, projectId } = state.options;
  state.output ??= createAgentOutputState({ runId, sessionKey, answerItemId: state.start?.answerItemId ?? null, ...(projectId === undefined ? {} : { projectId }) });
  return projectAgentOutput(state.output, event);
}

/** As model-step's `webSearchRows`: a cited-only record is a notice without a search row (OUT-5). */
function searchRows(state: RunViewState, search: AgentWebSearchRecord, id: string): OutputItemStreamChunk[] {
  const chunks: OutputItemStreamChunk[] = [];
  if (search.cited !== true) {
    state.toolCallCount++;
    chunks.push(...project(state, { type: "toolCall", call: { id, name: "web_search", arguments: search.query === undefined ? {} : { query: search.query } } }));
    chunks.push(...project(state, { type: "toolResult", toolCallId: id, result: { isError: search.error !== undefined, text: search.error === undefined ? `${search.sources.length} sources` : `search failed: ${search.error}` } }));
  }
  if (search.sources.length > 0) {
    const links = search.sources.map((source) => `- [${(source.title ?? source.url).replace(/[[\]]/g, "")}](${source.url})`).join("\n");
    chunks.push(...project(state, { type: "notice", text: `Sources:\n${links}`, extra: { sources: true, ...(search.cited === true ? { cited: true } : {}) } }));
  }
  return chunks;
}

/**
 * As model-step's `emitContent`: blocks, with built-in web searches at their positions (OUT-5);
 * the first text block of a continuation appends to the text part it continues (`join`, OUT-7).
 */
function content(state: RunViewState, blocks: readonly Block[], prefix: string, searches: readonly AgentWebSearchRecord[] = [], join?: string): OutputItemStreamChunk[] {
  const chunks: OutputItemStreamChunk[] = [];
  const rows = (search: AgentWebSearchRecord) => chunks.push(...searchRows(state, search, `web_search:${prefix}:${searches.indexOf(search)}`));
  for (const [index, block] of blocks.entries()) {
    for (const search of searches.filter((s) => s.position === index)) rows(search);
    if (block.type === "toolCall") {
      state.meter.add(JSON.stringify(block.arguments));
      chunks.push(...project(state, { type: "toolCall", call: { id: block.id, name: block.name, arguments: block.arguments } }));
      continue;
    }
    if (block.text === "") continue;
    state.meter.add(block.text);
    const key = index === 0 && join !== undefined && block.type === "text" ? join : `${prefix}:${index}`;
    chunks.push(...project(state, { type: block.type, delta: block.text, block: key }), ...project(state, { type: "endBlock" }));
  }
  for (const search of searches.filter((s) => s.position >= blocks.length)) rows(search);
  return chunks;
}

function continueAfter(state: RunViewState, step: number, kind: AgentRetryRow["kind"], partial: readonly Block[], joinKey: string | undefined): void {
  if (kind === "length" || kind === "lost-call") state.joins.set(step, joinKey);
  // A failed attempt that streamed text stands apart: the retry starts a part of its own.
  else if (partial.some((block) => block.type !== "toolCall" && block.text !== "")) state.joins.set(step, undefined);
}

/** One handler per event type: what the event changes in the view, and the items it streams. */
const handlers: { [T in SessionEvent["type"]]: Handler<T> } = {
  run_started(state, { payload }) {
    state.start = payload;
    state.meter.reset();
    state.meter.add(payload.prompt);
    return [];
  },
  user_message(state, { payload }) {
    const text = typeof payload.message.content === "string" ? payload.message.content : JSON.stringify(payload.message.content);
    if (state.prompt === null) state.prompt = text;
    else state.meter.add(text);
    return [];
  },
  model_retry(state, { payload }) {
    const chunks = content(state, payload.partial, `${payload.step}:${payload.attempt - 1}`, [], state.joins.get(payload.step));
    // Tool calls cut off with the answer end as failed rows: they never ran (OUT-7).
    if (payload.kind === "lost-call") {
      for (const block of payload.partial) if (block.type === "toolCall") chunks.push(...project(state, { type: "toolResult", toolCallId: block.id, result: { isError: true, text: "the tool call was cut off before it was complete; it did not run" } }));
    }
    // Only `dropped` is a visible row; `recovery`, `length` and `lost-call` are hidden, silent records (OUT-3).
    chunks.push(...project(state, { type: "retry", row: { kind: payload.kind, attempt: payload.attempt, max: payload.max, message: payload.errorMessage, ...(payload.status === undefined ? {} : { status: payload.status }) } }));
    continueAfter(state, payload.step, payload.kind, payload.partial, payload.joinKey);
    return chunks;
  },
  // What this attempt itself said (`shown`), not the joined message the history uses.
  assistant_message: (state, { payload }) => content(state, payload.shown ?? payload.message.content, `${payload.step}:${payload.attempt}`, payload.webSearches, state.joins.get(payload.step)),
  usage(state, { eventId, payload: { entry } }) {
    for (const key of COUNT_KEYS) state.usage[key] += entry[key];
    state.usageRows.push({ entryId: entry.entryId, model: entry.model, counts: { input: entry.input, output: entry.output, cacheRead: entry.cacheRead, cacheWrite: entry.cacheWrite, total: entry.total } });
    // Compaction requests are billed but are not the context's occupancy.
    if (!eventId.includes("/compact/")) state.meter.recordUsage(entry);
    return [];
  },
  tool_intent(state, { payload }) {
    state.toolCallCount++;
    state.intents.set(payload.toolCallId, { toolName: payload.toolName, arguments: payload.arguments });
    return [];
  },
  approval_wait(state, { payload }) {
    const intent = payload.toolCallId === undefined ? undefined : state.intents.get(payload.toolCallId);
    const question = intent && payload.kind === "question" && typeof intent.arguments.question === "string" ? intent.arguments.question : undefined;
    state.waits.set(payload.requestId, {
      requestId: payload.requestId,
      kind: payload.kind,
      ...(payload.toolCallId === undefined ? {} : { toolCallId: payload.toolCallId }),
      ...(intent ? { toolName: intent.toolName, arguments: intent.arguments } : {}),
      ...(question === undefined ? {} : { message: question }),
      ...(payload.kind === "plan" && state.lastPlan !== null ? { message: state.lastPlan } : {}),
    });
    if (payload.kind === "plan" && state.planItem !== null) state.plans[state.planItem] = { decision: "pending" };
    if (payload.toolCallId === undefined || payload.kind === "plan") return [];
    return project(state, { type: "toolStatus", toolCallId: payload.toolCallId, status: payload.kind === "question" ? "awaiting_input" : "awaiting_approval" });
  },
  approval_decision(state, { eventId, payload }) {
    state.waits.delete(payload.requestId);
    state.decisions[payload.requestId] = { outcome: payload.outcome, ...(payload.values ? { values: payload.values } : {}), ...(payload.reason ? { reason: payload.reason } : {}) };
    if (!PLAN_DECISION.test(eventId)) return [];
    const feedback = typeof payload.values?.feedback === "string" && payload.values.feedback.trim() !== "" ? payload.values.feedback : null;
    if (state.planItem !== null) state.plans[state.planItem] = { decision: payload.outcome === "approved" ? "approved" : "declined", ...(feedback ? { feedback } : {}) };
    return project(state, { type: "notice", text: payload.outcome === "approved" ? "Plan approved." : feedback ? `Plan declined: ${feedback}` : "Plan declined." });
  },
  tool_started: none,
  tool_result(state, { payload: { message, details } }) {
    const text = message.content.map((block) => block.text).join("\n");
    state.meter.add(text);
    const chunks = project(state, { type: "toolResult", toolCallId: message.toolCallId, result: { isError: message.isError, text, details } });
    const command = !message.isError && details && typeof details === "object" && !Array.isArray(details) ? details.cardCommand : undefined;
    if (command && typeof command === "object" && !Array.isArray(command) && typeof command.cardId === "string") {
      if (command.action === "remove") state.cards.delete(command.cardId);
      else state.cards.set(command.cardId, { cardId: command.cardId, command, toolCallId: message.toolCallId });
    }
    return chunks;
  },
  plan(state, { payload }) {
    const chunks = project(state, { type: "finalPlan", text: payload.text });
    for (const chunk of chunks) {
      const isPlan = chunk.type === "add" ? chunk.item.metadata.plan === true : chunk.type === "replace" && chunk.metadata?.plan === true;
      if (isPlan) state.planItem = chunk.type === "add" ? chunk.item.id : chunk.id;
    }
    if (state.planItem !== null) state.plans[state.planItem] = { decision: "undecided" };
    // The plan's wait (written next) names no text: the plan is what is decided on.
    state.lastPlan = payload.text;
    return chunks;
  },
  compaction(state, { payload }) {
    state.meter.reset();
    state.meter.add(JSON.stringify(payload.messages));
    return project(state, { type: "compaction", content: { summary: payload.summary, usedBefore: payload.usedBefore, usedAfter: state.meter.usage().used } });
  },
  run_finished(state, { payload }) {
    state.status = "completed";
    if (payload.budget) state.budget = payload.budget;
    return project(state, { type: "finish" });
  },
  run_stopped(state, { payload }) {
    state.status = payload.status;
    if (payload.budget) state.budget = payload.budget;
    if (payload.status !== "failed") return [];
    state.errorCode = payload.code ?? "internal";
    return project(state, { type: "error", code: state.errorCode, message: `The run failed (${state.errorCode}).` });
  },
  extension: none,
};

/**
 * Applies one event of the run to the view state and returns the output chunks it streams, in
 * order (VIEW-1). A run started again after a stop continues: any later event but a stop or an
 * end sets it running.
 *
 * @example
 * const state = createRunViewState({ runId: "r1", sessionKey: "agent" });
 * for (const event of events) accumulator.pushAll(applyRunEvent(state, event));
 */
export function applyRunEvent(state: RunViewState, event: SessionEvent): OutputItemStreamChunk[] {
  if (event.type !== "run_stopped" && event.type !== "run_finished" && (state.status === "waiting" || state.status === "cancelled" || state.status === "failed")) state.status = "running";
  return (handlers[event.type] as Handler<typeof event.type>)(state, event);
}
