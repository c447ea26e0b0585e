import type { SessionLeaseProvider, SessionLeaseTarget } from "../ports/session-lease.js";
import { defineContract, errorCode, uniqueId, type ContractCases, type ContractFactory, type ContractOptions, type ContractTestApi } from "./contract-support.js";

/** What a lease fixture tells the suite about its storage (the subject's `inspect`). */
export interface SessionLeaseInspect {
  /** An explicit-path target for a session name, inside the fixture's storage. */
  pathTarget(name: string): SessionLeaseTarget;
  /** A second provider on the same storage (another host object); required unless "shared-storage" is skipped. */
  peer?(): SessionLeaseProvider;
}

const address = (conversationId: string, sessionKey: string): SessionLeaseTarget => ({ projectId: "contract", conversationId, sessionKey });

function needInspect(inspect: SessionLeaseInspect | undefined): SessionLeaseInspect {
  if (!inspect) throw new Error("[steamharness] the session lease fixture must give inspect.pathTarget");
  return inspect;
}

const cases: ContractCases<SessionLeaseProvider, SessionLeaseInspect> = {
  "SES-2 grants a free session and refuses it while held, even to the same owner id": async ({ store: provider, expect }) => {
    const c = uniqueId("conversation");
    const lease = await provider.acquire(address(c, "agent"), { ownerId: "owner-a" });
    expect(lease?.ownerId).toBe("owner-a");
    expect(typeof lease?.key).toBe("string");
    expect(lease?.isHeld()).toBe(true);
    expect(await provider.acquire(address(c, "agent"), { ownerId: "owner-b" })).toBeNull();
    expect(await provider.acquire(address(c, "agent"), { ownerId: "owner-a" })).toBeNull();
    expect(await errorCode(() => provider.acquire(address(c, "agent"), { ownerId: "owner-b", onBusy: "throw" }))).toBe("session_busy");
    expect(lease?.isHeld()).toBe(true);
    await lease?.release();
  },
  "SES-2 release frees the session; release is idempotent": async ({ store: provider, expect }) => {
    const c = uniqueId("conversation");
    const first = await provider.acquire(address(c, "agent"), { ownerId: "owner-a" });
    await first!.release();
    await first!.release();
    expect(first!.isHeld()).toBe(false);
    const second = await provider.acquire(address(c, "agent"), { ownerId: "owner-b" });
    expect(second?.isHeld()).toBe(true);
    expect(first!.isHeld()).toBe(false);
    await second?.release();
  },
  "SES-2 concurrent acquires of a free session grant exactly one lease": async ({ store: provider, expect }) => {
    const c = uniqueId("conversation");
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => provider.acquire(address(c, "race"), { ownerId: `owner-${i}` })));
    const granted = results.filter((lease) => lease !== null);
    expect(granted.length).toBe(1);
    await granted[0]!.release();
  },
  "SES-1 distinct sessions never contend (Chinese keys, spaces, case, other conversation)": async ({ store: provider, expect }) => {
    const c = uniqueId("conversation");
    const targets = [address(c, "agent"), address(c, "Agent"), address(c, "会话 一"), address(c, "会话-一"), address(c, "a b"), address(`${c}-2`, "agent"), { projectId: "contract", sessionKey: "agent" }];
    const leases = await Promise.all(targets.map((target, i) => provider.acquire(target, { ownerId: `owner-${i}` })));
    expect(leases.every((lease) => lease?.isHeld() === true)).toBe(true);
    expect(new Set(leases.map((lease) => lease!.key)).size).toBe(targets.length);
    await Promise.all(leases.map((lease) => lease!.release()));
  },
  "SES-2 an explicit database path is leased like an address": async ({ store: provider, inspect, expect }) => {
    const { pathTarget } = needInspect(inspect);
    const name = uniqueId("path");
    const lease = await provider.acquire(pathTarget(name), { ownerId: "owner-a" });
    expect(lease?.isHeld()).toBe(true);
    expect(await provider.acquire(pathTarget(name), { ownerId: "owner-b" })).toBeNull();
    await lease?.release();
    const again = await provider.acquire(pathTarget(name), { ownerId: "owner-b" });
    expect(again?.isHeld()).toBe(true);
    await again?.release();
  },
  "refuses an empty owner id or a target without a session with input_validation": async ({ store: provider, expect }) => {
    const c = uniqueId("conversation");
    expect(await errorCode(() => provider.acquire(address(c, "agent"), { ownerId: "" }))).toBe("input_validation");
    expect(await errorCode(() => provider.acquire({ projectId: "contract" } as unknown as SessionLeaseTarget, { ownerId: "a" }))).toBe("input_validation");
    const lease = await provider.acquire(address(c, "agent"), { ownerId: "owner-a" });
    expect(lease?.isHeld()).toBe(true);
    await lease?.release();
  },
  // Named for skipping: a provider whose leases live in one object has no second provider to share them.
  "shared-storage": async ({ store: provider, inspect, expect }) => {
    const peerOf = needInspect(inspect).peer;
    if (!peerOf) throw new Error("[steamharness] fixture gives no inspect.peer(): skip 'shared-storage' with a reason");
    const peer = peerOf();
    const c = uniqueId("conversation");
    const lease = await provider.acquire(address(c, "agent"), { ownerId: "owner-a" });
    expect(lease?.isHeld()).toBe(true);
    expect(await peer.acquire(address(c, "agent"), { ownerId: "owner-b" })).toBeNull();
    await lease?.release();
    const taken = await peer.acquire(address(c, "agent"), { ownerId: "owner-b" });
    expect(taken?.isHeld()).toBe(true);
    await taken?.release();
  },
};

/** Case names of {@link runSessionLeaseContract}; "shared-storage" may be skipped by adapters whose leases live in one object. */
export type SessionLeaseContractCase = keyof typeof cases & string;

/**
 * Contract suite for the session-lease port (SES-2 within one process): a free session is
 * granted, a held one refused (also to the same owner id, also with `onBusy: "throw"`), release
 * frees it, concurrent acquires grant exactly one, distinct sessions never contend. The
 * cross-process and kill -9 cases need real processes and live in the adapter's own tests.
 *
 * @example
 * runSessionLeaseContract({ describe, it, expect }, () => ({ store: createMemorySessionLeaseProvider(), inspect: { pathTarget: (n) => ({ databasePath: `/m/${n}` }) } }));
 */
export function runSessionLeaseContract(
  api: ContractTestApi,
  factory: ContractFactory<SessionLeaseProvider, SessionLeaseInspect>,
  options: ContractOptions<SessionLeaseContractCase> = {},
): void {
  defineContract(api, "SessionLease", factory, cases, options);
}
