/**
 * REPLAY-1: a replay's session store that commits less. A normal run commits each append (SES-2,
 * SES-4: what a crash must not lose). A replay in recorded mode has nothing to lose — it is
 * re-derived from its recording — so its appends are held in memory and committed together.
 * Losing the held tail on a crash only means running the replay again (docs/time-travel.md).
 */
import { SteamharnessError } from "../../domain/errors.js";
import { validateSessionEvent } from "../../domain/agent/session-events.js";
import type { Clock } from "../../ports/clock.js";
import type { SessionEvent, SessionEventInput, SessionStore } from "../../ports/session-store.js";

/** A {@link SessionStore} whose appends are committed in batches; see {@link batchSessionAppends}. */
export interface BatchedSessionStore extends SessionStore {
  /** Commits the held events (one `append` of the wrapped store). */
  flush(): Promise<void>;
  /** Commits the held events, then commits every later append at once, as a normal run does. */
  writeThrough(): Promise<void>;
}

/** Options of {@link batchSessionAppends}. */
export interface BatchedSessionOptions {
  /** Stamps the events the append resolves (the stored ones carry their commit's time). */
  clock: Clock;
  /** Commit when this many events are held (default 256): bounds memory, not durability. */
  every?: number;
}

/**
 * Wraps `store` — held under its lease by this caller, the only writer — so that `append`
 * resolves at once with the events as they will be stored (seq numbered on from the head, a
 * repeat of a held id skipped as the port says) and commits them later: when `every` are held,
 * before any read (reads see every append), and on `close`. Each commit is one `append` of the
 * wrapped store, so it stays atomic. The caller appends ids the store does not hold yet (an
 * agent run skips its committed ids itself): a commit that meets a stored id rejects with
 * `storage_failure`, as does any fault of a held commit, on the call that triggered it. A crash
 * loses the held events: use it only for a log that can be re-derived (a replay).
 *
 * @example
 * const store = batchSessionAppends(await sessions.open({ address, ownerId }), { clock });
 * await store.append(events); // held
 * await store.close(); // committed, then closed
 */
export function batchSessionAppends(store: SessionStore, options: BatchedSessionOptions): BatchedSessionStore {
  const every = options.every ?? 256;
  let lastSeq: number | undefined;
  let held: SessionEventInput[] = [];
  const heldById = new Map<string, SessionEvent>();
  let through = false;
  // After a failed commit the seqs handed out are wrong: every later call rejects with its error.
  let failed: unknown;
  // Appends and commits run one at a time, so seqs and the duplicate checks never race.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(step: () => Promise<T>): Promise<T> => {
    const next = queue.then(() => (failed === undefined ? step() : Promise.reject(failed)));
    queue = next.catch(() => undefined);
    return next;
  };
  const commit = async () => {
    if (held.length === 0) return;
    const batch = held;
    held = [];
    heldById.clear();
    try {
      const { appended } = await store.append(batch);
      // The seqs handed out assumed every held event was new to the store.
      if (appended !== batch.length) throw new SteamharnessError("storage_failure", `[steamharness] [replay] session ${store.address.sessionKey} already held ${batch.length - appended} of the events appended in a batch; their seqs were wrong`);
    } catch (error) {
      failed = error;
      throw error;
    }
  };
  const read = <T>(step: () => Promise<T>) => serial(async () => (await commit(), step()));
  const copy = (event: SessionEvent): SessionEvent => JSON.parse(JSON.stringify(event)) as SessionEvent;

  return {
    address: store.address,
    append: (inputs) =>
      serial(async () => {
        if (through) return store.append(inputs);
        inputs.forEach(validateSessionEvent);
        lastSeq ??= (await store.head()).lastSeq;
        const at = options.clock.now();
        let appended = 0;
        const events: SessionEvent[] = [];
        for (const input of inputs) {
          const known = heldById.get(input.eventId);
          if (known) {
            events.push(copy(known));
            continue;
          }
          lastSeq += 1;
          appended += 1;
          const event = copy({ ...input, seq: lastSeq, at });
          held.push({ eventId: event.eventId, runId: event.runId, type: event.type, payload: event.payload } as SessionEventInput);
          heldById.set(event.eventId, event);
          events.push(copy(event));
        }
        if (held.length >= every) await commit();
        return { events, appended };
      }),
    readRun: (runId) => read(() => store.readRun(runId)),
    readAfter: (afterSeq, readOptions) => read(() => store.readAfter(afterSeq, readOptions)),
    get: (eventId) => read(() => store.get(eventId)),
    head: () => read(() => store.head()),
    putSnapshot: (snapshot) => read(() => store.putSnapshot(snapshot)),
    flush: () => serial(commit),
    writeThrough: () =>
      serial(async () => {
        through = true;
        await commit();
      }),
    async close() {
      try {
        await serial(commit);
      } finally {
        await store.close();
      }
    },
  };
}
