/**
 * FORK-1, FORK-2: fork a session at any point. The fork is a new session whose log is the
 * parent's prefix (read through to the parent, never copied: `SessionBackend.forkLog`) followed by
 * its fork record: parent, point, and the hazard report — the parent's tool calls after the point
 * with their replay class — which the agent consults whenever the fork's model repeats an unsafe
 * one (a fresh decision, or the parent's recorded result with `effects: "recorded"`).
 */
import { randomUUID } from "node:crypto";
import { SteamharnessError } from "../../domain/errors.js";
import type { JsonValue } from "../../domain/json.js";
import { forkHazards, forkLineageOf, forkRecordEvent, forkRecordEventId, forkRecordOf, forkSeq, type ForkEffects, type ForkHazard, type ForkPoint, type ForkRecord } from "../../domain/time-travel/fork.js";
import type { SessionBackend } from "../../ports/session-backend.js";
import type { SessionAddress, SessionEvent, SessionStore } from "../../ports/session-store.js";

/** Options of {@link forkSession}. */
export interface ForkSessionOptions {
  /** Where sessions live (a storage's `sessions`; a tenant's scoped storage keeps the fork in the tenant). */
  sessions: SessionBackend;
  /** The session to fork. */
  from: SessionAddress;
  /** After which event (`{ seq }`, 0: none) or how many turns (`{ turn }`) the fork keeps. */
  at: ForkPoint;
  /** The fork's address; default: the parent's, with session key `<parent key>#fork-<id>`. */
  to?: SessionAddress;
  /** What a repeat of an unsafe call of the parent after the point meets (default `"decide"`: a fresh decision). */
  effects?: ForkEffects;
}

/** What {@link forkSession} made. */
export interface ForkSessionResult {
  /** The fork's session. */
  address: SessionAddress;
  /** The last parent event the fork holds. */
  atSeq: number;
  /** The parent's tool calls after the point, in intent order (FORK-2). */
  hazards: ForkHazard[];
}

const notFound = () => new SteamharnessError("not_found", "[steamharness] [time-travel] the session to fork does not exist", { field: "from" });

async function withStore<T>(sessions: SessionBackend, address: SessionAddress, work: (store: SessionStore) => Promise<T>): Promise<T> {
  const store = await sessions.openUnleased({ address, create: false });
  if (!store) throw notFound();
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** The parent's events a hazard report needs: everything after the point, and every run those events continue. */
async function eventsAround(store: SessionStore, atSeq: number): Promise<SessionEvent[]> {
  const after = await store.readAfter(atSeq);
  const runs = [...new Set(after.map((event) => event.runId))];
  const before = await Promise.all(runs.map((runId) => store.readRun(runId)));
  return [...after, ...before.flat().filter((event) => event.seq <= atSeq)];
}

/**
 * Forks session `from` after an event or a number of turns: a new session holding the parent's
 * prefix (same seqs and events, read through to the parent's log, so the cost does not grow with
 * the history the fork keeps), its fork record, and the parent's snapshot when it lies within the
 * prefix. Resolves the fork's address, its point and the hazard report. Continue the fork with a
 * new run on its address: approvals of the parent never carry over (decisions bind to their run).
 * Rejects with `not_found` (no such session — another tenant's included, with a tenant's
 * storage), `input_validation` (field `at`: not an integer point, or past the head), `conflict`
 * (`to` exists) or `unavailable` (a backend that cannot copy logs); nothing is written then.
 *
 * @example
 * const { address, hazards } = await forkSession({ sessions: storage.sessions!, from: { projectId, conversationId, sessionKey: "agent" }, at: { seq: 12 } });
 * for (const hazard of hazards) console.log(hazard.toolName, hazard.replay, hazard.summary);
 * await agent.run({ runId: "fork-run", prompt: "try again", sessionKey: address.sessionKey }, context);
 */
export async function forkSession(options: ForkSessionOptions): Promise<ForkSessionResult> {
  const { sessions, from } = options;
  if (!sessions.forkLog) throw new SteamharnessError("unavailable", `[steamharness] [time-travel] the ${sessions.kind} session backend cannot fork sessions`);
  const effects = options.effects ?? "decide";
  if (effects !== "decide" && effects !== "recorded") throw new SteamharnessError("input_validation", `effects must be "decide" or "recorded", not ${JSON.stringify(effects)}`, { field: "effects" });
  const to = options.to ?? { ...from, sessionKey: `${from.sessionKey}#fork-${randomUUID()}` };
  // The parent stays open until the fork is written: the backend's own check of `from` (forkLog)
  // then shares its connection instead of opening the file again.
  const { atSeq, hazards, snapshot } = await withStore(sessions, from, async (parent) => {
    const head = await parent.head();
    const runStarts = "turn" in options.at ? (await parent.readAfter(0, { types: ["run_started"] })).map((event) => event.seq) : [];
    const seq = forkSeq(options.at, head.lastSeq, runStarts);
    // The parent's own lineage, whatever the point: effects its ancestors left behind stay guarded.
    const ancestors = forkLineageOf(forkRecordOf(await parent.get(forkRecordEventId(from.sessionKey))));
    const found = { atSeq: seq, hazards: forkHazards(await eventsAround(parent, seq), seq), snapshot: head.snapshot && head.snapshot.atSeq <= seq ? head.snapshot : null };
    const record: ForkRecord = { parent: { ...from }, atSeq: seq, effects, hazards: found.hazards, ancestors };
    // The record goes in with the fork's pointer, in one transaction: a fork never exists without its guards.
    await sessions.forkLog!({ from, to, throughSeq: seq, append: [forkRecordEvent(to.sessionKey, record)] });
    return found;
  });
  if (snapshot) await withStore(sessions, to, (fork) => fork.putSnapshot({ atSeq: snapshot.atSeq, state: snapshot.state as JsonValue }));
  return { address: to, atSeq, hazards };
}

/**
 * A session's fork lineage, oldest ancestor first, its own fork last: for each, its parent, point
 * and hazards (`[]` for a session that is no fork); one lookup. `not_found` for a missing session.
 *
 * @example
 * const lineage = await forkLineage(storage.sessions!, address);
 * lineage.at(-1)?.parent; // the direct parent
 */
export async function forkLineage(sessions: SessionBackend, address: SessionAddress): Promise<Array<Omit<ForkRecord, "ancestors">>> {
  return withStore(sessions, address, async (store) => forkLineageOf(forkRecordOf(await store.get(forkRecordEventId(address.sessionKey)))));
}
