import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "@jest/globals";
import { createFixedClock } from "../../src/adapters/driven/memory/fixed-clock.js";
import { createMemoryApprovalStore } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import { createSqliteApprovalStore } from "../../src/adapters/driven/sqlite/store/sqlite-approval-store.js";
import { createGovernedToolPermissions, loadApprovalPolicy } from "../../src/app/approvals/governed-tool-permissions.js";
import { verifyAuditChain } from "../../src/domain/approvals/audit-chain.js";
import type { ApprovalPolicy } from "../../src/domain/approvals/policy.js";
import { createKeySecrets } from "../../src/adapters/driven/system/key-secrets.js";
import type { ApprovalStore } from "../../src/ports/approval-store.js";
import type { ToolPermissionRequest } from "../../src/ports/tool-permissions.js";

const START = Date.UTC(2026, 11, 2, 12, 0);
const policyOf = (extra: Partial<ApprovalPolicy> = {}): ApprovalPolicy => ({
  approverGroups: { sre: [{ subject: "alice" }, { subject: "bob" }], security: [{ subject: "sec" }] },
  approvers: "sre",
  expiresAfterMs: 60_000,
  onExpiry: "deny",
  rules: [{ tool: "read_*", action: "allow" }, { tool: "drop_*", action: "deny", reason: "never" }],
  ...extra,
});
const call = (over: Partial<ToolPermissionRequest> = {}): ToolPermissionRequest => ({ requestId: "approval:1", runId: "run-1", toolId: "deploy", arguments: { env: "prod" }, requestedBy: { tenant: "key:acme", subject: "carol" }, ...over });
const alice = { surface: "gateway", tenant: "key:acme", subject: "alice" };
const digest = createKeySecrets().digest;

