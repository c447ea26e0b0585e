/**
 * What wakes the readers of a chat's streams (issue 45, UI-2). A turn's chunks are read from the
 * durable log; the question is only when to read again. The process that runs the turn wakes its
 * readers the moment the turn's host commits to the chat's log or record (the `notifying` session
 * backend its host is opened over); readers of a turn run by another process share one poller per
 * chat, which asks the log's head and the tasks' states and wakes them only when either changed.
 * Readers woken together share their reads of one version (`shared`): 100 watchers of one turn
 * cost one read per commit, not 100.
 */
import type { AgentSessionHostStore } from "../../ports/session-host-store.js";
import type { SessionBackend } from "../../ports/session-backend.js";
import type { SessionStore } from "../../ports/session-store.js";

/** The calls after which a chat's stream may have something new to read. */
const WRITES = new Set<PropertyKey>(["append", "insertTask", "updateTask", "requestCancel", "clearCancelled", "close"]);

interface ChatWatch {
  /** Bumped by every wake: a reader that saw version `v` before a read has missed nothing while it is still `v`. */
  version: number;
  waiters: Set<() => void>;
  readers: number;
  timer: ReturnType<typeof setTimeout> | null;
  /** What the last poll saw (the log's head and the tasks' states). */
  seen: string | null;
  probe: () => Promise<string>;
  /** Reads of the current version, by key. */
  reads: Map<string, Promise<unknown>>;
}

/** Resolves after the event loop's next poll phase (an immediate queued from an immediate runs in the next loop turn). */
const pastPoll = (): Promise<void> => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

/** A reader's hold on its chat's wake-ups (see {@link createChatFeed}). */
export interface ChatFeedReader {
  /** The chat's version now: take it before reading, and wait with it after. */
  version(): number;
  /** `read()` of this version, shared with the chat's other readers of the same `key`. */
  shared<T>(key: string, read: () => Promise<T>): Promise<T>;
  /** Resolves once the chat changed after `since` (at once when it already has), or `signal` aborts. */
  wait(since: number, signal?: AbortSignal): Promise<void>;
  /** Ends the hold (the chat's poller stops with its last reader). */
  close(): void;
}

/**
 * The wake-ups of chats' stream readers. `isLocal(conversationId)` tells whether this process runs
 * the chat's host (its commits then notify through `notifying`); otherwise waiting readers poll
 * every `pollMs` through the `probe` of their chat.
 *
 * @example
 * const feed = createChatFeed({ pollMs: 25, isLocal: (id) => liveHost(id) !== null });
 * const reader = feed.reader(conversationId, async () => `${(await log.head()).lastSeq}`);
 * const since = reader.version(); // read the log, then: await reader.wait(since, signal);
 */
