/**
 * What wakes the readers of a chat's streams (issue 45, UI-2). A turn's chunks are read from the
 * durable log; the question is only when to read again. The process that runs the turn wakes its
 * readers the moment the turn's host commits to the chat's log or record (the `notifying` session
 * backend its host is opened over); readers of a turn run by another process share one poller per
 * chat, which asks the log's head and the tasks' states and wakes them only when either changed.
 * Readers woken together share their reads of one version (`shared`): 100 watchers of one turn
 * cost one read per commit, not 100.
 */
import type { SessionEvent } from "../../domain/agent/session-events.js";
import { agentItemIdPrefix } from "../../domain/agent/ids.js";
import type { OutputItemStreamChunk } from "../../domain/output-items.js";
import type { AgentSessionHostStore } from "../../ports/session-host-store.js";
import type { SessionBackend } from "../../ports/session-backend.js";
import type { SessionStore } from "../../ports/session-store.js";
import { pastPoll } from "../session-host/host-runtime.js";

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

/**
 * A piece of the text of a turn's first model step as the model streams it (UI-1 live deltas),
 * before the step is committed: `delta` of block `block` (the block's index in the step's content,
 * as the log will hold it) starting at `offset`; `hash` is the FNV-1a of the block's text through
 * this piece. Only the first step streams live: what precedes a later step (its tool results) is
 * committed with it, so a later step's text could not go out before them.
 */
export interface ChatLivePiece {
  /** The seq the run's first event will have (its `start`'s position), when known. */
  startSeq: number | null;
  block: number;
  type: "text" | "reasoning";
  offset: number;
  delta: string;
  hash: string;
}

/** A text or reasoning block of a live step: its index, its text so far and that text's FNV-1a. */
interface LivePart {
  block: number;
  type: "text" | "reasoning";
  text: string;
  hash: number;
}

/** A run the live tap follows: whether nothing of it is logged yet, and its first step while it streams. */
interface LiveRun {
  /** The prefix of the run's output item ids. */
  prefix: string;
  fresh: boolean;
  step: { startSeq: number | null; next: number; parts: Map<string, LivePart> } | null;
  listeners: Set<(piece: ChatLivePiece) => void>;
}

/**
 * FNV-1a (32 bits) of `text`: the fingerprint a live cursor carries of
 * the block's text so far, so a resume can tell the logged text from another attempt's.
 *
 * @example
 * chatTextHash("Hello"); // "f55c314b"
 */
export function chatTextHash(text: string): string {
  return hex(fnv(text, FNV_START));
}
const FNV_START = 0x811c9dc5;
const hex = (hash: number): string => hash.toString(16).padStart(8, "0");
function fnv(text: string, from: number): number {
  let hash = from;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619) >>> 0;
  return hash;
}