const opened: Array<{ store: ApprovalStore; dir?: string }> = [];
afterEach(async () => {
  for (const { store, dir } of opened.splice(0)) {
    await store.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
});

const stores: Array<[string, () => ApprovalStore]> = [
  ["memory", () => {
    const store = createMemoryApprovalStore();
    opened.push({ store });
    return store;
  }],
  ["SQLite", () => {
    const dir = mkdtempSync(join(tmpdir(), "sh-gov-"));
    const store = createSqliteApprovalStore({ directory: dir });
    opened.push({ store, dir });
    return store;
  }],
];

describe.each(stores)("governed tool permissions on %s", (_name, open) => {
  const setup = (extra: Partial<ApprovalPolicy> = {}, store = open()) => {
    const clock = createFixedClock(START);
    const policy = loadApprovalPolicy(policyOf(extra));
    return { clock, store, policy, permissions: createGovernedToolPermissions({ policy, store, clock }) };
  };

  it("GOV-1 a request records run, tool, argument hash, policy version, requester and deadline; the decision records approver, time, reason and scope", async () => {
    const { store, clock, permissions, policy } = setup();
    expect(await permissions.request(call())).toEqual({ outcome: "pending" });
    const request = await store.request("approval:1");
    expect(request).toMatchObject({ id: "approval:1", tenant: "key:acme", runId: "run-1", toolId: "deploy", argumentsHash: digest('{"env":"prod"}'), policyVersion: policy.version, requestedBy: { tenant: "key:acme", subject: "carol" }, createdAt: START, expiresAt: START + 60_000, state: "pending" });
    clock.advance(1000);
    const decision = await permissions.decide({ requestId: "approval:1", outcome: "approved", approver: alice, reason: "change ticket 42" });
    expect(decision).toMatchObject({ approver: alice, decidedAt: START + 1000, reason: "change ticket 42", scope: "once", policyVersion: policy.version, argumentsHash: request!.argumentsHash });
    expect(await permissions.request(call())).toEqual({ outcome: "approved", answeredBy: { ...alice, at: START + 1000 } });
    // The policy's own verdicts need nobody.
    expect(await permissions.request(call({ requestId: "r2", toolId: "read_logs" }))).toMatchObject({ outcome: "approved", answeredBy: { surface: "policy" } });
    expect(await permissions.request(call({ requestId: "r3", toolId: "drop_table" }))).toMatchObject({ outcome: "denied", reason: "never" });
  });

  it("GOV-2 an unanswered request expires into its own outcome, not a denial; the policy says whether the run fails or goes on", async () => {
    const { clock, permissions, store } = setup();
    await permissions.request(call());
    clock.advance(60_000);
    expect(await permissions.request(call())).toMatchObject({ outcome: "expired", then: "continue" });
    await expect(permissions.decide({ requestId: "approval:1", outcome: "approved", approver: alice })).rejects.toMatchObject({ code: "approval_expired" });
    const failing = setup({ onExpiry: "fail" });
    await failing.permissions.request(call());
    failing.clock.advance(60_000);
    expect(await failing.permissions.request(call())).toMatchObject({ outcome: "expired", then: "fail" });
    const kinds = (await store.audit("key:acme")).map((entry) => entry.kind);
    expect(kinds).toEqual(["request", "expiry"]);
  });

  it("GOV-5 changed arguments or a newer policy version ask again; the old decision does not apply", async () => {
    const { store, clock, permissions } = setup();
    await permissions.request(call());
    await permissions.decide({ requestId: "approval:1", outcome: "approved", approver: alice, scope: "always" });
    expect((await permissions.request(call())).outcome).toBe("approved");
    // The same call with other arguments (a new request id, as the gate derives it) is not covered.
    expect(await permissions.request(call({ requestId: "approval:2", arguments: { env: "staging" } }))).toEqual({ outcome: "pending" });
    // `always` reaches a new run's identical call…
    expect((await permissions.request(call({ requestId: "approval:3", runId: "run-2" }))).outcome).toBe("approved");
    // …but not once the policy changes.
    const newer = createGovernedToolPermissions({ policy: loadApprovalPolicy(policyOf({ expiresAfterMs: 120_000 })), store, clock });
    expect(newer.policyVersion).not.toBe(permissions.policyVersion);
    expect(await newer.request(call({ requestId: "approval:3", runId: "run-2" }))).toEqual({ outcome: "pending" });
    expect(await newer.request(call())).toEqual({ outcome: "pending" });
    expect(await store.request("approval:1")).toMatchObject({ policyVersion: newer.policyVersion, state: "pending" });
  });

  it("GOV-5 a once-decision is used by one call only", async () => {
    const { permissions, store } = setup();
    await permissions.request(call());
    await permissions.decide({ requestId: "approval:1", outcome: "approved", approver: alice });
    const outcomes = await Promise.all([permissions.request(call()), permissions.request(call())]);
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(["approved", "denied"]);
    expect(outcomes.find((o) => o.outcome === "denied")).toMatchObject({ reason: expect.stringContaining("approval_used") });
    expect((await store.audit("key:acme")).filter((entry) => entry.kind === "use")).toHaveLength(1);
  });

  it("GOV-4 only the approver group decides, never the requester, and never twice", async () => {
    const { permissions } = setup({ approverGroups: { sre: [{ subject: "alice" }, { subject: "carol" }] } });
    await permissions.request(call());
    await expect(permissions.decide({ requestId: "approval:1", outcome: "approved", approver: { surface: "gateway", tenant: "key:acme", subject: "mallory" } })).rejects.toMatchObject({ code: "forbidden", data: { rule: "approver_group" } });
    await expect(permissions.decide({ requestId: "approval:1", outcome: "approved", approver: { surface: "gateway", tenant: "key:acme", subject: "carol" } })).rejects.toMatchObject({ code: "forbidden", data: { rule: "self_approval" } });
    await expect(permissions.decide({ requestId: "missing", outcome: "approved", approver: alice })).rejects.toMatchObject({ code: "not_found" });
    await permissions.decide({ requestId: "approval:1", outcome: "denied", approver: alice, reason: "not today" });
    await expect(permissions.decide({ requestId: "approval:1", outcome: "approved", approver: alice })).rejects.toMatchObject({ code: "conflict" });
    expect(await permissions.request(call())).toMatchObject({ outcome: "denied", reason: "not today", answeredBy: alice });
    // Self-approval is a policy switch.
    const lenient = setup({ approverGroups: { sre: [{ subject: "carol" }] }, allowSelfApproval: true });
    await lenient.permissions.request(call());
    await expect(lenient.permissions.decide({ requestId: "approval:1", outcome: "approved", approver: { surface: "gateway", tenant: "key:acme", subject: "carol" } })).resolves.toMatchObject({ outcome: "approved" });
    // Without a group, a principal of another tenant may not decide.
    const open_ = setup({ approverGroups: {}, approvers: undefined });
    await open_.permissions.request(call());
    await expect(open_.permissions.decide({ requestId: "approval:1", outcome: "approved", approver: { surface: "gateway", tenant: "key:other", subject: "x" } })).rejects.toMatchObject({ code: "forbidden", data: { rule: "tenant" } });
  });

  it("GOV-3 after the escalation wait the request goes to the escalation group too and the host hook is told", async () => {
    const escalated: string[] = [];
    const clock = createFixedClock(START);
    const store = open();
    const permissions = createGovernedToolPermissions({ policy: policyOf({ escalation: { afterMs: 15_000, to: "security" }, onExpiry: "escalate" }), store, clock, onEscalation: (request, group) => void escalated.push(`${request.id}→${group}`) });
    await permissions.request(call());
    await expect(permissions.decide({ requestId: "approval:1", outcome: "approved", approver: { surface: "cli", subject: "sec" } })).rejects.toMatchObject({ code: "forbidden" });
    clock.advance(15_000);
    expect(await permissions.request(call())).toEqual({ outcome: "pending" });
    expect(escalated).toEqual(["approval:1→security"]);
    await permissions.decide({ requestId: "approval:1", outcome: "approved", approver: { surface: "cli", subject: "sec" } });
    expect((await permissions.request(call())).outcome).toBe("approved");
    expect((await store.audit("key:acme")).map((entry) => entry.kind)).toEqual(["request", "escalation", "decision", "use"]);
  });

  it("GOV-2 GOV-3 a decision that arrives after the wait or at the deadline escalates first, so the escalation group decides a request whose policy escalates, never an expiry", async () => {
    for (const advanceBy of [15_000, 60_000]) {
      const clock = createFixedClock(START);
      const store = open();
      const permissions = createGovernedToolPermissions({ policy: policyOf({ escalation: { afterMs: 15_000, to: "security" }, onExpiry: "escalate" }), store, clock });
      await permissions.request(call());
      // Nothing (no call, no sweeper) looked at the request between its creation and the decision.
      clock.advance(advanceBy);
      await expect(permissions.decide({ requestId: "approval:1", outcome: "approved", approver: { surface: "cli", subject: "sec" } })).resolves.toMatchObject({ outcome: "approved" });
      expect((await permissions.request(call())).outcome).toBe("approved");
      expect((await store.audit("key:acme")).map((entry) => entry.kind)).toEqual(["request", "escalation", "decision", "use"]);
    }
    // A policy that does not escalate: the late decision is the distinct expiry (GOV-2).
    const { permissions, clock, store } = setup();
    await permissions.request(call());
    clock.advance(60_000);
    await expect(permissions.decide({ requestId: "approval:1", outcome: "approved", approver: alice })).rejects.toMatchObject({ code: "approval_expired" });
    expect((await store.audit("key:acme")).map((entry) => entry.kind)).toEqual(["request", "expiry"]);
  });

  it("GOV-7 every request, decision, expiry, escalation and use is appended to the tenant's hash chain, which verifies", async () => {
    const { store, permissions, clock } = setup();
    await permissions.request(call());
    await permissions.decide({ requestId: "approval:1", outcome: "approved", approver: alice });
    await permissions.request(call());
    await permissions.request(call({ requestId: "r9", toolId: "other", requestedBy: { tenant: "key:beta", subject: "dan" } }));
    clock.advance(60_000);
    await permissions.request(call({ requestId: "r9", toolId: "other", requestedBy: { tenant: "key:beta", subject: "dan" } }));
    expect(await store.auditTenants()).toEqual(["key:acme", "key:beta"]);
    const acme = await store.audit("key:acme");
    expect(acme.map((entry) => [entry.seq, entry.kind])).toEqual([[1, "request"], [2, "decision"], [3, "use"]]);
    expect(acme[1]!.prevHash).toBe(acme[0]!.hash);
    expect(acme[1]!.data).toMatchObject({ approver: alice, outcome: "approved", scope: "once", policyVersion: permissions.policyVersion });
    const beta = await store.audit("key:beta");
    expect(beta.map((entry) => entry.kind)).toEqual(["request", "expiry"]);
    expect(verifyAuditChain([...acme, ...beta], digest)).toEqual({ ok: true, entries: 5, tenants: 2 });
    expect(await store.audit("key:acme", { afterSeq: 1, limit: 1 })).toEqual([acme[1]]);
  });
});

describe("GOV-7 audit chain verification", () => {
  it("GOV-7 a changed, a removed and a reordered entry are each reported", async () => {
    const store = createMemoryApprovalStore();
    for (let i = 0; i < 4; i++) await store.appendAudit({ tenant: "t", at: START + i, kind: "request", requestId: `r${i}`, data: { i } });
    const entries = await store.audit("t");
    expect(verifyAuditChain(entries, digest).ok).toBe(true);
    expect(verifyAuditChain(entries.map((entry) => (entry.seq === 2 ? { ...entry, data: { i: 99 } } : entry)), digest)).toMatchObject({ ok: false, seq: 2, problem: "changed" });
    expect(verifyAuditChain(entries.filter((entry) => entry.seq !== 2), digest)).toMatchObject({ ok: false, seq: 3, problem: "removed" });
    expect(verifyAuditChain([entries[0]!, entries[2]!, entries[1]!, entries[3]!], digest)).toMatchObject({ ok: false, seq: 3, problem: "reordered" });
  });
});
