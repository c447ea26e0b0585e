/**
 * A conversation as a person reads it (UI-7), from one session's durable events in `seq` order,
 * across its runs: the messages, each tool call with its arguments and result, each request for a
 * person (a tool approval, a question, a plan) with its decision, who answered and how long the
 * wait was, and each compaction with its summary. Pure: the viewer serves it, and any surface that
 * shows a conversation's history (a chat route) can build the same facts.
 */
import type { JsonObject } from "../json.js";
import type { DecisionAnswerer } from "./decision-answerer.js";
import type { SessionEvent } from "./session-events.js";

/** Where an entry sits: its run, the seq of the event that opened it, and when that was committed. */
interface TranscriptPlace {
  runId: string;
  seq: number;
  at: number;
}

/** A run began: its prompt and model, and how it stands now. */
export interface TranscriptRun extends TranscriptPlace {
  type: "run";
  model: string | null;
  status: "running" | "waiting" | "completed" | "cancelled" | "failed";
  /** The error code of a failed run. */
  errorCode?: string;
}

/** A message: the person's (`user`), the model's (`assistant`), or one the runtime wrote for the person (a plan's go-ahead: `by: "runtime"`). */
export interface TranscriptMessage extends TranscriptPlace {
  type: "message";
  role: "user" | "assistant";
  by?: "runtime";
  text: string;
  /** The model's reasoning before this answer, when it showed any. */
  reasoning?: string;
}

/** A tool call and, once it came, its result. */
export interface TranscriptToolCall extends TranscriptPlace {
  type: "tool";
  toolCallId: string;
  name: string;
  arguments: JsonObject;
  result: { text: string; isError: boolean; at: number } | null;
}

/** A request for a person and its decision. */
export interface TranscriptDecision extends TranscriptPlace {
  type: "decision";
  requestId: string;
  kind: "tool_approval" | "question" | "plan";
  toolCallId?: string;
  /** What was asked: the tool's name, the question, the plan text. */
  subject: string;
  /** `null` while it waits. */
  outcome: "approved" | "denied" | "answered" | "declined" | null;
  /** A question's answer, a denial's reason or a declined plan's feedback. */
  answer?: string;
  /** Who answered, when the answering surface said so; `null` when unknown (older logs, a host's port that does not say). */
  answeredBy: DecisionAnswerer | null;
  askedAt: number;
  /** `null` while it waits. */
  answeredAt: number | null;
  /** `answeredAt - askedAt`; `null` while it waits. */
  waitMs: number | null;
}

/** The session's context was compacted: the summary it continues from. */
export interface TranscriptCompaction extends TranscriptPlace {
  type: "compaction";
  summary: string;
  /** Who wrote the summary: the model, or the mechanical fold when the model failed. */
  source: "model" | "fallback";
  /** A `/compact` a person asked for (SES-11), else automatic (SES-7). */
  manual: boolean;
  /** Tokens in context before it. */
  usedBefore: number;
}

/** One entry of a transcript. */
export type TranscriptEntry = TranscriptRun | TranscriptMessage | TranscriptToolCall | TranscriptDecision | TranscriptCompaction;

const textOf = (content: string | ReadonlyArray<{ type: string; text?: string }>): string =>
  typeof content === "string" ? content : content.flatMap((block) => (block.type === "text" && block.text !== undefined ? [block.text] : [])).join("");

const kindOf = (requestId: string): TranscriptDecision["kind"] => (requestId.startsWith("approval:") ? "tool_approval" : requestId.startsWith("plan:") ? "plan" : "question");

/**
 * The transcript of a session from its events (all of them, or a prefix, in `seq` order).
 * Entries come in the order their first event was written; a tool's result and a request's
 * decision fill in the entry they belong to.
 *
 * @example
 * const entries = buildTranscript(await store.readAfter(0, { limit: 10_000 }));
 * entries.filter((entry) => entry.type === "decision").map((d) => `${d.subject}: ${d.outcome} by ${d.answeredBy?.surface} after ${d.waitMs} ms`);
 */
export function buildTranscript(events: readonly SessionEvent[]): TranscriptEntry[] {
  const transcript = createTranscript();
  transcript.push(events);
  return transcript.entries();
}

/**
 * A transcript kept up to date as the log grows: `push` the events appended since (in `seq`
 * order; events already pushed are skipped), read `entries()` — the same as
 * {@link buildTranscript} over every event pushed so far.
 *
 * @example
 * const transcript = createTranscript();
 * transcript.push(await store.readAfter(transcript.lastSeq(), { limit: 1000 }));
 */