/** Whether a host-record write only marks a task running (`updateTask(id, { status: "running" })`). */
const startsRunning = (key: PropertyKey, args: readonly unknown[]): boolean => {
  const change = args[1] as { status?: unknown } | undefined;
  return key === "updateTask" && change?.status === "running" && Object.keys(change).length === 1;
};


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
  // UI-1: the first model steps streaming in this process, by chat and run (what a live reader attaches to).
  const live = new Map<string, Map<string, LiveRun>>();
  // The last seq of the logs of chats followed live: a run's first append starts right after it (only the chat's host appends).
  const heads = new Map<string, number>();
  // UI-1: the live first steps' text and reasoning parts by output item id (what a delta chunk names).
  const parts = new Map<string, { run: LiveRun; part: LivePart }>();
  /** Ends `run`'s live step: its deltas are no longer looked for. */
  const endStep = (run: LiveRun): void => {
    if (run.step) for (const id of run.step.parts.keys()) parts.delete(id);
    run.step = null;
  };
  /** Forgets the chat's live runs (its host's store closed). */
  const forget = (conversationId: string): void => {
    for (const run of live.get(conversationId)?.values() ?? []) endStep(run);
    live.delete(conversationId);
    heads.delete(conversationId);
  };
  const seen = (conversationId: string, lastSeq: number): void => void heads.set(conversationId, Math.max(heads.get(conversationId) ?? 0, lastSeq));
  const appended = (conversationId: string, events: readonly SessionEvent[]): void => {
    // The head is kept for every chat whose store is open here, so a turn's submit need not read it.
    if (events.length > 0) seen(conversationId, events.at(-1)!.seq);
    const runs = live.get(conversationId);
    if (!runs) return;
    for (const event of events) {
      const run = runs.get(event.runId);
      if (!run) continue;
      // The run's first append holds its first step (or only its prompt): readers take it from the log.
      run.fresh = false;
      endStep(run);
      if (run.listeners.size === 0) runs.delete(event.runId);
    }
    if (runs.size === 0) live.delete(conversationId);
  };
  /** Chats whose host record changed since their last append that woke readers (while their stores are open). */
  const moved = new Set<string>();
  const after = <T extends object>(target: T, conversationId: string): T =>
    new Proxy(target, {
      get(object, key) {
        const value = Reflect.get(object, key, object) as unknown;
        if (typeof value !== "function") return value;
        // The head a store read (its host opening or starting a run) is the chat's head here too.
        if (key === "head") return async () => {
          const head = (await (value as () => Promise<{ lastSeq: number }>).call(object));
          seen(conversationId, head.lastSeq);
          return head;
        };
        if (!WRITES.has(key)) return value.bind(object);
        return async (...args: unknown[]) => {
          try {
            const result = await (value as (...args: unknown[]) => Promise<unknown>).apply(object, args);
            if (key === "append") appended(conversationId, (result as { events: readonly SessionEvent[] }).events);
            return result;
          } finally {
            // Issue 45 item 1: after a task moved (a turn started or continued), the first append
            // that woke readers is read and sent by them (in microtasks: SQLite reads are
            // synchronous) while the writer — the turn's host, whose next steps are synchronous
            // writes too — waits past one poll of the event loop, so the turn's first chunk reaches
            // its sockets without waiting for the rest of the turn. Later appends do not wait: a
            // turn of many steps with many readers is not slowed by one loop turn per step.
            // A closed store forgets its chat, so the set holds only chats with open stores.
            if (key === "close" && "head" in object) forget(conversationId);
            if (key === "close") moved.delete(conversationId);
            else if (key !== "append") moved.add(conversationId);
            // A task that starts running changes nothing a reader sends (queued and running read alike): its readers sleep on, and the turn's setup reaches its model request without their reads.
            if (!startsRunning(key, args) && notify(conversationId) && key === "append" && moved.delete(conversationId)) await pastPoll();
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

    /**
     * UI-1: takes the output chunks of the chat's host in this process (its `subscribe`): the
     * text and reasoning deltas of a model step go to the step's live readers as they stream.
     */
    chunk(conversationId: string, chunk: OutputItemStreamChunk): void {
      if (chunk.type === "delta") {
        // A delta is looked up by its item id: only the live steps' parts are indexed.
        const found = chunk.delta === "" ? undefined : parts.get(chunk.id);
        if (!found) return;
        const { run, part } = found;
        const offset = part.text.length;
        part.text += chunk.delta;
        part.hash = fnv(chunk.delta, part.hash);
        if (run.listeners.size === 0) return;
        const piece: ChatLivePiece = { startSeq: run.step!.startSeq, block: part.block, type: part.type, offset, delta: chunk.delta, hash: hex(part.hash) };
        for (const listener of run.listeners) listener(piece);
        return;
      }
      if (chunk.type !== "add" || chunk.item.metadata.kind !== "agent-part") return;
      const runs = live.get(conversationId);
      if (!runs) return;
      const id = chunk.item.id;
      for (const run of runs.values()) {
        if (!id.startsWith(run.prefix)) continue;
        const { partType, tool } = chunk.item.metadata;
        // A step's blocks are its text and reasoning parts and its tool calls, in order.
        if (partType !== "text" && partType !== "reasoning" && tool === undefined) return;
        if (run.step === null) {
          if (!run.fresh) return;
          const head = heads.get(conversationId);
          run.step = { startSeq: head === undefined ? null : head + 1, next: 0, parts: new Map() };
        }
        const block = run.step.next++;
        if (partType === "text" || partType === "reasoning") {
          const part: LivePart = { block, type: partType, text: "", hash: FNV_START };
          run.step.parts.set(id, part);
          parts.set(id, { run, part });
        }
        return;
      }
    },

    /** UI-1: the chat's log head as this process last saw it (its stores' reads and appends), `undefined` when not known. */
    head(conversationId: string): number | undefined {
      return heads.get(conversationId);
    },

    /**
     * UI-1: follows the run `runId` the caller is about to queue (nothing of it is logged yet):
     * its first model step's deltas go to its live readers. `lastSeq`: the chat's log head now.
     * Forgotten at the run's first append, or by the returned function (the run was not queued after all).
     */
    expect(conversationId: string, runId: string, lastSeq: number): () => void {
      seen(conversationId, lastSeq);
      let runs = live.get(conversationId);
      if (!runs) live.set(conversationId, (runs = new Map()));
      const run: LiveRun = { prefix: agentItemIdPrefix(runId), fresh: true, step: null, listeners: new Set() };
      if (!runs.has(runId)) runs.set(runId, run);
      return () => {
        if (live.get(conversationId)?.get(runId) !== run) return;
        endStep(run);
        live.get(conversationId)!.delete(runId);
      };
    },

    /**
     * UI-1: `listener` receives the deltas of `runId`'s first model step while it streams in this
     * process (a run announced with `expect`): first what it said so far (one piece per block),
     * then each delta. Returns the unsubscribe.
     */
    live(conversationId: string, runId: string, listener: (piece: ChatLivePiece) => void): () => void {
      const run = live.get(conversationId)?.get(runId);
      if (!run) return () => {};
      if (run.step) for (const part of run.step.parts.values()) if (part.text !== "") listener({ startSeq: run.step.startSeq, block: part.block, type: part.type, offset: 0, delta: part.text, hash: hex(part.hash) });
      run.listeners.add(listener);
      const held = run;
      return () => {
        held.listeners.delete(listener);
        if (held.listeners.size === 0 && !held.fresh && held.step === null && live.get(conversationId)?.get(runId) === held) live.get(conversationId)!.delete(runId);
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
