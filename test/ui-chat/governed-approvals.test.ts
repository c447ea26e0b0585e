// Issue 47 (GOV-1, GOV-4, GOV-5) with UI-4: the browser chat's tool approvals go through the
// governed store — the AI SDK's own client (`DefaultChatTransport`) in Node, answering with
// `approval-responded` tool parts as `addToolApprovalResponse` does.
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { Type } from "@sinclair/typebox";
import { readUIMessageStream, type UIMessage } from "ai";
import { createMemoryApprovalStore } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import { createGovernedToolPermissions } from "../../src/app/approvals/governed-tool-permissions.js";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import type { ApprovalPolicy } from "../../src/domain/approvals/policy.js";
import { cleanup, tempDir } from "../cli/helpers.js";
import { spawnGovernedGateway } from "../gateway/helpers.js";
import { bundledProject } from "../fixtures/bundled-fixture.js";
import { chatGateway, finalMessage, textOfMessage, TOKEN, transportFor, userMessage } from "./helpers.js";

/** What `addToolApprovalResponse` makes of the assistant message: its tool part answered. */
const answered = (message: UIMessage, approved: boolean): UIMessage => ({
  ...message,
  parts: message.parts.map((part) => ((part.type === "dynamic-tool" || part.type.startsWith("tool-")) && (part as { state?: string }).state === "approval-requested" ? ({ ...part, state: "approval-responded", approval: { id: (part as unknown as { approval: { id: string } }).approval.id, approved } } as unknown as typeof part) : part)),
});

/** The assistant message the continuation stream makes of the answered one (as `useChat` does). */
async function continued(message: UIMessage, stream: ReadableStream<unknown>): Promise<UIMessage> {
  let last = message;
  for await (const next of readUIMessageStream({ message: structuredClone(message), stream: stream as ReadableStream<never> })) last = next;
  return last;
}

/** A chat gateway whose `deploy` tool asks, governed by `policy` on a memory store. */
async function governedChat(policy: ApprovalPolicy) {
  let executed = 0;
  const deploy: AgentTool = {
    name: "deploy", label: "Deploy", description: "Deploys", parameters: Type.Object({ target: Type.String() }),
    async execute() {
      executed++;
      return { content: [{ type: "text", text: "deployed" }] };
    },
  };
  const store = createMemoryApprovalStore();
  const approvals = createGovernedToolPermissions({ policy, store, clock: { now: () => Date.now() } });
  const { api } = await chatGateway([{ text: "Deploying now.", toolCalls: [{ name: "deploy", arguments: { target: "prod" } }] }, { text: "Deployment finished." }], { approvals, agentOptions: { extraTools: [deploy], extraToolCatalog: [{ id: "deploy" }] } });
  const transport = transportFor(api);
  const chatId = randomUUID();
  const user = userMessage("Deploy to prod");
  const paused = (await finalMessage(await transport.sendMessages({ chatId, messages: [user], trigger: "submit-message", messageId: undefined, abortSignal: undefined })))!;
  expect(paused.metadata).toMatchObject({ status: "waiting" });
  const answer = async (approved: boolean) => continued(answered(paused, approved), await transport.sendMessages({ chatId, messages: [user, answered(paused, approved)], trigger: "submit-message", messageId: paused.id, abortSignal: undefined }));
  return { store, answer, executed: () => executed };
}

describe("issue 47: browser chat approvals through the governed store", () => {
  it("GOV-1 GOV-5 UI-4 a tool approved in the chat is decided through the governed store as the chat's principal, the turn's principal recorded as requester, and used once", async () => {
    const chat = await governedChat({ allowSelfApproval: true, rules: [] });
    const message = await chat.answer(true);
    expect(message?.metadata).toMatchObject({ status: "completed" });
    expect(textOfMessage(message)).toContain("Deployment finished.");
    expect(chat.executed()).toBe(1);
    const chain = await chat.store.audit("token:static");
    expect(chain.map((entry) => entry.kind)).toEqual(["request", "decision", "use"]);
    expect(chain[0]!.data).toMatchObject({ toolId: "deploy", requestedBy: { tenant: "token:static", subject: "static" } });
    expect(chain[1]!.data).toMatchObject({ outcome: "approved", scope: "once", approver: { surface: "ui-chat", tenant: "token:static", subject: "static" } });
  });

  it("GOV-4 UI-4 the chat's principal approving its own request is refused with 403 when the policy forbids self-approval: nothing is decided, the tool does not run", async () => {
    const chat = await governedChat({ rules: [] });
    await expect(chat.answer(true)).rejects.toThrow(/may not approve their own request/);
    expect(chat.executed()).toBe(0);
    expect((await chat.store.audit("token:static")).map((entry) => entry.kind)).toEqual(["request"]);
  });

  it("GOV-1 GOV-7 UI-4 `steamharness gateway --approval-policy`: the chat route's approval round trip (DefaultChatTransport) is recorded in the audit chain `audit export` reads, with the chat's approver", async () => {
    const dataDir = await tempDir("sh-chat-gov-");
    try {
      const project = bundledProject("test/conversation/fixtures/chat-assistant", join(dataDir, "chat-assistant"));
      const policy = join(dataDir, "policy.json");
      writeFileSync(policy, JSON.stringify({ allowSelfApproval: true, rules: [] }));
      const gateway = await spawnGovernedGateway(project, dataDir, policy, TOKEN);
      try {
        const url = gateway.url;
        const transport = transportFor(`${url}/ui/chat`);
        const chatId = randomUUID();
        const user = userMessage("write a note");
        const paused = (await finalMessage(await transport.sendMessages({ chatId, messages: [user], trigger: "submit-message", messageId: undefined, abortSignal: undefined })))!;
        expect(paused.metadata).toMatchObject({ status: "waiting" });
        const done = await continued(answered(paused, true), await transport.sendMessages({ chatId, messages: [user, answered(paused, true)], trigger: "submit-message", messageId: paused.id, abortSignal: undefined }));
        expect(done?.metadata).toMatchObject({ status: "completed" });
        expect(textOfMessage(done)).toContain("Done: write finished.");
        expect(await gateway.stop()).toBe(0);
        const chain = await gateway.auditChain();
        expect(chain.map((entry) => entry.kind)).toEqual(["request", "decision", "use"]);
        expect(chain[0]!.data).toMatchObject({ toolId: "write", requestedBy: { tenant: "token:static", subject: "static" } });
        expect(chain[1]!.data).toMatchObject({ outcome: "approved", approver: { surface: "ui-chat", tenant: "token:static", subject: "static" } });
      } finally {
        gateway.kill();
      }
    } finally {
      await cleanup(dataDir);
    }
  }, 120_000);
});
