// SES-4 crash torture: a scenario is SIGKILLed at one persisted step boundary, resumed by a fresh
// process, and its session checked. Shared by the jest test and `npm run torture`.
import { createHash } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { join } from "node:path";
import type { ChildMessage, PostgresTarget } from "../fixtures/protocol.js";
import { checkSession, readSessionEvents, readUsageTotal, type SessionCheck } from "./checks.js";
import { runChild, type ChildOutcome } from "./processes.js";

/**
 * Where a scenario's process kills itself: just before, or just after, its nth committed append,
 * or the append carrying the event `<runId>/<event>` (stable when the runtime adds appends).
 */
export type KillPoint = { scenario: string; when: "before" | "after" } & ({ nth: number } | { event: string });

/** The outcome of one kill point (or one chain of kills). */
export interface KillPointResult {
  label: string;
  /** How many SIGKILLs happened (1 for a kill point; one per process for a chain). */
  kills: number;
  processes: number;
  violations: string[];
  check: SessionCheck | null;
}

const RUN_ID = "run-torture";

/** Where the torture keeps sessions: SQLite files in each folder (default) or PostgreSQL (PG-3). */
export interface TortureBackend {
  /** PG-3: a PostgreSQL server; each scenario folder gets a schema of its own on it. */
  postgresUrl?: string;
}

/**
 * The PostgreSQL schema of a scenario folder (PG-3), or `undefined` on SQLite.
 *
 * @example
 * postgresTargetOf("/tmp/t/build-before-append_3", { postgresUrl }) // { url, schema: "torture_…" }
 */
export function postgresTargetOf(dir: string, backend: TortureBackend = {}): PostgresTarget | undefined {
  if (!backend.postgresUrl) return undefined;
  return { url: backend.postgresUrl, schema: `torture_${createHash("sha256").update(dir).digest("hex").slice(0, 24)}` };
}

const withBackend = (dir: string, backend: TortureBackend) => {
  const postgres = postgresTargetOf(dir, backend);
  return postgres ? { postgres } : {};
};

/** Pauses of the same request must carry the same request id in every process (SES-8). */
function checkPauses(outcomes: readonly ChildOutcome[], violations: string[]): void {
  const byCall = new Map<string, string>();
  for (const pause of outcomes.flatMap((outcome) => outcome.pauses)) {
    const key = `${pause.kind}:${pause.toolCallId ?? "plan"}`;
    const seen = byCall.get(key);
    if (seen !== undefined && seen !== pause.requestId) violations.push(`${key} paused with request ids ${seen} and ${pause.requestId}`);
    byCall.set(key, pause.requestId);
  }
}

/** The number of committed appends of an uninterrupted run: its kill points are 1..n before and after. */
export async function countAppends(root: string, scenario: string, backend: TortureBackend = {}): Promise<number> {
  const dir = join(root, `${scenario}-reference`);
  const outcome = await runChild({ dir, scenario, runId: RUN_ID, ...withBackend(dir, backend) });
  if (outcome.done?.status !== "completed") throw new Error(`reference run of ${scenario} did not complete: ${outcome.done?.error}`);
  return outcome.messages.filter((message) => message.type === "append").length;
}

/**
 * SES-3 across processes: running the same run id again in a new process must rebuild equal
 * items without any model or tool call, without new events and without new usage.
 */
export async function checkReplay(dir: string, scenario: string, runId: string, expectedItems: unknown, violations: string[], backend: TortureBackend = {}): Promise<void> {
  const postgres = postgresTargetOf(dir, backend);
  const before = await readSessionEvents(dir, undefined, postgres);
  const usageBefore = await readUsageTotal(dir, undefined, postgres);
  const replay = await runChild({ dir, scenario, runId, forbidWork: true, ...withBackend(dir, backend) });
  const work = replay.messages.filter((message) => message.type === "model" || message.type === "tool" || message.type === "append");
  if (work.length > 0) violations.push(`replay did work: ${work.map((message) => message.type).join(",")}`);
  if (replay.done?.status !== "completed") violations.push(`replay ended ${replay.done?.status}: ${replay.done?.error}`);
  else if (!isDeepStrictEqual(replay.done.items, expectedItems)) violations.push("replayed items differ from the run's items");
  if ((await readSessionEvents(dir, undefined, postgres)).length !== before.length) violations.push("replay appended events");
  if ((await readUsageTotal(dir, undefined, postgres)) !== usageBefore) violations.push("replay changed the usage total");
}

