/**
 * What a run came to, read from its events, and the structured diff of a replay against the
 * original (REPLAY-2): final text, tool sequence, approvals, tokens, cost, latency.
 */
import { canonicalJson } from "../stable-hash.js";
import type { JsonObject } from "../json.js";
import type { SessionEvent } from "../agent/session-events.js";
import { usageCostMicros, type ModelPrice } from "../budget/model-price.js";

/** The facts of one run that a diff compares. */
export interface RunFacts {
  runId: string;
  /** `completed`, or how the run stopped (`waiting`, `cancelled`, `failed`); `running` without an end. */
  status: "completed" | "waiting" | "cancelled" | "failed" | "running";
  /** The text of the run's last answer (its last assistant message's text blocks). */
  finalText: string;
  /** The tool calls in order: name and arguments. */
  tools: Array<{ name: string; arguments: JsonObject; replay: "safe" | "never" }>;
  /** The decisions a person (or a rule) made in the run, in order. */
  approvals: Array<{ requestId: string; outcome: string }>;
  tokens: { input: number; output: number; total: number };
  /** USD, from the given price; `null` without one. */
  costUsd: number | null;
  /** From the run's start to its last event (ms, the run's clock). */
  latencyMs: number;
  /** Model responses (steps). */
  steps: number;
}

/** One compared field: both values and whether they are equal. */
export interface DiffField<T> {
  original: T;
  replay: T;
  equal: boolean;
}

/** The structured diff of a replay against its original run (REPLAY-2). */
export interface RunDiff {
  /**
   * True when status, final text and tool sequence are equal: the replay behaved as the original.
   * Approvals are not part of it — a call answered from the recording needs no decision.
   */
  same: boolean;
  status: DiffField<RunFacts["status"]>;
  finalText: DiffField<string>;
  /** Tool sequences as `name(canonical arguments)` lines. */
  toolSequence: DiffField<string[]>;
  approvals: DiffField<string[]>;
  tokens: DiffField<RunFacts["tokens"]> & { delta: number };
  costUsd: DiffField<number | null> & { delta: number | null };
  latencyMs: DiffField<number> & { delta: number };
  steps: DiffField<number>;
}

/**
 * The facts of a run from its events (`store.readRun(runId)`).
 *
 * @example
 * const facts = runFacts(await store.readRun(runId), { input: 3, output: 15 });
 */
export function runFacts(events: readonly SessionEvent[], price?: ModelPrice | null): RunFacts {
  const facts: RunFacts = { runId: events[0]?.runId ?? "", status: "running", finalText: "", tools: [], approvals: [], tokens: { input: 0, output: 0, total: 0 }, costUsd: null, latencyMs: 0, steps: 0 };
  const counts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
  let startedAt = events[0]?.at ?? 0;
  for (const event of events) {
    switch (event.type) {
      case "run_started":
        startedAt = event.payload.startedAt ?? event.at;
        break;
      case "assistant_message": {
        facts.steps++;
        const text = event.payload.message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
        if (text !== "") facts.finalText = text;
        break;
      }
      case "tool_intent":
        facts.tools.push({ name: event.payload.toolName, arguments: event.payload.arguments, replay: event.payload.replay });
        break;
      case "approval_decision":
        facts.approvals.push({ requestId: event.payload.requestId, outcome: event.payload.outcome });
        break;
      case "usage":
        for (const key of ["input", "output", "cacheRead", "cacheWrite", "total"] as const) counts[key] += event.payload.entry[key];
        break;
      case "run_finished":
        facts.status = "completed";
        break;
      case "run_stopped":
        facts.status = event.payload.status;
        break;
    }
  }
  facts.tokens = { input: counts.input, output: counts.output, total: counts.total };
  facts.costUsd = price ? usageCostMicros(counts, price) / 1_000_000 : null;
  facts.latencyMs = Math.max(0, (events.at(-1)?.at ?? startedAt) - startedAt);
  return facts;
}

const field = <T>(original: T, replay: T): DiffField<T> => ({ original, replay, equal: canonicalJson(original) === canonicalJson(replay) });

/**
 * The structured diff of a replay's facts against the original's. Approvals compare by outcome
 * in order (request ids name the run, so they always differ).
 *
 * @example
 * const diff = diffRuns(runFacts(originalEvents), runFacts(replayEvents));
 * if (!diff.toolSequence.equal) console.log(diff.toolSequence);
 */
export function diffRuns(original: RunFacts, replay: RunFacts): RunDiff {
  const sequence = (facts: RunFacts) => facts.tools.map((tool) => `${tool.name}(${canonicalJson(tool.arguments)})`);
  const decisions = (facts: RunFacts) => facts.approvals.map((approval) => approval.outcome);
  const diff: Omit<RunDiff, "same"> = {
    status: field(original.status, replay.status),
    finalText: field(original.finalText, replay.finalText),
    toolSequence: field(sequence(original), sequence(replay)),
    approvals: field(decisions(original), decisions(replay)),
    tokens: { ...field(original.tokens, replay.tokens), delta: replay.tokens.total - original.tokens.total },
    costUsd: { ...field(original.costUsd, replay.costUsd), delta: original.costUsd === null || replay.costUsd === null ? null : replay.costUsd - original.costUsd },
    latencyMs: { ...field(original.latencyMs, replay.latencyMs), delta: replay.latencyMs - original.latencyMs },
    steps: field(original.steps, replay.steps),
  };
  return { same: diff.status.equal && diff.finalText.equal && diff.toolSequence.equal, ...diff };
}
