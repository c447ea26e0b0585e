import type { RunBudgetView } from "../budget/budget-view.js";
import type { JsonObject, JsonValue } from "../json.js";
import type { TokenCounts } from "../../ports/token-usage.js";
import { createContextMeter, type ContextMeter } from "./context-meter.js";
import type { AgentOutputState } from "./output-handlers.js";
import type { RunStartedPayload } from "./session-events.js";

/*
 * The event → view reducer of one run (VIEW-1): a run's durable events, applied in order, give
 * the output items a host streamed (through the agent's own projection handlers: the same rows,
 * ids and order, OUT-1 … OUT-5) and what a viewer shows beside them — status, usage, pending
 * requests, decisions, cards and plans. It mirrors how a resumed run replays committed events
 * (agent-turn, model-step, tool-step, plan-step) without a model or tools. One handler per
 * event type over a small state (the handlers: run-view-reducer.ts); nothing here reads a clock,
 * a store or the network.
 */

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

/** Plan cards by item id, with their decision (`pending` while the run waits for it). */
export type ViewerPlans = Record<string, { decision: "pending" | "approved" | "declined" | "undecided"; feedback?: string }>;

/** Decisions recorded in the log, by request id. */
export type ViewerDecisions = Record<string, { outcome: string; values?: JsonObject; reason?: string }>;

/** Options of {@link createRunViewState}. */
export interface RunViewOptions {
  runId: string;
  sessionKey: string;
  projectId?: string;
  /** The model's context window for the ring; the run's log does not record it (default 128 000). */
  contextWindow?: number;
}

/** What the reducer keeps of one run. */
export interface RunViewState {
  readonly options: RunViewOptions;
  /** The ring (AG-7): last model usage plus an estimate of what came after. */
  readonly meter: ContextMeter;
  /** The projection of the run's items, made at its first use (it needs the run's start). */
  output: AgentOutputState | null;
  status: ViewerRunStatus;
  start: RunStartedPayload | null;
  /** The run's prompt (its first user message). */
  prompt: string | null;
  /** The last plan's text: what its wait asks to decide. */
  lastPlan: string | null;
  /** The item id of the last plan card. */
  planItem: string | null;
  errorCode: string | null;
  toolCallCount: number;
  /** The run's budgets as its last stop or end recorded them (issue 28 item 6), or null. */
  budget: RunBudgetView | null;
  readonly usage: TokenCounts;
  readonly usageRows: ViewerUsageRow[];
  readonly waits: Map<string, ViewerPendingRequest>;
  readonly intents: Map<string, { toolName: string; arguments: JsonObject }>;
  readonly decisions: ViewerDecisions;
  readonly cards: Map<string, ViewerCardCommand>;
  readonly plans: ViewerPlans;
  /** The display key a step's next attempt appends to (model-step's `Continuation.join`), by step. */
  readonly joins: Map<number, string | undefined>;
}

/**
 * A fresh reducer state for one run.
 *
 * @example
 * const state = createRunViewState({ runId: "r1", sessionKey: "agent" });
 */
export function createRunViewState(options: RunViewOptions): RunViewState {
  return {
    options,
    meter: createContextMeter(options.contextWindow ?? 128_000),
    output: null,
    status: "running",
    start: null,
    prompt: null,
    lastPlan: null,
    planItem: null,
    errorCode: null,
    toolCallCount: 0,
    budget: null,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    usageRows: [],
    waits: new Map(),
    intents: new Map(),
    decisions: {},
    cards: new Map(),
    plans: {},
    joins: new Map(),
  };
}
