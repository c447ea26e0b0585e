import type { ApprovalAuditInput, ApprovalDecisionRecord, ApprovalRequestRecord, ApprovalStore } from "../ports/approval-store.js";
import { defineContract, errorCode, uniqueId, type ContractCases, type ContractFactory, type ContractOptions, type ContractTestApi } from "./contract-support.js";

/** Raw access an approval-store subject may offer: a second store on the same backing storage (another connection or handle). */
export interface ApprovalStoreInspect {
  peer?: ApprovalStore;
}

const AT = Date.UTC(2026, 11, 7, 12);
const VERDICT = { action: "ask" as const, rule: null, approvers: null, expiresAfterMs: 60_000, onExpiry: "deny" as const, escalation: null };

const requestOf = (over: Partial<ApprovalRequestRecord> = {}): ApprovalRequestRecord => ({
  id: uniqueId("approval"), tenant: uniqueId("tenant"), runId: uniqueId("run"), sessionId: null, toolId: "deploy", argumentsHash: "a".repeat(64), policyVersion: "sha256:1",
  requestedBy: { tenant: "key:acme", subject: "carol" }, createdAt: AT, expiresAt: AT + 60_000, state: "pending", verdict: VERDICT, escalatedAt: null, ...over,
});
const decisionOf = (request: ApprovalRequestRecord, over: Partial<ApprovalDecisionRecord> = {}): ApprovalDecisionRecord => ({
  id: uniqueId("decision"), requestId: request.id, tenant: request.tenant, toolId: request.toolId, argumentsHash: request.argumentsHash, policyVersion: request.policyVersion, sessionId: request.sessionId,
  outcome: "approved", scope: "once", approver: { surface: "cli", tenant: "key:acme", subject: "alice" }, reason: null, decidedAt: AT + 1, usedAt: null, usedBy: null, ...over,
});
/** The store, or the peer handle on the same storage when the subject gives one (what another host sees). */
const other = (store: ApprovalStore, inspect: ApprovalStoreInspect | undefined) => inspect?.peer ?? store;

