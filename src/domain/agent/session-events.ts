import { SteamharnessError } from "../errors.js";
import { isJsonValue, type JsonObject, type JsonValue } from "../json.js";
import type { ModelMessage, ModelResponse } from "../../ports/model-provider.js";
import type { TokenUsageEntry } from "../../ports/token-usage.js";
import type { RunBudgetView } from "../budget/budget-view.js";
import { keptAnswerer, type DecisionAnswerer } from "./decision-answerer.js";

/**
 * The kinds of event in a session's append-only log. Every effect of a run is one event, written
 * before (intents, waits) or after (results, messages, usage) the effect, so a run replayed from
 * its events rebuilds the same outputs without redoing committed work (SES-3).
 */
export type SessionEventType =
  | "run_started"
  | "user_message"
  | "assistant_message"
  | "model_retry"
  | "usage"
  | "tool_intent"
  | "approval_wait"
  | "approval_decision"
  | "tool_started"
  | "tool_result"
  | "plan"
  | "compaction"
  | "run_finished"
  | "run_stopped"
  | "extension";

/** A built-in web search of a response (OUT-5). */
export interface AgentWebSearchRecord {
  /** The index in the message content before which it happened. */
  position: number;
  query?: string;
  sources: Array<{ url: string; title?: string }>;
  /** Sources the answer cited that no search listed: a notice only, no search row. */
  cited?: true;
  /** The provider's error code of a failed search. */
  error?: string;
}

/** What an agent run used, saved at its start so a resumed run uses the same (AG-4, CFG-2). */
export interface RunStartedPayload {
  prompt: string;
  mode: string;
  workdir: string;
  effort: string;
  provider: string;
  model: string;
  /** The model selection of this run: the entry id, or how the model was given. */
  modelSource: JsonObject;
  /** The configuration snapshot the run started with (`STEAMHARNESS_AGENT_MODELS`, policy). */
  configuration: JsonObject | null;
  /** Whether the run writes its text into one `agent-answer` item (host-driven run). */
  answerItemId: string | null;
  /**
   * When the run began (ms since epoch, the run's clock). The start event is committed with the
   * run's first step, so its `at` is later; absent in logs written before VIEW-7.
   */
  startedAt?: number;
  /** The trace context of the run's root span (OBS-4), so a resumed run continues the same trace. Absent in older logs. */
  trace?: { traceparent: string; tracestate?: string };
}

/**
 * When an effect ran (ms since epoch, the run's clock), for the viewer's timeline (VIEW-7): a
 * model request from its first byte asked to its last received, a tool from its call to its
 * return. Events carry it because their `at` is when they were committed, which for a deferred
 * event (a safe tool's result, committed with the next step) is later. Absent in older logs.
 */
export interface SessionEventTiming {
  startedAt: number;
  endedAt: number;
}

