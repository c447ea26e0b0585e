import type { SessionBackend } from "../ports/session-backend.js";
import type { SessionAddress, SessionEventInput } from "../ports/session-store.js";
import { defineContract, errorCode, uniqueId, type ContractCases, type ContractFactory, type ContractTestApi, type ContractSubject } from "./contract-support.js";
import { runSessionHostStoreContract } from "./session-host-store.contract.js";
import { runSessionLeaseContract, type SessionLeaseContractCase } from "./session-lease.contract.js";
import { runSessionStoreOpenerContract, type SessionStoreOpenerContractCase } from "./session-store-opener.contract.js";

/** What a backend fixture tells the suite (the subject's `inspect`). */
export interface SessionBackendInspect {
  /** An explicit session location for a name: required when the backend `acceptsDatabasePath`. */
  databasePath?(name: string): string;
  /** A second backend on the same storage (another host process's view); required unless `shared` is false. */
  peer?(): Promise<SessionBackend> | SessionBackend;
}

/** Options of {@link runSessionBackendContract}. */
export interface SessionBackendContractOptions {
  /** Whether the backend understands `databasePath` (its fixture then gives `inspect.databasePath`). */
  databasePaths: boolean;
  /** Whether a second backend object can share the sessions (`inspect.peer`); false for in-memory backends. */
  shared: boolean;
  /** Case names of the backend's own cases not to run; justify each. */
  skip?: readonly SessionBackendContractCase[];
}

const address = (conversationId: string, sessionKey = "agent"): SessionAddress => ({ projectId: "contract", conversationId, sessionKey });
const plan = (runId: string, i: number): SessionEventInput => ({ eventId: `${runId}/plan/${i}`, runId, type: "plan", payload: { planIndex: i, text: `step ${i}` } });

const cases: ContractCases<SessionBackend, SessionBackendInspect> = {
  "PORT-4 describes itself: kind, durable, acceptsDatabasePath": async ({ store: backend, expect }) => {
    expect(typeof backend.kind).toBe("string");
    expect(backend.kind.length).toBeGreaterThan(0);
    expect(typeof backend.durable).toBe("boolean");
    expect(typeof backend.acceptsDatabasePath).toBe("boolean");
    if (!backend.acceptsDatabasePath) {
      expect(await errorCode(() => backend.open({ address: address(uniqueId("conversation")), databasePath: "/nowhere/x.sqlite", ownerId: "run-1" }))).toBe("input_validation");
    }
  },
  "PORT-4 SES-2 leases and open take the same lease": async ({ store: backend, expect }) => {
    const c = uniqueId("conversation");
    const lease = await backend.leases.acquire(address(c), { ownerId: "host-1" });
    expect(lease?.isHeld()).toBe(true);
    expect(await errorCode(() => backend.open({ address: address(c), ownerId: "run-1" }))).toBe("session_busy");
    await lease!.release();
    const store = await backend.open({ address: address(c), ownerId: "run-1" });
    expect(await backend.leases.acquire(address(c), { ownerId: "host-2" })).toBeNull();
    await store.close();
    const again = await backend.leases.acquire(address(c), { ownerId: "host-2" });
    expect(again?.isHeld()).toBe(true);
    await again!.release();
  },
  "PORT-4 SES-1 openUnleased without create finds nothing for a new session and creates nothing": async ({ store: backend, expect }) => {
    const c = uniqueId("conversation");
    expect(await backend.openUnleased({ address: address(c), create: false })).toBeNull();
    expect(await backend.openUnleased({ address: address(c), create: false })).toBeNull();
    const store = await backend.open({ address: address(c), ownerId: "run-1" });
    expect((await store.head()).lastSeq).toBe(0);
    await store.close();
  },
  "PORT-4 SES-1 openUnleased reads what a lease holder appended, while it holds the session": async ({ store: backend, expect }) => {
    const c = uniqueId("conversation");
    const held = await backend.open({ address: address(c), ownerId: "run-1" });
    await held.append([plan("run-1", 0), plan("run-1", 1)]);
    const reader = await backend.openUnleased({ address: address(c), create: false });
    expect(reader).not.toBeNull();
    expect((await reader!.readRun("run-1")).map((event) => event.eventId)).toEqual(["run-1/plan/0", "run-1/plan/1"]);
    await reader!.close();
    await held.close();
  },
  "PORT-4 HOST-1 a lease holder writes through openUnleased and the next run reads it": async ({ store: backend, expect }) => {
    const c = uniqueId("conversation");
    const lease = await backend.leases.acquire(address(c, "会话 一"), { ownerId: "host-1" });
    const store = await backend.openUnleased({ address: address(c, "会话 一"), create: true });
    await store!.append([plan("task-1", 0)]);
    await store!.close();
    await lease!.release();
    const next = await backend.open({ address: address(c, "会话 一"), ownerId: "run-2" });
    expect((await next.head()).lastSeq).toBe(1);
    await next.close();
  },
  "PORT-4 HOST-1 host records: none until created, then one record per conversation": async ({ store: backend, expect }) => {
    const c = uniqueId("conversation");
    expect(await backend.openHostStore(c, { create: false })).toBeNull();
    const created = await backend.openHostStore(c, { create: true });
    await created!.setSetting("activeTargetId", "2");
    const other = await backend.openHostStore(`${c}-other`, { create: true });
    expect(await other!.getSetting("activeTargetId")).toBeNull();
    const reopened = await backend.openHostStore(c, { create: false });
    expect(await reopened!.getSetting("activeTargetId")).toBe("2");
    for (const store of [created, other, reopened]) await store!.close();
  },
  "PORT-4 after close every call rejects with unavailable": async ({ store: backend, expect }) => {
    await backend.close();
    await backend.close();
    const c = uniqueId("conversation");
    expect(await errorCode(() => backend.open({ address: address(c), ownerId: "run-1" }))).toBe("unavailable");
    expect(await errorCode(() => backend.openUnleased({ address: address(c), create: true }))).toBe("unavailable");
    expect(await errorCode(() => backend.openHostStore(c, { create: true }))).toBe("unavailable");
  },
  // Named for skipping: a backend kept in one object has no peer.
  "PORT-4 SES-2 a peer backend on the same storage sees the lease and the log": async ({ store: backend, inspect, expect }) => {
    if (!inspect?.peer) throw new Error("[steamharness] fixture gives no inspect.peer()");
    const peer = await inspect.peer();
    try {
      const c = uniqueId("conversation");
      const held = await backend.open({ address: address(c), ownerId: "run-1" });
      await held.append([plan("run-1", 0)]);
      expect(await errorCode(() => peer.open({ address: address(c), ownerId: "run-2" }))).toBe("session_busy");
      await held.close();
      const taken = await peer.open({ address: address(c), ownerId: "run-2" });
      expect((await taken.head()).lastSeq).toBe(1);
      await taken.close();
    } finally {
      await peer.close();
    }
  },
};

