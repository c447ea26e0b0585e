/**
 * A run's timeline (VIEW-7): where its seconds went — each model request, each tool call and
 * each wait for a person — rebuilt from the run's durable events, the same ones the run view
 * replays. Pure: it runs in the browser bundle too.
 *
 * Times come from the events' `timing` (model requests, tool calls; VIEW-7) and `startedAt`
 * (the run's start); a wait lasts from its `approval_wait` to its `approval_decision` (both
 * committed when they happen). A log written before those fields existed still draws, from
 * commit times (`at`), and such bars are marked `estimated`.
 */
import type { SessionEvent } from "../../../domain/agent/session-events.js";

/** What a bar stands for. */
export type ViewerTimelineKind = "model" | "tool" | "wait";

/** One span of the run. */
export interface ViewerTimelineBar {
  /** Stable across views: the id of the event that ended (or opened) it. */
  id: string;
  kind: ViewerTimelineKind;
  /** `step 1`, `step 2 · attempt 2`, the tool's name, `approval · <tool>`, `question`, `plan`. */
  label: string;
  startedAt: number;
  /** `null` while it lasts (a wait not answered yet). */
  endedAt: number | null;
  /** `failed` (a tool error), `retried` (a model attempt that was retried). */
  outcome?: "failed" | "retried";
  toolCallId?: string;
  /** The times were inferred from when events were committed (a log older than VIEW-7). */
  estimated: boolean;
}

/** The timeline of one run. */
export interface ViewerRunTimeline {
  /** When the run began; `null` before its start event is read. */
  startedAt: number | null;
  /** Its last moment: the latest bar end or event, or `now` while a bar is open. */
  endedAt: number | null;
  /** Bars in start order. */
  bars: ViewerTimelineBar[];
  /** Total time of each kind (ms; an open wait counts up to `endedAt`). */
  totals: Record<ViewerTimelineKind, number>;
}

/** Options of {@link buildRunTimeline}. */
export interface RunTimelineOptions {
  /** The time an open wait lasts until (ms since epoch); default: the run's last event. */
  now?: number;
}

/**
 * The timeline of one run from its events in `seq` order (events of other runs are skipped).
 *
 * @example
 * const timeline = buildRunTimeline(await store.readRun(runId));
 * timeline.bars.map((bar) => `${bar.kind} ${bar.label} ${bar.endedAt! - bar.startedAt} ms`);
 */