/**
 * One kill point: the first process dies at the boundary, a fresh process resumes the run to the
 * end (answering pauses as the scenario says), then the session is checked. With `replay`, a
 * third process re-runs the finished run id and must change nothing (SES-3).
 */
export async function runKillPoint(root: string, point: KillPoint, options: { replay?: boolean } & TortureBackend = {}): Promise<KillPointResult> {
  const where = "nth" in point ? `append ${point.nth}` : point.event;
  const label = `${point.scenario} ${point.when} ${where}`;
  const dir = join(root, `${point.scenario}-${point.when}-${where.replace(/\W+/g, "_")}`);
  const violations: string[] = [];
  const kill = "nth" in point ? { nth: point.nth, when: point.when } : { event: point.event, when: point.when };
  const first = await runChild({ dir, scenario: point.scenario, runId: RUN_ID, kill, ...withBackend(dir, options) });
  if (first.signal !== "SIGKILL") violations.push(`kill point not reached (exit ${first.code}, ${first.done?.status ?? "no result"})`);
  const resumed = await runChild({ dir, scenario: point.scenario, runId: RUN_ID, ...withBackend(dir, options) });
  if (resumed.done?.status !== "completed") {
    violations.push(`resume ended ${resumed.done?.status ?? `without result (exit ${resumed.code} ${resumed.signal})`}: ${resumed.done?.error ?? ""}`);
    return { label, kills: 1, processes: 2, violations, check: null };
  }
  checkPauses([first, resumed], violations);
  const observed: ChildMessage[] = [...first.messages, ...resumed.messages];
  const check = await checkSession(dir, point.scenario, observed, resumed.done.items, withBackend(dir, options));
  violations.push(...check.violations);
  if (options.replay) await checkReplay(dir, point.scenario, RUN_ID, resumed.done.items, violations, options);
  return { label, kills: 1, processes: options.replay ? 3 : 2, violations, check };
}

/**
 * A chain: every process dies at its first boundary (after its first committed append, or just
 * before its second) and the next one resumes, until a process completes the run. Every step of
 * the resume path itself is crashed once.
 */
export async function runChain(root: string, scenario: string, when: "before" | "after", backend: TortureBackend = {}): Promise<KillPointResult> {
  const label = `${scenario} chain ${when}`;
  const dir = join(root, `${scenario}-chain-${when}`);
  const violations: string[] = [];
  const outcomes: ChildOutcome[] = [];
  let last: ChildOutcome | null = null;
  for (let i = 0; i < 200 && last?.done == null; i++) {
    last = await runChild({ dir, scenario, runId: RUN_ID, kill: when === "after" ? { nth: 1, when } : { nth: 2, when }, ...withBackend(dir, backend) });
    outcomes.push(last);
  }
  const kills = outcomes.filter((outcome) => outcome.signal === "SIGKILL").length;
  if (last?.done?.status !== "completed") {
    violations.push(`chain ended ${last?.done?.status ?? "without result"}: ${last?.done?.error ?? ""}`);
    return { label, kills, processes: outcomes.length, violations, check: null };
  }
  checkPauses(outcomes, violations);
  const check = await checkSession(dir, scenario, outcomes.flatMap((outcome) => outcome.messages), last.done.items, withBackend(dir, backend));
  violations.push(...check.violations);
  return { label, kills, processes: outcomes.length, violations, check };
}
