// Issue 47 (GOV-1, GOV-4): the gateway's runs ask the governed adapter with the request's
// principal as requester, and a client's mcp_approval_response goes through the governed
// decide() as that principal — the official `openai` client against a real gateway on loopback.
import { describe, expect, it } from "@jest/globals";
import { Type } from "@sinclair/typebox";
import OpenAI from "openai";
import { createMemoryApprovalStore } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import { createGovernedToolPermissions } from "../../src/app/approvals/governed-tool-permissions.js";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import type { ApprovalPolicy } from "../../src/domain/approvals/policy.js";
import { gatewayWith, MODEL } from "../gateway/helpers.js";

const deploy: AgentTool = { name: "deploy", label: "Deploy", description: "Deploys", parameters: Type.Object({}), execute: async () => ({ content: [{ type: "text", text: "deployed" }] }) };

async function governedGateway(policy: ApprovalPolicy) {
  const store = createMemoryApprovalStore();
  const approvals = createGovernedToolPermissions({ policy, store, clock: { now: () => Date.now() } });
  const { client } = await gatewayWith([{ text: "Deploying.", toolCalls: [{ name: "deploy", arguments: {} }] }, { text: "Done." }], { approvals, agentOptions: { extraTools: [deploy], extraToolCatalog: [{ id: "deploy" }] } as never });
  const paused = await client.responses.create({ model: MODEL, input: "Deploy" });
  const request = paused.output.find((item) => item.type === "mcp_approval_request") as { id: string };
  const answer = () => client.responses.create({ model: MODEL, previous_response_id: paused.id, input: [{ type: "mcp_approval_response", approval_request_id: request.id, approve: true }] });
  return { store, answer };
}

describe("issue 47: the gateway answers through the governed decide()", () => {
  it("GOV-1 the run's principal is the requester and the answering principal the approver in the audit chain", async () => {
    const { store, answer } = await governedGateway({ allowSelfApproval: true, rules: [] });
    const done = await answer();
    expect(done.status).toBe("completed");
    expect(done.output_text).toContain("Done.");
    const chain = await store.audit("token:static");
    expect(chain.map((entry) => entry.kind)).toEqual(["request", "decision", "use"]);
    expect(chain[0]!.data.requestedBy).toEqual({ tenant: "token:static", subject: "static" });
    expect(chain[1]!.data).toMatchObject({ outcome: "approved", approver: { surface: "gateway", tenant: "token:static", subject: "static" } });
  });

  it("GOV-4 the requester answering its own request is refused with 403 forbidden; nothing is decided", async () => {
    const { store, answer } = await governedGateway({ rules: [] });
    const refused = await answer().then(() => null, (error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    expect(refused).toMatchObject({ status: 403, code: "forbidden" });
    expect((await store.audit("token:static")).map((entry) => entry.kind)).toEqual(["request"]);
  });
});
