import { isSteamharnessError } from "../domain/errors.js";
import type { SessionEventInput, SessionStore } from "../ports/session-store.js";

/** The slice of jest / vitest the suite needs. */
export interface SessionStoreContractApi {
  describe(name: string, fn: () => void): void;
  it(name: string, fn: () => Promise<void>): void;
  // The matcher object differs between jest and vitest; the suite uses only common matchers.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  expect(actual: unknown): any;
}

/** A fresh store for one test, and how to dispose of it. */
export interface SessionStoreFixture {
  store: SessionStore;
  dispose?(): Promise<void>;
  /** Closes and reopens the same session (durable adapters); enables the persistence cases. */
  reopen?(): Promise<SessionStore>;
}

/** Cases an adapter may skip, each with a reason in the caller's comment. */
export type SessionStoreContractSkip = "persistence";

/** Options of {@link runSessionStoreContract}. */
export interface SessionStoreContractOptions {
  skip?: SessionStoreContractSkip[];
}

const KNOWN_SKIPS: readonly string[] = ["persistence"];

let counter = 0;
const runId = (): string => `run-${Date.now().toString(36)}-${(counter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

function planEvent(run: string, n: number, text = `plan ${n}`): SessionEventInput {
  return { eventId: `${run}/plan/${n}`, runId: run, type: "plan", payload: { planIndex: n, text } };
}

function userEvent(run: string, text: string): SessionEventInput {
  return { eventId: `${run}/user`, runId: run, type: "user_message", payload: { message: { role: "user", content: text } } };
}

/**
 * The session-store port contract (SES-1, SES-3 semantics): seq order, idempotent appends by
 * event id, atomic batches, per-run reads, head and snapshots. Run it against every adapter.
 *
 * @example
 * runSessionStoreContract({ describe, it, expect }, async () => ({ store: createMemorySessionStore() }));
 */
export function runSessionStoreContract(
  api: SessionStoreContractApi,
  factory: () => Promise<SessionStoreFixture> | SessionStoreFixture,
  options: SessionStoreContractOptions = {},
): void {
  const { describe, it, expect } = api;
  const skip = new Set(options.skip ?? []);
  for (const name of skip) {
    if (!KNOWN_SKIPS.includes(name)) throw new Error(`[steamharness] unknown session-store contract skip: ${name}`);
  }
  const withStore = (fn: (fixture: SessionStoreFixture) => Promise<void>) => async () => {
    const fixture = await factory();
    try {
      await fn(fixture);
    } finally {
      await fixture.store.close();
      await fixture.dispose?.();
    }
  };

  describe("session store contract", () => {
    it("an empty session has head seq 0, no snapshot and no runs", withStore(async ({ store }) => {
      expect(await store.head()).toEqual({ lastSeq: 0, snapshot: null, lastRunId: null });
      expect(await store.readRun(runId())).toEqual([]);
      expect(await store.readAfter(0)).toEqual([]);
      expect(await store.get("missing")).toBeNull();
    }));

    it("assigns seq 1, 2, … in append order and reads them back", withStore(async ({ store }) => {
      const run = runId();
      const result = await store.append([userEvent(run, "hi"), planEvent(run, 0), planEvent(run, 1)]);
      expect(result.appended).toBe(3);
      expect(result.events.map((e) => e.seq)).toEqual([1, 2, 3]);
      const read = await store.readAfter(0);
      expect(read.map((e) => e.eventId)).toEqual([`${run}/user`, `${run}/plan/0`, `${run}/plan/1`]);
      expect(read[1]!.payload).toEqual({ planIndex: 0, text: "plan 0" });
      expect(typeof read[0]!.at).toBe("number");
      expect((await store.readAfter(1, { limit: 1 })).map((e) => e.seq)).toEqual([2]);
      expect(await store.readAfter(0, { limit: 0 })).toEqual([]);
      expect((await store.readAfter(0, { types: ["user_message"] })).map((e) => e.seq)).toEqual([1]);
      expect((await store.head()).lastSeq).toBe(3);
    }));

    it("SES-1 reads newest first: the last matching events after a seq, in descending order", withStore(async ({ store }) => {
      const run = runId();
      await store.append([userEvent(run, "hi"), planEvent(run, 0), planEvent(run, 1), planEvent(run, 2)]);
      expect((await store.readAfter(0, { newestFirst: true })).map((e) => e.seq)).toEqual([4, 3, 2, 1]);
      expect((await store.readAfter(0, { newestFirst: true, limit: 2 })).map((e) => e.seq)).toEqual([4, 3]);
      expect((await store.readAfter(2, { newestFirst: true, limit: 5 })).map((e) => e.seq)).toEqual([4, 3]);
      expect((await store.readAfter(0, { newestFirst: true, types: ["user_message"] })).map((e) => e.seq)).toEqual([1]);
      expect((await store.readAfter(1, { newestFirst: true, types: ["plan"], limit: 1 })).map((e) => e.payload)).toEqual([{ planIndex: 2, text: "plan 2" }]);
      expect(await store.readAfter(4, { newestFirst: true })).toEqual([]);
    }));

    it("SES-3 appends are idempotent by event id and keep the first payload", withStore(async ({ store }) => {
      const run = runId();
      await store.append([planEvent(run, 0, "first")]);
      const again = await store.append([planEvent(run, 0, "second"), planEvent(run, 1)]);
      expect(again.appended).toBe(1);
      expect(again.events[0]!.payload).toEqual({ planIndex: 0, text: "first" });
      expect(again.events.map((e) => e.seq)).toEqual([1, 2]);
      const dup = await store.append([planEvent(run, 2), planEvent(run, 2)]);
      expect(dup.appended).toBe(1);
      expect((await store.readAfter(0)).length).toBe(3);
    }));

    it("reads the events of one run only, in seq order", withStore(async ({ store }) => {
      const a = runId();
      const b = runId();
      await store.append([planEvent(a, 0), planEvent(b, 0)]);
      await store.append([planEvent(a, 1)]);
      expect((await store.readRun(a)).map((e) => e.seq)).toEqual([1, 3]);
      expect((await store.readRun(b)).map((e) => e.eventId)).toEqual([`${b}/plan/0`]);
      expect((await store.get(`${b}/plan/0`))?.runId).toBe(b);
    }));

    it("an invalid event rejects the whole batch with input_validation", withStore(async ({ store }) => {
      const run = runId();
      const bad = { eventId: `${run}/bad`, runId: run, type: "plan", payload: { planIndex: 1, text: undefined as unknown as string, f: () => 1 } };
      const error = await store.append([planEvent(run, 0), bad as unknown as SessionEventInput]).catch((e: unknown) => e);
      expect(isSteamharnessError(error, "input_validation")).toBe(true);
      expect((await store.head()).lastSeq).toBe(0);
      const noId = await store.append([{ ...planEvent(run, 1), eventId: "" }]).catch((e: unknown) => e);
      expect(isSteamharnessError(noId, "input_validation")).toBe(true);
    }));

    it("head names the last started run", withStore(async ({ store }) => {
      const run = runId();
      await store.append([{
        eventId: `${run}/start`, runId: run, type: "run_started",
        payload: { prompt: "p", mode: "build", workdir: "/w", effort: "medium", provider: "x", model: "y", modelSource: {}, configuration: null, answerItemId: null },
      }]);
      expect((await store.head()).lastRunId).toBe(run);
    }));

    it("keeps the latest snapshot and refuses one beyond the log or older than the kept one", withStore(async ({ store }) => {
      const run = runId();
      await store.append([planEvent(run, 0), planEvent(run, 1)]);
      await store.putSnapshot({ atSeq: 1, state: { summary: "one" } });
      await store.putSnapshot({ atSeq: 2, state: { summary: "two" } });
      expect((await store.head()).snapshot).toEqual({ atSeq: 2, state: { summary: "two" } });
      const beyond = await store.putSnapshot({ atSeq: 3, state: null }).catch((e: unknown) => e);
      expect(isSteamharnessError(beyond, "input_validation")).toBe(true);
      const older = await store.putSnapshot({ atSeq: 1, state: null }).catch((e: unknown) => e);
      expect(isSteamharnessError(older, "input_validation")).toBe(true);
      expect((await store.readAfter(0)).length).toBe(2);
    }));

    it("returns copies: mutating a read event changes nothing stored", withStore(async ({ store }) => {
      const run = runId();
      await store.append([planEvent(run, 0)]);
      const [event] = await store.readRun(run);
      (event!.payload as { text: string }).text = "mutated";
      expect(((await store.readRun(run))[0]!.payload as { text: string }).text).toBe("plan 0");
    }));

    it("rejects calls after close with unavailable", withStore(async ({ store }) => {
      await store.close();
      await store.close();
      const error = await store.head().catch((e: unknown) => e);
      expect(isSteamharnessError(error, "unavailable")).toBe(true);
    }));

    if (!skip.has("persistence")) {
      it("SES-1 events and snapshot survive closing and reopening the session", async () => {
        const fixture = await factory();
        if (!fixture.reopen) {
          await fixture.store.close();
          await fixture.dispose?.();
          throw new Error("[steamharness] adapter gives no reopen(): skip 'persistence' with a reason");
        }
        const run = runId();
        await fixture.store.append([planEvent(run, 0), planEvent(run, 1)]);
        await fixture.store.putSnapshot({ atSeq: 1, state: { kept: true } });
        await fixture.store.close();
        const reopened = await fixture.reopen();
        try {
          expect((await reopened.readRun(run)).map((e) => e.seq)).toEqual([1, 2]);
          expect((await reopened.head()).snapshot).toEqual({ atSeq: 1, state: { kept: true } });
          expect((await reopened.append([planEvent(run, 1), planEvent(run, 2)])).appended).toBe(1);
        } finally {
          await reopened.close();
          await fixture.dispose?.();
        }
      });
    }
  });
}
