import type { SessionEvent, SessionEventType } from "../../../domain/agent/session-events.js";
import type { SessionStore } from "../../../ports/session-store.js";
import type { TokenCounts } from "../../../ports/token-usage.js";
import type { ViewerRunStatus } from "./run-replay.js";

/** A wait of a run that has no decision in the log yet. */
export interface ViewerRunWait {
  requestId: string;
  kind: "tool_approval" | "question" | "plan";
  toolCallId?: string;
  /** The wait event's id (a plan's ends with `/plan/<n>/wait`). */
  eventId: string;
  /** A decision already recorded for it (in the page, VIEW-8) that its run has not taken up yet. */
  recorded?: "approved" | "denied" | "answered" | "declined";
}

/** One run of a session, as the viewer lists it. */
export interface ViewerRunSummary {
  runId: string;
  prompt: string | null;
  model: string | null;
  /** The seq of the run's first event; a run view reads from here. */
  startSeq: number;
  startedAt: number;
  updatedAt: number;
  status: ViewerRunStatus;
  errorCode: string | null;
  /** Billing usage of the run (all its usage events). */
  usage: TokenCounts;
  toolCallCount: number;
  /** Waits without a decision; answerable only while `status` is `waiting`. */
  waits: ViewerRunWait[];
}

/** The event types the index reads: few per run, never the bodies of messages and results. */
const INDEX_TYPES: readonly SessionEventType[] = ["run_started", "user_message", "usage", "tool_intent", "approval_wait", "approval_decision", "run_finished", "run_stopped"];
const PAGE = 1000;
const KEYS = ["input", "output", "cacheRead", "cacheWrite", "total"] as const;

/**
 * The runs of one session, kept up to date incrementally (VIEW-1): each `refresh` reads only the
 * events appended since the last one, of the few types that say how runs start, wait and end,
 * in pages of `readAfter(afterSeq, { types, limit })`. Opening a session again never rescans
 * its history.
 *
 * @example
 * const index = createSessionRunIndex(store);
 * const runs = await index.refresh(); // newest first
 */
export function createSessionRunIndex(store: SessionStore) {
  let scanned = 0;
  const runs = new Map<string, ViewerRunSummary>();
  const waits = new Map<string, Map<string, ViewerRunWait>>();

  const runOf = (event: SessionEvent): ViewerRunSummary => {
    let run = runs.get(event.runId);
    if (!run) {
      run = { runId: event.runId, prompt: null, model: null, startSeq: event.seq, startedAt: event.at, updatedAt: event.at, status: "running", errorCode: null, usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }, toolCallCount: 0, waits: [] };
      runs.set(event.runId, run);
      waits.set(event.runId, new Map());
    }
    return run;
  };

  const apply = (event: SessionEvent): void => {
    const run = runOf(event);
    const open = waits.get(event.runId)!;
    run.updatedAt = event.at;
    if (event.type !== "run_stopped" && event.type !== "run_finished" && run.status !== "running" && run.status !== "completed") run.status = "running";
    switch (event.type) {
      case "run_started":
        // The start event is committed with the first step; its payload says when the run began (VIEW-8).
        if (event.payload.startedAt !== undefined && event.seq === run.startSeq) run.startedAt = event.payload.startedAt;
        run.model = event.payload.model;
        run.prompt ??= event.payload.prompt;
        break;
      case "user_message":
        if (run.prompt === null && typeof event.payload.message.content === "string") run.prompt = event.payload.message.content;
        break;
      case "usage":
        for (const key of KEYS) run.usage[key] += event.payload.entry[key];
        break;
      case "tool_intent":
        run.toolCallCount++;
        break;
      case "approval_wait":
        open.set(event.payload.requestId, { requestId: event.payload.requestId, kind: event.payload.kind, eventId: event.eventId, ...(event.payload.toolCallId === undefined ? {} : { toolCallId: event.payload.toolCallId }) });
        break;
      case "approval_decision":
        open.delete(event.payload.requestId);
        break;
      case "run_finished":
        run.status = "completed";
        run.errorCode = null;
        break;
      case "run_stopped":
        run.status = event.payload.status;
        run.errorCode = event.payload.status === "failed" ? (event.payload.code ?? "internal") : null;
        break;
    }
    run.waits = run.status === "waiting" ? [...open.values()] : [];
  };

  return {
    /** Reads what was appended since the last refresh; resolves every run, newest first. */
    async refresh(): Promise<ViewerRunSummary[]> {
      const head = await store.head();
      for (;;) {
        const page = await store.readAfter(scanned, { types: INDEX_TYPES, limit: PAGE });
        for (const event of page) apply(event);
        if (page.length < PAGE) {
          // Everything up to the head read before the query was returned.
          scanned = Math.max(scanned, head.lastSeq, page.at(-1)?.seq ?? 0);
          break;
        }
        scanned = page.at(-1)!.seq;
      }
      return this.runs();
    },
    /** The runs as last refreshed, newest first (copies). */
    runs(): ViewerRunSummary[] {
      return [...runs.values()].sort((a, b) => b.startSeq - a.startSeq).map((run) => structuredClone(run));
    },
    /** One run as last refreshed, or `null`. */
    run(runId: string): ViewerRunSummary | null {
      const run = runs.get(runId);
      return run ? structuredClone(run) : null;
    },
  };
}

/** The index returned by {@link createSessionRunIndex}. */
export type SessionRunIndex = ReturnType<typeof createSessionRunIndex>;
