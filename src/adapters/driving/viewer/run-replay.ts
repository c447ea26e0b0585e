/**
 * The output items of one run rebuilt from its durable events (VIEW-1), for the viewer: the
 * domain's event → view reducer (`domain/agent/run-view-reducer.ts`, the agent's own projection
 * handlers) applied page by page, with the items kept as the same objects while unchanged.
 * Pure: it runs in the browser bundle too.
 */
import type { RunBudgetView } from "../../../domain/budget/budget-view.js";
import type { AgentContextUsage } from "../../../domain/agent/context-meter.js";
import { applyRunEvent } from "../../../domain/agent/run-view-reducer.js";
import { createRunViewState, type RunViewOptions, type ViewerCardCommand, type ViewerDecisions, type ViewerPendingRequest, type ViewerPlans, type ViewerRunStatus, type ViewerUsageRow } from "../../../domain/agent/run-view.js";
import type { RunStartedPayload, SessionEvent } from "../../../domain/agent/session-events.js";
import type { OutputItem, OutputItemStreamChunk } from "../../../domain/output-items.js";
import { createOutputStreamAccumulator } from "../../../domain/output-stream.js";
import type { TokenCounts } from "../../../ports/token-usage.js";

export type { ViewerCardCommand, ViewerPendingRequest, ViewerRunStatus, ViewerUsageRow } from "../../../domain/agent/run-view.js";

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
  decisions: ViewerDecisions;
  cards: ViewerCardCommand[];
  /** Plan cards by item id, with their decision (`pending` while the run waits for it). */
  plans: ViewerPlans;
  toolCallCount: number;
  /** Spent, limit and remaining per budget, as the run's last stop or end recorded them; null without budgets. */
  budget: RunBudgetView | null;
  /** The error code of a failed run. */
  errorCode: string | null;
  /** The seq of the last event applied. */
  lastSeq: number;
}

/** Options of {@link createRunReplay}. */
export type RunReplayOptions = RunViewOptions;

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
  const state = createRunViewState(options);
  const accumulator = createOutputStreamAccumulator();
  let lastSeq = 0;
  // The view keeps unchanged items as the same objects, so a page of 10 000 events copies only
  // what changed since the last view, and a renderer can skip unchanged rows by identity.
  const changed = new Set<string>();
  const order: string[] = [];
  const shown = new Map<string, OutputItem>();
  const push = (chunk: OutputItemStreamChunk): void => {
    accumulator.push(chunk);
    const id = chunk.type === "add" ? chunk.item.id : chunk.id;
    if (!shown.has(id) && !changed.has(id)) order.push(id);
    changed.add(id);
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
        for (const chunk of applyRunEvent(state, event)) push(chunk);
      }
    },
    /** Marks everything up to `seq` as seen (a page that held no event of this run). */
    seen(seq: number): void {
      if (seq > lastSeq) lastSeq = seq;
    },
    /** The view after the events pushed so far. */
    view(): ViewerRunView {
      // Only a run stopped to wait has requests to answer; a running one may still ask.
      const pending = state.status === "waiting" ? [...state.waits.values()] : [];
      return {
        runId,
        status: state.status,
        start: state.start,
        prompt: state.prompt,
        items: items(),
        ring: state.meter.usage(),
        usage: { ...state.usage },
        usageRows: state.usageRows.map((row) => ({ ...row, counts: { ...row.counts } })),
        pending,
        decisions: structuredClone(state.decisions),
        cards: [...state.cards.values()].map((card) => structuredClone(card)),
        plans: structuredClone(state.plans),
        toolCallCount: state.toolCallCount,
        budget: state.budget === null ? null : structuredClone(state.budget),
        errorCode: state.errorCode,
        lastSeq,
      };
    },
  };
}

/** The replay returned by {@link createRunReplay}. */
export type RunReplay = ReturnType<typeof createRunReplay>;
