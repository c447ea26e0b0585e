/**
 * A fork's log read through to its parent (FORK-1), written once for every family: the fork's own
 * rows hold only the events after its point, the parent's log (itself possibly a fork) the prefix.
 * Every read is split at the point into a read of the parent bounded by the point and one of the
 * fork's own rows — each a range of the seq key (or the run or event-id index), never a scan of
 * what the parent wrote after the fork.
 */
import { validateSessionEvent } from "../../../domain/agent/session-events.js";
import type { SessionEvent } from "../../../ports/session-store.js";
import type { RangedSessionStore, SessionRangeOptions } from "./session-store.js";

/**
 * The store of a fork: `own` (its rows after `throughSeq`, and its head) read together with
 * `parent` up to `throughSeq`. Appends skip ids the prefix holds, as a store skips any stored id;
 * closing closes both. Members of `own` beyond the port (a held store's `isHeld`) are kept.
 *
 * @example
 * const fork = readThrough(ownStore, parentStore, 12);
 * await fork.readAfter(0); // the parent's events 1..12, then the fork's own
 */
export function readThrough<S extends RangedSessionStore>(own: S, parent: RangedSessionStore, throughSeq: number): S {
  const inPrefix = (event: SessionEvent | null) => (event !== null && event.seq <= throughSeq ? event : null);
  return {
    ...own,
    async append(inputs) {
      // An empty prefix (a replay of a session's first run) holds no id: no lookup per event.
      if (throughSeq === 0) return own.append(inputs);
      inputs.forEach(validateSessionEvent);
      const stored = new Map<string, SessionEvent>();
      for (const eventId of new Set(inputs.map((input) => input.eventId))) {
        const event = inPrefix(await parent.get(eventId));
        if (event) stored.set(eventId, event);
      }
      if (stored.size === 0) return own.append(inputs);
      const rest = inputs.filter((input) => !stored.has(input.eventId));
      const result = rest.length === 0 ? { events: [], appended: 0 } : await own.append(rest);
      for (const event of result.events) stored.set(event.eventId, event);
      // A fresh copy each: an id repeated in the batch must not hand out one shared object.
      return { events: inputs.map((input) => JSON.parse(JSON.stringify(stored.get(input.eventId))) as SessionEvent), appended: result.appended };
    },
    async readRun(runId) {
      const [before, after] = await Promise.all([parent.readRun(runId), own.readRun(runId)]);
      return [...before.filter((event) => event.seq <= throughSeq), ...after];
    },
    async get(eventId) {
      return (await own.get(eventId)) ?? inPrefix(await parent.get(eventId));
    },
    async readAfter(afterSeq, options: SessionRangeOptions = {}) {
      const limit = options.limit ?? Number.POSITIVE_INFINITY;
      if (limit === 0 || options.types?.length === 0) return [];
      const through = options.throughSeq ?? Number.POSITIVE_INFINITY;
      const prefix = (max: number) => (afterSeq >= throughSeq ? [] : parent.readAfter(afterSeq, { ...options, throughSeq: Math.min(through, throughSeq), ...(Number.isFinite(max) ? { limit: max } : {}) }));
      const ownRows = (max: number) => (through <= throughSeq ? [] : own.readAfter(Math.max(afterSeq, throughSeq), { ...options, ...(Number.isFinite(max) ? { limit: max } : {}) }));
      // Oldest first: the prefix, then the own rows; newest first the other way round.
      const [first, second] = options.newestFirst === true ? [ownRows, prefix] : [prefix, ownRows];
      const head = await first(limit);
      return head.length >= limit ? head : [...head, ...(await second(limit - head.length))];
    },
    async close() {
      await Promise.all([own.close(), parent.close()]);
    },
  };
}

/**
 * The last run started in `store` at or before `throughSeq` (a fork's head names it), or `null`:
 * one read of the newest `run_started` event up to the point.
 *
 * @example
 * const lastRunId = await lastRunStarted(parentStore, 12);
 */
export async function lastRunStarted(store: RangedSessionStore, throughSeq: number): Promise<string | null> {
  const [started] = await store.readAfter(0, { types: ["run_started"], newestFirst: true, limit: 1, throughSeq });
  return started?.runId ?? null;
}