export function createChatFeed(options: { pollMs: number; isLocal: (conversationId: string) => boolean }) {
  const chats = new Map<string, ChatWatch>();
  const wake = (watch: ChatWatch) => {
    watch.version++;
    watch.reads.clear();
    const waiters = [...watch.waiters];
    watch.waiters.clear();
    for (const waiter of waiters) waiter();
  };
  const poll = (conversationId: string, watch: ChatWatch) => {
    if (watch.timer !== null || watch.waiters.size === 0 || options.isLocal(conversationId)) return;
    watch.timer = setTimeout(() => {
      void watch.probe().then(
        (now) => {
          watch.timer = null;
          if (now !== watch.seen) {
            watch.seen = now;
            wake(watch);
          } else poll(conversationId, watch);
        },
        // A failed probe wakes the readers: their own read reports the fault.
        () => {
          watch.timer = null;
          wake(watch);
        },
      );
    }, options.pollMs);
  };
  /** Wakes the chat's readers (a new version); resolves whether any was waiting. */
  const notify = (conversationId: string): boolean => {
    const watch = chats.get(conversationId);
    if (!watch) return false;
    const waiting = watch.waiters.size > 0;
    wake(watch);
    return waiting;
  };
  /** Chats whose host record changed since their last append that woke readers (while their stores are open). */
  const moved = new Set<string>();
  const after = <T extends object>(target: T, conversationId: string): T =>
    new Proxy(target, {
      get(object, key) {
        const value = Reflect.get(object, key, object) as unknown;
        if (typeof value !== "function") return value;
        if (!WRITES.has(key)) return value.bind(object);
        return async (...args: unknown[]) => {
          try {
            return await (value as (...args: unknown[]) => Promise<unknown>).apply(object, args);
          } finally {
            // Issue 45 item 1: after a task moved (a turn started or continued), the first append
            // that woke readers is read and sent by them (in microtasks: SQLite reads are
            // synchronous) while the writer — the turn's host, whose next steps are synchronous
            // writes too — waits past one poll of the event loop, so the turn's first chunk reaches
            // its sockets without waiting for the rest of the turn. Later appends do not wait: a
            // turn of many steps with many readers is not slowed by one loop turn per step.
            // A closed store forgets its chat, so the set holds only chats with open stores.
            if (key === "close") moved.delete(conversationId);
            else if (key !== "append") moved.add(conversationId);
            if (notify(conversationId) && key === "append" && moved.delete(conversationId)) await pastPoll();
          }
        };
      },
    });

  return {
    /**
     * `backend` whose stores wake the chat's readers after each write (an append to a log, a
     * task's change in a host record, a close): the backend a chat's host is opened over.
     */
    notifying(backend: SessionBackend): SessionBackend {
      return {
        kind: backend.kind,
        durable: backend.durable,
        acceptsDatabasePath: backend.acceptsDatabasePath,
        leases: backend.leases,
        open: async (request) => after<SessionStore>(await backend.open(request), request.address?.conversationId ?? ""),
        openUnleased: async (request) => {
          const store = await backend.openUnleased(request);
          return store && after<SessionStore>(store, request.address?.conversationId ?? "");
        },
        openHostStore: async (conversationId, open) => {
          const store = await backend.openHostStore(conversationId, open);
          return store && after<AgentSessionHostStore>(store, conversationId);
        },
        close: () => backend.close(),
      };
    },

    /** A reader of the chat's streams; `probe` is what its poller compares between polls. */
    reader(conversationId: string, probe: () => Promise<string>): ChatFeedReader {
      let watch = chats.get(conversationId);
      if (!watch) {
        watch = { version: 0, waiters: new Set(), readers: 0, timer: null, seen: null, probe, reads: new Map() };
        chats.set(conversationId, watch);
      }
      const held = watch;
      held.readers++;
      let open = true;
      return {
        version: () => held.version,
        shared<T>(key: string, read: () => Promise<T>): Promise<T> {
          let found = held.reads.get(key) as Promise<T> | undefined;
          if (!found) {
            found = read();
            held.reads.set(key, found);
            // A failed read is not kept: the next reader tries again.
            found.catch(() => held.reads.get(key) === found && held.reads.delete(key));
          }
          return found;
        },
        wait(since: number, signal?: AbortSignal): Promise<void> {
          if (held.version !== since || signal?.aborted) return Promise.resolve();
          return new Promise((resolve) => {
            const done = () => {
              held.waiters.delete(done);
              signal?.removeEventListener("abort", done);
              resolve();
            };
            held.waiters.add(done);
            signal?.addEventListener("abort", done, { once: true });
            poll(conversationId, held);
          });
        },
        close() {
          if (!open) return;
          open = false;
          if (--held.readers > 0) return;
          if (held.timer !== null) clearTimeout(held.timer);
          if (chats.get(conversationId) === held) chats.delete(conversationId);
        },
      };
    },
  };
}

/** The wake-ups returned by {@link createChatFeed}. */
export type ChatFeed = ReturnType<typeof createChatFeed>;