export function buildRunTimeline(events: readonly SessionEvent[], options: RunTimelineOptions = {}): ViewerRunTimeline {
  const runId = events.find((event) => event.type === "run_started")?.runId ?? events[0]?.runId;
  const bars: ViewerTimelineBar[] = [];
  const tools = new Map<string, { name: string; readyAt: number }>();
  const waits = new Map<string, ViewerTimelineBar>();
  let startedAt: number | null = null;
  let lastAt: number | null = null;
  // The commit time before the current append: where an estimated model request began.
  let previousCommit: number | null = null;
  let commitAt: number | null = null;

  for (const event of events) {
    if (event.runId !== runId) continue;
    if (event.at !== commitAt) {
      previousCommit = commitAt;
      commitAt = event.at;
    }
    lastAt = Math.max(lastAt ?? event.at, event.at);
    switch (event.type) {
      case "run_started":
        startedAt = event.payload.startedAt ?? event.at;
        break;
      case "model_retry":
      case "assistant_message": {
        const { step, attempt, timing } = event.payload;
        const label = `step ${step + 1}${attempt > 0 ? ` · attempt ${attempt + 1}` : ""}`;
        const start = timing?.startedAt ?? previousCommit ?? startedAt ?? event.at;
        bars.push({ id: event.eventId, kind: "model", label, startedAt: start, endedAt: timing?.endedAt ?? event.at, estimated: timing === undefined, ...(event.type === "model_retry" ? { outcome: "retried" as const } : {}) });
        break;
      }
      case "tool_intent":
        tools.set(event.payload.toolCallId, { name: event.payload.toolName, readyAt: event.at });
        break;
      case "approval_wait": {
        const { requestId, kind, toolCallId } = event.payload;
        const tool = toolCallId === undefined ? undefined : tools.get(toolCallId)?.name;
        const label = kind === "tool_approval" ? `approval${tool ? ` · ${tool}` : ""}` : kind === "question" ? "question" : "plan";
        if (!waits.has(requestId)) {
          const bar: ViewerTimelineBar = { id: event.eventId, kind: "wait", label, startedAt: event.at, endedAt: null, estimated: false, ...(toolCallId === undefined ? {} : { toolCallId }) };
          waits.set(requestId, bar);
          bars.push(bar);
        }
        break;
      }
      case "approval_decision": {
        const { requestId, timing } = event.payload;
        const bar = waits.get(requestId);
        if (bar && bar.endedAt === null) bar.endedAt = event.at;
        else if (!bar && timing) {
          // Answered while the run waited in its process (a terminal prompt): no wait event, its own timing.
          const toolCallId = toolCallOf(event.eventId, tools);
          const tool = toolCallId === undefined ? undefined : tools.get(toolCallId);
          const label = tool === undefined ? "approval" : tool.name === "ask_user" ? "question" : `approval · ${tool.name}`;
          bars.push({ id: event.eventId, kind: "wait", label, startedAt: timing.startedAt, endedAt: timing.endedAt, estimated: false, ...(toolCallId === undefined ? {} : { toolCallId }) });
        }
        const waited = bar?.toolCallId ?? toolCallOf(event.eventId, tools);
        // A tool approved after a wait is ready only now (an estimated tool bar starts here).
        if (waited !== undefined && tools.has(waited)) tools.get(waited)!.readyAt = event.at;
        break;
      }
      case "tool_result": {
        const { message, timing } = event.payload;
        const tool = tools.get(message.toolCallId);
        const start = timing?.startedAt ?? tool?.readyAt ?? event.at;
        bars.push({ id: event.eventId, kind: "tool", label: tool?.name ?? message.toolName, startedAt: start, endedAt: timing?.endedAt ?? event.at, estimated: timing === undefined, toolCallId: message.toolCallId, ...(message.isError ? { outcome: "failed" as const } : {}) });
        break;
      }
    }
  }

  const open = bars.some((bar) => bar.endedAt === null);
  const ends = bars.map((bar) => bar.endedAt ?? bar.startedAt);
  const last = lastAt === null && ends.length === 0 ? null : Math.max(lastAt ?? -Infinity, ...ends);
  const endedAt = open && options.now !== undefined && last !== null ? Math.max(last, options.now) : last;
  const totals: Record<ViewerTimelineKind, number> = { model: 0, tool: 0, wait: 0 };
  for (const bar of bars) totals[bar.kind] += Math.max(0, (bar.endedAt ?? endedAt ?? bar.startedAt) - bar.startedAt);
  bars.sort((a, b) => a.startedAt - b.startedAt);
  return { startedAt: startedAt ?? (bars[0]?.startedAt ?? null), endedAt, bars, totals };
}

/** The tool call a decision event belongs to: its id is `<runId>/tool/<toolCallId>/decision`. */
function toolCallOf(eventId: string, tools: ReadonlyMap<string, unknown>): string | undefined {
  const match = /\/tool\/(.+)\/decision$/.exec(eventId);
  return match && tools.has(match[1]!) ? match[1] : undefined;
}

/**
 * A duration as a person reads it: `340 ms`, `1.2 s`, `3 min 05 s`, `1 h 02 min`.
 *
 * @example
 * formatDuration(1234) // "1.2 s"
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "–";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(Math.round(ms / 100) / 10).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, "0")} s`;
  const minutes = Math.round(seconds / 60);
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`;
}
