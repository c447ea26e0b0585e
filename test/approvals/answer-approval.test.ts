// Issue 47 item 4: the one app step every surface answers approvals through (answerApproval,
// governedAnswers) and the gate's requester (GOV-1, GOV-4), on the memory approval store.
import { describe, expect, it } from "@jest/globals";
import { createFixedClock } from "../../src/adapters/driven/memory/fixed-clock.js";
import { createMemoryApprovalStore } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import { answerApproval, governedAnswers } from "../../src/app/approvals/answer-approval.js";
import { createGovernedToolPermissions } from "../../src/app/approvals/governed-tool-permissions.js";
import { createToolApprovalGate } from "../../src/domain/approval-gate.js";
import type { ToolPermissionRequest } from "../../src/ports/tool-permissions.js";

const governed = () => {
  const store = createMemoryApprovalStore();
  return { store, permissions: createGovernedToolPermissions({ policy: { rules: [] }, store, clock: createFixedClock(Date.UTC(2026, 11, 7)) }) };
};
const request: ToolPermissionRequest = { requestId: "approval:1", runId: "run-1", toolId: "deploy", arguments: { env: "prod" } };

describe("issue 47: answering an approval", () => {
  it("GOV-1 without governance the answer passes as given; with it, decide() records the answerer and the answer carries the decision's time", async () => {
    expect(await answerApproval(undefined, { requestId: "r", outcome: "denied", reason: "no", answeredBy: { surface: "viewer", at: 5 } })).toEqual({ outcome: "denied", reason: "no", answeredBy: { surface: "viewer", at: 5 } });
    const { store, permissions } = governed();
    await permissions.request({ ...request, requestedBy: { tenant: "key:acme", subject: "carol" } });
    const answer = await answerApproval(permissions, { requestId: request.requestId, outcome: "approved", answeredBy: { surface: "gateway", tenant: "key:acme", subject: "alice", at: 1 } });
    expect(answer).toEqual({ outcome: "approved", answeredBy: { surface: "gateway", tenant: "key:acme", subject: "alice", at: Date.UTC(2026, 11, 7) } });
    expect((await store.decisionOf(request.requestId))?.approver).toEqual({ surface: "gateway", tenant: "key:acme", subject: "alice" });
  });

  it("GOV-1 GOV-4 governedAnswers: the run's requester is recorded, the host's handler is asked only while pending, and the requester's own answer is refused", async () => {
    const { store, permissions } = governed();
    const asked: string[] = [];
    const onApproval = governedAnswers(permissions, async (given) => (asked.push(given.requestId), { outcome: "approved", answeredBy: { surface: "mcp-http", tenant: "key:acme", subject: "carol" } }), { tenant: "key:acme", subject: "carol" });
    await expect(onApproval(request)).rejects.toMatchObject({ code: "forbidden", data: { rule: "self_approval" } });
    expect((await store.request(request.requestId))?.requestedBy).toEqual({ tenant: "key:acme", subject: "carol" });
    const other = governedAnswers(permissions, async (given) => (asked.push(given.requestId), { outcome: "approved", answeredBy: { surface: "mcp-http", tenant: "key:acme", subject: "alice" } }), { tenant: "key:acme", subject: "carol" });
    expect(await other(request)).toMatchObject({ outcome: "approved", answeredBy: { subject: "alice" } });
    expect(asked).toEqual([request.requestId, request.requestId]);
    expect((await store.audit("key:acme")).map((entry) => entry.kind)).toEqual(["request", "decision", "use"]);
  });

  it("GOV-1 the gate sends the run's requester with its request", async () => {
    const seen: ToolPermissionRequest[] = [];
    const toolPermissions = { request: async (given: ToolPermissionRequest) => (seen.push(given), { outcome: "approved" as const }) };
    await createToolApprovalGate().approve({ name: "deploy", arguments: {} }, { runId: "run-1", toolCatalog: [{ id: "deploy" }], toolPermissions, signal: new AbortController().signal, requester: { tenant: "key:acme", subject: "carol" } });
    expect(seen[0]?.requestedBy).toEqual({ tenant: "key:acme", subject: "carol" });
  });
});
