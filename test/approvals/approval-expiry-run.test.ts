import { describe, expect, it } from "@jest/globals";
import { Type } from "@sinclair/typebox";
import { createFixedClock } from "../../src/adapters/driven/memory/fixed-clock.js";
import { createMemoryApprovalStore } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { createGovernedToolPermissions } from "../../src/app/approvals/governed-tool-permissions.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import type { ApprovalPolicy } from "../../src/domain/approvals/policy.js";
import { UserInputRequiredError } from "../../src/domain/errors.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { offlineNode, runNode } from "../agent/helpers.js";

const policy = (onExpiry: ApprovalPolicy["onExpiry"]): ApprovalPolicy => ({ approverGroups: { sre: [{ subject: "alice" }] }, approvers: "sre", expiresAfterMs: 60_000, onExpiry, rules: [] });

function governed(onExpiry: ApprovalPolicy["onExpiry"]) {
  const clock = createFixedClock(Date.UTC(2026, 11, 2, 12));
  const store = createMemoryApprovalStore();
  const permissions = createGovernedToolPermissions({ policy: policy(onExpiry), store, clock });
  const storage = new MemoryStorage();
  const workdir = tempDirRemovedAfterAll("gov-run-");
  let deployed = 0;
  const deploy = { name: "deploy", label: "deploy", description: "deploys", parameters: Type.Object({ env: Type.String() }), async execute() {
    deployed++;
    return { content: [{ type: "text" as const, text: "deployed" }] };
  } };
  const h = { storage, workdir, permissions, userInput: undefined as never, context: (runId: string) => createNodeContext({ projectId: "p", storage, runId, toolPermissions: permissions, toolCatalog: [{ id: "deploy" }] }) };
  const { node, model } = offlineNode([{ toolCalls: [{ id: "call-d", name: "deploy", arguments: { env: "prod" } }] }, { text: "Noted." }], { h: h as never, tools: ["deploy"], extraTools: [deploy], extraToolCatalog: [{ id: "deploy" }] });
  return { clock, store, permissions, node, model, context: h.context, deployed: () => deployed, workdir };
}

const toolResultOf = (model: ReturnType<typeof governed>["model"]) => model.calls[1]!.messages.find((message) => message.role === "toolResult")!;

describe("GOV-2 expiry is not denial, in a run", () => {
  it("GOV-2 an approval that expires gives the model an approval_expired tool result (not approval_denied) and the run goes on; a denial gives approval_denied", async () => {
    const expiring = governed("deny");
    const first = await runNode(expiring.node, { prompt: "deploy" }, expiring.context("run-x"));
    expect(first.error).toBeInstanceOf(UserInputRequiredError);
    expiring.clock.advance(60_000);
    const second = await runNode(expiring.node, { prompt: "deploy" }, expiring.context("run-x"));
    expect(second.error).toBeUndefined();
    expect(toolResultOf(expiring.model)).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/^\[approval_expired\] the approval of tool deploy expired/) }] });
    expect(expiring.deployed()).toBe(0);
    expect((await expiring.store.audit("local")).map((entry) => entry.kind)).toEqual(["request", "expiry"]);

    const denying = governed("deny");
    const pause = (await runNode(denying.node, { prompt: "deploy" }, denying.context("run-y"))).error as UserInputRequiredError;
    await denying.permissions.decide({ requestId: pause.requestId, outcome: "denied", approver: { surface: "cli", subject: "alice" }, reason: "freeze" });
    expect((await runNode(denying.node, { prompt: "deploy" }, denying.context("run-y"))).error).toBeUndefined();
    expect(toolResultOf(denying.model)).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/^\[approval_denied\] .*freeze/) }] });
    expect((await denying.store.audit("local")).map((entry) => entry.kind)).toEqual(["request", "decision"]);
  });

  it("GOV-2 with onExpiry fail the run ends with approval_expired; an approval in time runs the tool once", async () => {
    const failing = governed("fail");
    await runNode(failing.node, { prompt: "deploy" }, failing.context("run-f"));
    failing.clock.advance(60_000);
    const ended = await runNode(failing.node, { prompt: "deploy" }, failing.context("run-f"));
    expect(ended.error).toMatchObject({ code: "approval_expired" });
    expect(failing.deployed()).toBe(0);

    const approving = governed("fail");
    const pause = (await runNode(approving.node, { prompt: "deploy" }, approving.context("run-a"))).error as UserInputRequiredError;
    await approving.permissions.decide({ requestId: pause.requestId, outcome: "approved", approver: { surface: "cli", subject: "alice" } });
    expect((await runNode(approving.node, { prompt: "deploy" }, approving.context("run-a"))).error).toBeUndefined();
    expect(approving.deployed()).toBe(1);
    expect((await approving.store.audit("local")).map((entry) => entry.kind)).toEqual(["request", "decision", "use"]);
  });
});
