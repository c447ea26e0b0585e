import type { SessionAddress, SessionEventInput, SessionStoreOpener } from "../ports/session-store.js";
import { defineContract, errorCode, uniqueId, type ContractCases, type ContractFactory, type ContractOptions, type ContractTestApi } from "./contract-support.js";

/** What an opener fixture tells the suite (the subject's `inspect`). */
export interface SessionStoreOpenerInspect {
  /** An explicit database path for a session name, inside the fixture's storage. */
  databasePath(name: string): string;
}

const address = (conversationId: string, sessionKey = "agent"): SessionAddress => ({ projectId: "contract", conversationId, sessionKey });
const plan = (runId: string, i: number): SessionEventInput => ({ eventId: `${runId}/plan/${i}`, runId, type: "plan", payload: { planIndex: i, text: `step ${i}` } });

const cases: ContractCases<SessionStoreOpener, SessionStoreOpenerInspect> = {
  "SES-2 opens a free session and refuses it while held, also to the same owner id; free again after close": async ({ store: opener, expect }) => {
    const c = uniqueId("conversation");
    const held = await opener.open({ address: address(c), ownerId: "run-a" });
    expect(held.address).toEqual(address(c));
    expect(await errorCode(() => opener.open({ address: address(c), ownerId: "run-b" }))).toBe("session_busy");
    expect(await errorCode(() => opener.open({ address: address(c), ownerId: "run-a" }))).toBe("session_busy");
    await held.close();
    const next = await opener.open({ address: address(c), ownerId: "run-b" });
    await next.close();
  },
  "SES-1 what one lease appended the next one reads; distinct sessions stay apart": async ({ store: opener, expect }) => {
    const c = uniqueId("conversation");
    const first = await opener.open({ address: address(c), ownerId: "run-1" });
    await first.append([plan("run-1", 0), plan("run-1", 1)]);
    await first.close();
    const other = await opener.open({ address: address(c, "其他 agent"), ownerId: "run-x" });
    expect((await other.head()).lastSeq).toBe(0);
    const second = await opener.open({ address: address(c), ownerId: "run-2" });
    expect((await second.head()).lastSeq).toBe(2);
    expect((await second.readRun("run-1")).map((event) => event.eventId)).toEqual(["run-1/plan/0", "run-1/plan/1"]);
    const { events } = await second.append([plan("run-2", 0)]);
    expect(events[0]!.seq).toBe(3);
    await second.close();
    await other.close();
  },
  "SES-2 concurrent opens of a free session grant exactly one": async ({ store: opener, expect }) => {
    const c = uniqueId("conversation");
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => opener.open({ address: address(c), ownerId: `run-${i}` })));
    const granted = results.filter((result) => result.status === "fulfilled");
    expect(granted.length).toBe(1);
    for (const result of results) if (result.status === "rejected") expect((result.reason as { code?: string }).code).toBe("session_busy");
    await (granted[0] as PromiseFulfilledResult<Awaited<ReturnType<SessionStoreOpener["open"]>>>).value.close();
  },
  "a closed store rejects with unavailable and closing again is fine": async ({ store: opener, expect }) => {
    const store = await opener.open({ address: address(uniqueId("conversation")), ownerId: "run-1" });
    await store.close();
    await store.close();
    expect(await errorCode(() => store.head())).toBe("unavailable");
    expect(await errorCode(() => store.append([plan("run-1", 0)]))).toBe("unavailable");
  },
  "refuses an empty owner id with input_validation": async ({ store: opener, expect }) => {
    expect(await errorCode(() => opener.open({ address: address(uniqueId("conversation")), ownerId: "" }))).toBe("input_validation");
  },
  // Named for skipping: an opener that only keeps sessions by address has no explicit paths.
  "database-path": async ({ store: opener, inspect, expect }) => {
    if (!inspect) throw new Error("[steamharness] fixture gives no inspect.databasePath(): skip 'database-path' with a reason");
    const databasePath = inspect.databasePath(uniqueId("session"));
    const c = uniqueId("conversation");
    const byPath = await opener.open({ address: address(c), databasePath, ownerId: "run-1" });
    // The explicit file is its own session: the address's own session is free.
    const byAddress = await opener.open({ address: address(c), ownerId: "run-2" });
    expect(await errorCode(() => opener.open({ address: address(uniqueId("conversation")), databasePath, ownerId: "run-3" }))).toBe("session_busy");
    await byPath.append([plan("run-1", 0)]);
    expect((await byAddress.head()).lastSeq).toBe(0);
    await byPath.close();
    await byAddress.close();
  },
};

/** Case names of {@link runSessionStoreOpenerContract}. */
export type SessionStoreOpenerContractCase = keyof typeof cases & string;

/**
 * Contract suite for `Storage.sessions` (the session-store opener port, SES-1/SES-2 within one
 * process): a free session is opened under its lease, a held one refused at once with
 * `session_busy`, closing frees it, the next lease reads what the last appended, concurrent opens
 * grant exactly one, a closed store is `unavailable`, explicit database paths are sessions of
 * their own. Cross-process cases need real processes and live in the adapter's own tests.
 *
 * @example
 * runSessionStoreOpenerContract({ describe, it, expect }, () => {
 *   const sessions = createSqliteSessionBackend({ agentStoreDir: dir });
 *   return { store: sessions, inspect: { databasePath: (name) => join(dir, `${name}.sqlite`) }, dispose: () => sessions.close() };
 * });
 */
export function runSessionStoreOpenerContract(
  api: ContractTestApi,
  factory: ContractFactory<SessionStoreOpener, SessionStoreOpenerInspect>,
  options: ContractOptions<SessionStoreOpenerContractCase> = {},
): void {
  defineContract(api, "SessionStoreOpener", factory, cases, options);
}