export function createTranscript() {
  const entries: TranscriptEntry[] = [];
  const runs = new Map<string, TranscriptRun>();
  const tools = new Map<string, TranscriptToolCall>();
  const decisions = new Map<string, TranscriptDecision>();
  // The last plan text of each run: a plan's wait and decision name it.
  const plans = new Map<string, string>();

  const subjectOf = (runId: string, kind: TranscriptDecision["kind"], toolCallId: string | undefined): string => {
    const tool = toolCallId === undefined ? undefined : tools.get(toolCallId);
    if (kind === "plan") return plans.get(runId) ?? "";
    if (kind === "question") return typeof tool?.arguments.question === "string" ? tool.arguments.question : (tool?.name ?? "");
    return tool?.name ?? "";
  };

  let lastSeq = 0;

  const apply = (event: SessionEvent): void => {
    const place = { runId: event.runId, seq: event.seq, at: event.at };
    // A run that stopped and has later events was started again.
    const started = runs.get(event.runId);
    if (started && started.status !== "running" && event.type !== "run_stopped" && event.type !== "run_finished") {
      started.status = "running";
      delete started.errorCode;
    }
    switch (event.type) {
      case "run_started": {
        if (runs.has(event.runId)) break;
        const run: TranscriptRun = { type: "run", ...place, at: event.payload.startedAt ?? event.at, model: event.payload.model, status: "running" };
        runs.set(event.runId, run);
        entries.push(run);
        break;
      }
      case "user_message": {
        const runtime = /\/plan\/\d+\/continue$/.test(event.eventId);
        entries.push({ type: "message", ...place, role: "user", ...(runtime ? { by: "runtime" as const } : {}), text: textOf(event.payload.message.content) });
        break;
      }
      case "assistant_message": {
        const { content } = event.payload.message;
        const reasoning = content.flatMap((block) => (block.type === "reasoning" ? [block.text] : [])).join("");
        const text = textOf(content);
        if (text !== "" || reasoning !== "") entries.push({ type: "message", ...place, role: "assistant", text, ...(reasoning === "" ? {} : { reasoning }) });
        for (const block of content) {
          if (block.type !== "toolCall" || tools.has(block.id)) continue;
          const tool: TranscriptToolCall = { type: "tool", ...place, toolCallId: block.id, name: block.name, arguments: block.arguments, result: null };
          tools.set(block.id, tool);
          entries.push(tool);
        }
        break;
      }
      case "tool_result": {
        const { message } = event.payload;
        const tool = tools.get(message.toolCallId);
        if (tool) tool.result = { text: textOf(message.content), isError: message.isError, at: event.at };
        break;
      }
      case "plan":
        plans.set(event.runId, event.payload.text);
        break;
      case "approval_wait": {
        const { requestId, kind, toolCallId } = event.payload;
        if (decisions.has(requestId)) break;
        const decision: TranscriptDecision = { type: "decision", ...place, requestId, kind, ...(toolCallId === undefined ? {} : { toolCallId }), subject: subjectOf(event.runId, kind, toolCallId), outcome: null, answeredBy: null, askedAt: event.at, answeredAt: null, waitMs: null };
        decisions.set(requestId, decision);
        entries.push(decision);
        break;
      }
      case "approval_decision": {
        const { requestId, outcome, values, reason, timing, answeredBy } = event.payload;
        let decision = decisions.get(requestId);
        if (!decision) {
          // Decided while the run waited in its process (no pause): its own timing says how long.
          const toolCallId = /\/tool\/(.+)\/decision$/.exec(event.eventId)?.[1];
          const kind = kindOf(requestId);
          decision = { type: "decision", ...place, requestId, kind, ...(toolCallId === undefined ? {} : { toolCallId }), subject: subjectOf(event.runId, kind, toolCallId), outcome: null, answeredBy: null, askedAt: timing?.startedAt ?? event.at, answeredAt: null, waitMs: null };
          decisions.set(requestId, decision);
          entries.push(decision);
        }
        if (decision.outcome !== null) break;
        const answer = typeof values?.answer === "string" ? values.answer : typeof values?.feedback === "string" ? values.feedback : reason;
        // When the person answered: as the answer said, else as the run took it up.
        const answeredAt = answeredBy?.at ?? timing?.endedAt ?? event.at;
        Object.assign(decision, { outcome, ...(answer === undefined ? {} : { answer }), answeredBy: answeredBy ?? null, answeredAt, waitMs: Math.max(0, answeredAt - decision.askedAt) });
        break;
      }
      case "compaction": {
        const { summary, source, manual, usedBefore } = event.payload;
        entries.push({ type: "compaction", ...place, summary, source: source ?? "model", manual: manual === true, usedBefore });
        break;
      }
      case "run_finished":
      case "run_stopped": {
        const run = runs.get(event.runId);
        if (!run) break;
        run.status = event.payload.status;
        if (event.type === "run_stopped" && event.payload.status === "failed") run.errorCode = event.payload.code ?? "internal";
        else delete run.errorCode;
        break;
      }
    }
  };

  return {
    /** Applies events in `seq` order; events at or before the last one applied are skipped. */
    push(events: readonly SessionEvent[]): void {
      for (const event of events) {
        if (event.seq <= lastSeq) continue;
        lastSeq = event.seq;
        apply(event);
      }
    },
    /** The seq of the last event applied (0 before any). */
    lastSeq: (): number => lastSeq,
    /** The entries so far (copies: later events do not change them). */
    entries: (): TranscriptEntry[] => structuredClone(entries),
  };
}

/** The transcript returned by {@link createTranscript}. */
export type Transcript = ReturnType<typeof createTranscript>;
