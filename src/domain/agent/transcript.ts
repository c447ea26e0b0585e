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
import { createSessionWalk, type WalkedToolCall } from "./session-walk.js";

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

  const walk = createSessionWalk();

  const subjectOf = (runId: string, kind: TranscriptDecision["kind"], call: WalkedToolCall | undefined): string => {
    if (kind === "plan") return plans.get(runId) ?? "";
    if (kind === "question") return typeof call?.arguments.question === "string" ? call.arguments.question : (call?.name ?? "");
    return call?.name ?? "";
  };

  let lastSeq = 0;

  const apply = (event: SessionEvent): void => {
    const place = { runId: event.runId, seq: event.seq, at: event.at };
    const { step, resumed } = walk.step(event);
    const run = runs.get(event.runId);
    if (resumed && run) {
      run.status = "running";
      delete run.errorCode;
    }
    switch (step?.type) {
      case "run": {
        const started: TranscriptRun = { type: "run", ...place, at: step.at, model: step.model, status: "running" };
        runs.set(event.runId, started);
        entries.push(started);
        break;
      }
      case "user":
        entries.push({ type: "message", ...place, role: "user", ...(step.byRuntime ? { by: "runtime" as const } : {}), text: step.text });
        break;
      case "assistant":
        if (step.text !== "" || step.reasoning !== "") entries.push({ type: "message", ...place, role: "assistant", text: step.text, ...(step.reasoning === "" ? {} : { reasoning: step.reasoning }) });
        for (const call of step.calls) {
          const tool: TranscriptToolCall = { type: "tool", ...place, toolCallId: call.id, name: call.name, arguments: call.arguments, result: null };
          tools.set(call.id, tool);
          entries.push(tool);
        }
        break;
      case "tool-result": {
        const tool = tools.get(step.toolCallId);
        if (tool) tool.result = { text: step.text, isError: step.isError, at: step.at };
        break;
      }
      case "plan":
        plans.set(event.runId, step.text);
        break;
      case "wait": {
        if (decisions.has(step.requestId)) break;
        const decision: TranscriptDecision = { type: "decision", ...place, requestId: step.requestId, kind: step.kind, ...(step.toolCallId === undefined ? {} : { toolCallId: step.toolCallId }), subject: subjectOf(event.runId, step.kind, step.call), outcome: null, answeredBy: null, askedAt: event.at, answeredAt: null, waitMs: null };
        decisions.set(step.requestId, decision);
        entries.push(decision);
        break;
      }
      case "decision": {
        const { values, reason, timing, answeredBy } = step.payload;
        let decision = decisions.get(step.requestId);
        if (!decision) {
          decision = { type: "decision", ...place, requestId: step.requestId, kind: step.kind, ...(step.toolCallId === undefined ? {} : { toolCallId: step.toolCallId }), subject: subjectOf(event.runId, step.kind, step.call), outcome: null, answeredBy: null, askedAt: step.askedAt, answeredAt: null, waitMs: null };
          decisions.set(step.requestId, decision);
          entries.push(decision);
        }
        if (decision.outcome !== null) break;
        const answer = typeof values?.answer === "string" ? values.answer : typeof values?.feedback === "string" ? values.feedback : reason;
        // When the person answered: as the answer said, else as the run took it up.
        const answeredAt = answeredBy?.at ?? timing?.endedAt ?? event.at;
        Object.assign(decision, { outcome: step.outcome, ...(answer === undefined ? {} : { answer }), answeredBy: answeredBy ?? null, answeredAt, waitMs: Math.max(0, answeredAt - decision.askedAt) });
        break;
      }
      case "compaction": {
        const { summary, source, manual, usedBefore } = step.payload;
        entries.push({ type: "compaction", ...place, summary, source: source ?? "model", manual: manual === true, usedBefore });
        break;
      }
      case "end":
        if (!run) break;
        run.status = step.status;
        if (step.status === "failed") run.errorCode = step.code ?? "internal";
        else delete run.errorCode;
        break;
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