/** Payloads by event type. */
export interface SessionEventPayloads {
  run_started: RunStartedPayload;
  user_message: {
    message: ModelMessage & { role: "user" };
    /** UI-5: a message steered into the running run at a step boundary, and the id it was queued under. */
    steer?: { id: string };
  };
  assistant_message: {
    message: ModelMessage & { role: "assistant" };
    stopReason: ModelResponse["stopReason"];
    step: number;
    attempt: number;
    /** Built-in web searches of the response (OUT-5), at the content position they happened. */
    webSearches?: AgentWebSearchRecord[];
    /**
     * What this attempt itself said, when `message` also holds text of earlier cut attempts it
     * continues (OUT-7) or drops a lost tool call: the output replays this, the history uses `message`.
     */
    shown?: Array<ModelResponse["content"][number]>;
    /** When this attempt's model request ran (VIEW-7). */
    timing?: SessionEventTiming;
    /** The budget lease the call drew from (BUD-2); absent when it held a reservation of its own. */
    lease?: string;
  };
  model_retry: {
    step: number;
    attempt: number;
    max: number;
    kind: NonNullable<ModelResponse["retry"]>["kind"];
    status?: number;
    errorMessage: string;
    /** What the failed attempt streamed before it failed; it stays in the output (OUT-3). */
    partial: Array<ModelResponse["content"][number]>;
    /** For `length` / `lost-call`: the display key of the text part the continuation appends to. */
    joinKey?: string;
    /** When the failed attempt's model request ran (VIEW-7). */
    timing?: SessionEventTiming;
    /** The budget lease the attempt drew from (BUD-2); absent when it held a reservation of its own. */
    lease?: string;
  };
  usage: { entry: TokenUsageEntry };
  tool_intent: { toolCallId: string; toolName: string; arguments: JsonObject; replay: "safe" | "never" };
  approval_wait: { requestId: string; kind: "tool_approval" | "question" | "plan"; toolCallId?: string };
  /**
   * `timing`: when a person was asked and answered while the run waited in its process (a terminal
   * prompt; VIEW-7) — a paused run's wait is its `approval_wait` up to this event, or up to
   * `answeredBy.at` when the answer said when it was given. `answeredBy`: who answered (UI-7),
   * when the answering port said so; absent in older logs and for decisions made by rule.
   */
  approval_decision: { requestId: string; outcome: "approved" | "denied" | "answered" | "declined"; values?: JsonObject; reason?: string; timing?: SessionEventTiming; answeredBy?: DecisionAnswerer };
  tool_started: { toolCallId: string };
  /** `timing`: when the tool ran (VIEW-7); absent for a result that was not run (denied, unknown after a crash) and in older logs. */
  tool_result: { message: ModelMessage & { role: "toolResult" }; details: JsonValue; timing?: SessionEventTiming };
  plan: { planIndex: number; text: string };
  /**
   * A compaction (SES-7 automatic before a model request, SES-11 manual `/compact`): the
   * transcript the session continues from (also written as the snapshot at this event).
   * `source` says who wrote the summary: the session's model, or the mechanical fold because
   * the model failed (`reason`). A manual one carries the person's `instructions` and how many
   * messages it `folded`; the events before it stay in the log.
   */
  compaction: {
    step: number;
    summary: string;
    messages: ModelMessage[];
    usedBefore: number;
    source?: "model" | "fallback";
    reason?: string;
    manual?: boolean;
    instructions?: string;
    folded?: number;
  };
  /** `budget`: the run's budgets as it ended (issue 28 item 6; absent for a run without budgets). */
  run_finished: { status: "completed"; toolCallCount: number; budget?: RunBudgetView };
  /**
   * The run stopped without completing: it waits for a person (`requestId`: the pending request),
   * was cancelled, or failed (`code`: the error's). Written once per stop point (its id counts the
   * run's other events), so the session log alone tells how every run ended (the node's execution
   * history, AG-3) and a paused session's state is its last event. A run that is started again
   * continues after it.
   */
  run_stopped: { status: "waiting" | "cancelled" | "failed"; toolCallCount: number; requestId?: string; code?: string; budget?: RunBudgetView };
  /**
   * A record of the session extension layer (EXT-2 … EXT-5), never a conversation message:
   * `tool_search` (tools a search loaded), `codemode` (a snippet's nested call: its intent and
   * result), `task` (a background task's state), `environment` (the session's execution target),
   * `fork` (FORK-1: this session forks another at a point; its data is a `ForkRecord`).
   */
  extension: { feature: "tool_search" | "codemode" | "task" | "environment" | "fork" | "replay"; data: JsonObject };
}

/** An event to append: a stable id (derived from the run id), its run, type and payload. */
export type SessionEventInput = {
  [K in SessionEventType]: { eventId: string; runId: string; type: K; payload: SessionEventPayloads[K] };
}[SessionEventType];

/** A stored event: the input plus its position `seq` (1, 2, … per session) and write time. */
export type SessionEvent = SessionEventInput & { seq: number; at: number };

/**
 * The messages of a session's conversation as a model sees them, from events in order.
 *
 * @example
 * const messages = messagesFromEvents(await store.readAfter(0));
 */
export function messagesFromEvents(events: readonly SessionEventInput[]): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (const event of events) {
    if (event.type === "user_message" || event.type === "assistant_message" || event.type === "tool_result") {
      messages.push(event.payload.message);
    }
  }
  return messages;
}

/**
 * Rejects an event the port refuses (the session-store port contract; every adapter calls this): `eventId`, `runId` and `type` must be
 * non-empty strings and the payload JSON. Throws `input_validation`.
 *
 * @example
 * validateSessionEvent({ eventId: "", runId: "r", type: "plan", payload: { planIndex: 0, text: "" } }); // throws
 */
export function validateSessionEvent(event: SessionEventInput): void {
  if (typeof event !== "object" || event === null) {
    throw new SteamharnessError("input_validation", "a session event must be an object", { field: "event" });
  }
  for (const field of ["eventId", "runId", "type"] as const) {
    if (typeof event[field] !== "string" || event[field] === "") {
      throw new SteamharnessError("input_validation", `session event ${field} must be a non-empty string`, { field });
    }
  }
  if (!isJsonValue(event.payload)) {
    throw new SteamharnessError("input_validation", `session event ${event.eventId} has a payload that is not JSON`, { field: "payload" });
  }
}

/**
 * The `approval_decision` event of a request, with who answered when the answering port said so
 * (UI-7): the one place a decision is written, so every surface's answer is kept alike.
 *
 * @example
 * await turn.append([approvalDecisionEvent(eventId, runId, { requestId, outcome: "approved" }, decision.answeredBy)]);
 */
export function approvalDecisionEvent(eventId: string, runId: string, payload: SessionEventPayloads["approval_decision"], answeredBy?: unknown): SessionEventInput {
  const kept = keptAnswerer(answeredBy);
  return { eventId, runId, type: "approval_decision", payload: { ...payload, ...(kept ? { answeredBy: kept } : {}) } };
}