const cases: ContractCases<ApprovalStore, ApprovalStoreInspect> = {
  "createRequest keeps the first writer's request; request reads it back, null when missing": async ({ store, inspect, expect }) => {
    const first = requestOf();
    expect(await store.createRequest(first)).toEqual({ request: first, created: true });
    const again = await other(store, inspect).createRequest({ ...first, argumentsHash: "b".repeat(64) });
    expect(again).toEqual({ request: first, created: false });
    expect(await other(store, inspect).request(first.id)).toEqual(first);
    expect(await store.request(uniqueId("missing"))).toBeNull();
  },
  "rebindRequest replaces only a request of another binding, pending again": async ({ store, expect }) => {
    const first = requestOf();
    await store.createRequest(first);
    expect(await store.settleRequest(first.id, "decided")).toBe(true);
    expect(await store.rebindRequest(first)).toBe(false);
    const rebound = { ...first, policyVersion: "sha256:2", createdAt: AT + 5, expiresAt: AT + 5 + 60_000 };
    expect(await store.rebindRequest(rebound)).toBe(true);
    expect(await store.rebindRequest(rebound)).toBe(false);
    expect(await store.request(first.id)).toEqual(rebound);
  },
  "settleRequest moves a pending request once, for one caller": async ({ store, inspect, expect }) => {
    const first = requestOf();
    await store.createRequest(first);
    const settled = await Promise.all([store.settleRequest(first.id, "decided"), other(store, inspect).settleRequest(first.id, "expired")]);
    expect(settled.filter(Boolean)).toHaveLength(1);
    expect(["decided", "expired"]).toContain((await store.request(first.id))?.state);
    expect(await store.settleRequest(uniqueId("missing"), "expired")).toBe(false);
  },
  "escalateRequest sets the escalation once and the new deadline": async ({ store, inspect, expect }) => {
    const first = requestOf();
    await store.createRequest(first);
    expect(await store.escalateRequest(first.id, AT + 10, AT + 120_000)).toBe(true);
    expect(await other(store, inspect).escalateRequest(first.id, AT + 11, AT + 130_000)).toBe(false);
    expect(await store.request(first.id)).toEqual({ ...first, escalatedAt: AT + 10, expiresAt: AT + 120_000 });
  },
  "dueRequests finds pending requests whose escalation or expiry is due, oldest due first; an escalation moves it to the new deadline": async ({ store, inspect, expect }) => {
    // Times long before every other case's, so requests of other cases on a shared database are never due here.
    const t = 1_000_000 + Math.floor(Math.random() * 1_000_000);
    const escalating = requestOf({ createdAt: t, expiresAt: t + 60_000, verdict: { ...VERDICT, escalation: { afterMs: 1_000, to: "security" } } });
    const expiring = requestOf({ createdAt: t, expiresAt: t + 500 });
    const later = requestOf({ createdAt: t, expiresAt: t + 60_000 });
    const decided = requestOf({ createdAt: t, expiresAt: t + 100 });
    for (const request of [escalating, expiring, later, decided]) await store.createRequest(request);
    await store.settleRequest(decided.id, "decided");
    const mine = new Set([escalating.id, expiring.id, later.id, decided.id]);
    const due = async (now: number) => (await other(store, inspect).dueRequests(now, 1_000)).filter((request) => mine.has(request.id));
    expect(await due(t + 499)).toEqual([]);
    expect(await due(t + 1_000)).toEqual([expiring, escalating]);
    expect(await store.dueRequests(t + 1_000, 1)).toHaveLength(1);
    await store.escalateRequest(escalating.id, t + 1_000, t + 90_000);
    expect((await due(t + 60_000)).map((request) => request.id)).toEqual([expiring.id, later.id]);
    expect((await due(t + 90_000)).map((request) => request.id)).toEqual([expiring.id, later.id, escalating.id]);
    for (const request of [escalating, expiring, later]) await store.settleRequest(request.id, "expired");
    expect(await due(t + 90_000)).toEqual([]);
  },
  "a decision is read back by its request; a duplicate id is a conflict": async ({ store, expect }) => {
    const first = requestOf();
    await store.createRequest(first);
    expect(await store.decisionOf(first.id)).toBeNull();
    const decision = decisionOf(first, { reason: "change 4711" });
    await store.addDecision(decision);
    expect(await store.decisionOf(first.id)).toEqual(decision);
    expect(await errorCode(() => store.addDecision(decision))).toBe("conflict");
  },
  "standingDecision matches scope always by binding and scope session by its session too": async ({ store, expect }) => {
    const first = requestOf({ sessionId: uniqueId("session") });
    await store.createRequest(first);
    const binding = { tenant: first.tenant, toolId: first.toolId, argumentsHash: first.argumentsHash, policyVersion: first.policyVersion, sessionId: first.sessionId };
    await store.addDecision(decisionOf(first, { scope: "once" }));
    expect(await store.standingDecision(binding)).toBeNull();
    const session = decisionOf(first, { scope: "session", decidedAt: AT + 2 });
    await store.addDecision(session);
    expect(await store.standingDecision(binding)).toEqual(session);
    expect(await store.standingDecision({ ...binding, sessionId: uniqueId("session") })).toBeNull();
    expect(await store.standingDecision({ ...binding, policyVersion: "sha256:other" })).toBeNull();
    const always = decisionOf(first, { scope: "always", decidedAt: AT + 3 });
    await store.addDecision(always);
    expect(await store.standingDecision({ ...binding, sessionId: uniqueId("session") })).toEqual(always);
    expect(await store.standingDecision({ ...binding, tenant: uniqueId("tenant") })).toBeNull();
  },
  "useOnce marks an unused once-decision for exactly one caller": async ({ store, inspect, expect }) => {
    const first = requestOf();
    await store.createRequest(first);
    const decision = decisionOf(first);
    await store.addDecision(decision);
    const used = await Promise.all([store.useOnce(decision.id, first.id, AT + 5), other(store, inspect).useOnce(decision.id, "approval:other", AT + 6)]);
    expect(used.filter(Boolean)).toHaveLength(1);
    expect(await store.useOnce(decision.id, first.id, AT + 7)).toBe(false);
    expect((await store.decisionOf(first.id))?.usedAt).not.toBeNull();
  },
  "appendAudit numbers and chains a tenant's entries, apart from other tenants'": async ({ store, inspect, expect }) => {
    const tenant = uniqueId("tenant");
    const otherTenant = uniqueId("tenant");
    const one = await store.appendAudit({ tenant, at: AT, kind: "request", requestId: "r1", data: { toolId: "deploy" } });
    const two = await other(store, inspect).appendAudit({ tenant, at: AT + 1, kind: "decision", requestId: "r1", data: { outcome: "approved" } });
    const elsewhere = await store.appendAudit({ tenant: otherTenant, at: AT, kind: "request", requestId: null, data: {} });
    expect([one.seq, two.seq, elsewhere.seq]).toEqual([1, 2, 1]);
    expect(one.prevHash).toBe("0".repeat(64));
    expect(two.prevHash).toBe(one.hash);
    expect(one.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await store.audit(tenant)).toEqual([one, two]);
    expect(await store.audit(tenant, { afterSeq: 1 })).toEqual([two]);
    expect(await store.audit(tenant, { limit: 1 })).toEqual([one]);
    const tenants = await store.auditTenants();
    expect([tenant, otherTenant].filter((name) => tenants.includes(name))).toEqual([tenant, otherTenant]);
    expect([...tenants].sort()).toEqual(tenants);
  },
  "an append after another handle's appends follows them, not the entry it appended itself": async ({ store, inspect, expect }) => {
    const tenant = uniqueId("tenant");
    const peer = other(store, inspect);
    const one = await store.appendAudit({ tenant, at: AT, kind: "request", requestId: "r1", data: {} });
    const two = await peer.appendAudit({ tenant, at: AT + 1, kind: "decision", requestId: "r1", data: {} });
    const three = await peer.appendAudit({ tenant, at: AT + 2, kind: "use", requestId: "r1", data: {} });
    const four = await store.appendAudit({ tenant, at: AT + 3, kind: "request", requestId: "r2", data: {} });
    expect([one.seq, two.seq, three.seq, four.seq]).toEqual([1, 2, 3, 4]);
    expect(four.prevHash).toBe(three.hash);
    expect(await peer.audit(tenant)).toEqual([one, two, three, four]);
  },
  "createRequest appends its audit entries with the request, after other handles' entries, only when it creates it": async ({ store, inspect, expect }) => {
    const peer = other(store, inspect);
    const request = requestOf();
    const { tenant } = request;
    await peer.appendAudit({ tenant, at: AT, kind: "decision", requestId: "r0", data: {} });
    await store.appendAudit({ tenant, at: AT + 1, kind: "use", requestId: "r0", data: {} });
    // The subject's last append is no longer the chain's end: its entries must follow this one.
    const third = await peer.appendAudit({ tenant, at: AT + 2, kind: "expiry", requestId: "r0", data: {} });
    const entries: ApprovalAuditInput[] = [
      { tenant, at: AT + 3, kind: "request", requestId: request.id, data: { quoted: "a \"b\" \\ é ☃", nested: { list: [1, null, true] } } },
      { tenant, at: AT + 4, kind: "use", requestId: request.id, data: { decisionId: "d1" } },
    ];
    expect(await store.createRequest(request, entries)).toEqual({ request, created: true });
    const chain = await peer.audit(tenant);
    expect(chain.map((entry) => entry.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(chain.slice(3).map(({ kind, requestId, data, at }) => ({ tenant, at, kind, requestId, data }))).toEqual(entries);
    expect(chain[3]!.prevHash).toBe(third.hash);
    expect(chain[4]!.prevHash).toBe(chain[3]!.hash);
    // A request that exists already appends nothing.
    expect(await peer.createRequest({ ...request, createdAt: AT + 9 }, entries)).toEqual({ request, created: false });
    expect(await store.audit(tenant)).toEqual(chain);
    expect(await store.createRequest({ ...request, createdAt: AT + 9 }, entries)).toEqual({ request, created: false });
    // …and the next append of those handles still follows the chain's end (no gap).
    const next = await store.appendAudit({ tenant, at: AT + 10, kind: "use", requestId: request.id, data: {} });
    expect([next.seq, next.prevHash]).toEqual([6, chain[4]!.hash]);
    // Entries of another tenant are refused, and the request is not created.
    const stray = requestOf();
    expect(await errorCode(() => store.createRequest(stray, entries))).toBe("input_validation");
    expect(await store.request(stray.id)).toBeNull();
  },
  "createRequest with a cover reads the standing decision with the insert, a newer one another handle added included, and appends its entries": async ({ store, inspect, expect }) => {
    const peer = other(store, inspect);
    const first = requestOf();
    const { tenant } = first;
    const binding = { tenant, toolId: first.toolId, argumentsHash: first.argumentsHash, policyVersion: first.policyVersion, sessionId: null };
    const cover = { binding, entries: (standing: ApprovalDecisionRecord): ApprovalAuditInput[] => [{ tenant, at: AT + 5, kind: "use", requestId: null, data: { decisionId: standing.id } }] };
    const entry = (request: ApprovalRequestRecord): ApprovalAuditInput[] => [{ tenant, at: AT, kind: "request", requestId: request.id, data: {} }];
    // No standing decision yet: the request's own entry only (and this handle has now seen none).
    expect(await store.createRequest(first, entry(first), cover)).toEqual({ request: first, created: true, standing: null });
    // Another handle (host) decides `always`; this handle's next request must see it, not what it saw last.
    const always = decisionOf(first, { scope: "always", decidedAt: AT + 2 });
    await peer.addDecision(always);
    const second = requestOf({ tenant });
    expect(await store.createRequest(second, entry(second), cover)).toEqual({ request: second, created: true, standing: always });
    // A newer standing decision (a denial) replaces it, for this handle's later requests too.
    const denied = decisionOf(first, { scope: "always", outcome: "denied", decidedAt: AT + 3 });
    await peer.addDecision(denied);
    const third = requestOf({ tenant });
    expect(await store.createRequest(third, entry(third), cover)).toEqual({ request: third, created: true, standing: denied });
    // An existing request is not written again, and the standing decision still comes back.
    expect(await peer.createRequest({ ...third, createdAt: AT + 9 }, entry(third), cover)).toEqual({ request: third, created: false, standing: denied });
    const chain = await peer.audit(tenant);
    expect(chain.map(({ kind, requestId, data }) => [kind, requestId ?? data.decisionId])).toEqual([["request", first.id], ["request", second.id], ["use", always.id], ["request", third.id], ["use", denied.id]]);
    expect(chain.map((row) => row.seq)).toEqual([1, 2, 3, 4, 5]);
  },
  "concurrent appends of one tenant get distinct, gapless numbers": async ({ store, inspect, expect }) => {
    const tenant = uniqueId("tenant");
    const handles = [store, other(store, inspect)];
    const entries = await Promise.all(Array.from({ length: 8 }, (_, n) => handles[n % 2]!.appendAudit({ tenant, at: AT + n, kind: "use", requestId: null, data: { n } })));
    expect(entries.map((entry) => entry.seq).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const chain = await store.audit(tenant);
    for (let n = 1; n < chain.length; n++) expect(chain[n]!.prevHash).toBe(chain[n - 1]!.hash);
  },
};

/**
 * The ApprovalStore contract (GOV-1/5/7): requests kept by their first writer, rebinding under a
 * new binding, state changes, escalation and once-use each made by exactly one caller — through
 * the subject and through `inspect.peer`, a second handle on the same store (another host) —
 * decisions and standing decisions matched by binding, and per-tenant audit chains numbered
 * without gaps and linked by hash.
 *
 * @example
 * runApprovalStoreContract({ describe, it, expect }, () => ({ store: createMemoryApprovalStore() }));
 */
export function runApprovalStoreContract(
  api: ContractTestApi,
  factory: ContractFactory<ApprovalStore, ApprovalStoreInspect>,
  options: ContractOptions<keyof typeof cases & string> = {},
): void {
  defineContract(api, "ApprovalStore", factory, cases, options);
}