/** Case names of the backend's own cases in {@link runSessionBackendContract}. */
export type SessionBackendContractCase = keyof typeof cases & string;

const PEER_CASE: SessionBackendContractCase = "PORT-4 SES-2 a peer backend on the same storage sees the lease and the log";

/**
 * Contract suite for the session-backend port (PORT-4): the backend's own cases (leases and `open`
 * share one lease, unleased reads create nothing, host records per conversation, `unavailable`
 * after close, a peer backend on the same storage) plus the opener, lease and host-store suites
 * run on what the backend gives. Cross-process and cross-machine cases need real processes and
 * live in the adapter's own tests.
 *
 * @example
 * runSessionBackendContract({ describe, it, expect }, () => ({ store: createMemorySessionBackend() }), { databasePaths: false, shared: false });
 */
export function runSessionBackendContract(api: ContractTestApi, factory: ContractFactory<SessionBackend, SessionBackendInspect>, options: SessionBackendContractOptions): void {
  type Made<S, I> = { store: S; inspect?: I; dispose?: () => Promise<void> };
  const withBackend = <S, I>(make: (subject: ContractSubject<SessionBackend, SessionBackendInspect>) => Promise<Made<S, I>> | Made<S, I>) => async (): Promise<ContractSubject<S, I>> => {
    const subject = await factory();
    const made = await make(subject);
    return {
      store: made.store,
      ...(made.inspect === undefined ? {} : { inspect: made.inspect }),
      dispose: async () => {
        await made.dispose?.();
        await subject.store.close();
        await subject.dispose?.();
      },
    };
  };
  const pathOf = (inspect: SessionBackendInspect | undefined): ((name: string) => string) => {
    if (!inspect?.databasePath) throw new Error("[steamharness] a backend that accepts databasePath must give inspect.databasePath()");
    return inspect.databasePath;
  };
  api.describe("SessionBackend", () => {
    defineContract(api, "SessionBackend", factory, cases, { skip: [...(options.skip ?? []), ...(options.shared ? [] : [PEER_CASE])] });
    const openerSkip: SessionStoreOpenerContractCase[] = options.databasePaths ? [] : ["database-path"];
    runSessionStoreOpenerContract(
      api,
      withBackend(({ store, inspect }) => ({ store, ...(options.databasePaths ? { inspect: { databasePath: pathOf(inspect) } } : {}) })),
      { skip: openerSkip },
    );
    const leaseSkip: SessionLeaseContractCase[] = [...(options.databasePaths ? [] : (["SES-2 an explicit database path is leased like an address"] as const)), ...(options.shared ? [] : (["shared-storage"] as const))];
    runSessionLeaseContract(
      api,
      withBackend(async ({ store, inspect }) => {
        const peer = options.shared && inspect?.peer ? await inspect.peer() : undefined;
        return {
          store: store.leases,
          inspect: {
            pathTarget: (name: string) => (options.databasePaths ? { databasePath: pathOf(inspect)(name) } : { projectId: "contract", sessionKey: name }),
            ...(peer ? { peer: () => peer.leases } : {}),
          },
          dispose: async () => void (await peer?.close()),
        };
      }),
      { skip: leaseSkip },
    );
    // A backend kept in one object is its own peer: two host stores on one record.
    runSessionHostStoreContract(
      api,
      withBackend(async ({ store, inspect }) => {
        const conversationId = uniqueId("conversation");
        const peerBackend = options.shared && inspect?.peer ? await inspect.peer() : null;
        const hostStore = (await store.openHostStore(conversationId, { create: true }))!;
        return {
          store: hostStore,
          inspect: { peer: async () => (await (peerBackend ?? store).openHostStore(conversationId, { create: false }))! },
          dispose: async () => {
            await hostStore.close();
            await peerBackend?.close();
          },
        };
      }),
    );
  });
}
