import { describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { Type } from "@sinclair/typebox";
import { readUIMessageStream, type UIMessage } from "ai";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import { sessionAddressOf } from "../../src/app/agent/session-resolver.js";
import { chatConversationId } from "../../src/app/chats/chat-turns.js";
import { staticTokenPrincipal } from "../../src/domain/principal.js";
import { tenantStorage } from "../../src/app/tenants/tenant-storage.js";
import { chatGateway, chunksOf, finalMessage, streamOf, textOfMessage, TOKEN, transportFor, userMessage } from "./helpers.js";

/** What `addToolApprovalResponse` makes of the assistant message: its tool part answered. */
function answered(message: UIMessage, approved: boolean, reason?: string): UIMessage {
  return {
    ...message,
    parts: message.parts.map((part) =>
      part.type === "dynamic-tool" && part.state === "approval-requested" ? ({ ...part, state: "approval-responded", approval: { id: part.approval.id, approved, ...(reason ? { reason } : {}) } } as unknown as typeof part) : part,
    ),
  };
}

async function continued(message: UIMessage, stream: ReadableStream<never>): Promise<UIMessage> {
  let last = message;
  for await (const next of readUIMessageStream({ message, stream })) last = next;
  return last;
}

describe("UI-4 tool approvals go through the AI SDK's own approval flow", () => {
  for (const approved of [true, false]) {
    it(`UI-4 a tool needing approval appears as approval-requested; the ${approved ? "approval" : "denial"} continues the same assistant message, matched on approval.id, with no repeated parts`, async () => {
      let executed = 0;
      const deploy: AgentTool = {
        name: "deploy", label: "Deploy", description: "Deploys", parameters: Type.Object({ target: Type.String() }),
        async execute() {
          executed++;
          return { content: [{ type: "text", text: "deployed" }] };
        },
      };
      const { api, storage } = await chatGateway(
        [{ text: "Deploying now.", toolCalls: [{ name: "deploy", arguments: { target: "prod" } }] }, { text: "Deployment finished." }],
        { agentOptions: { extraTools: [deploy], extraToolCatalog: [{ id: "deploy" }] } },
      );
      const transport = transportFor(api);
      const chatId = randomUUID();
      const user = userMessage("Deploy to prod");
      const paused = (await finalMessage(await transport.sendMessages({ chatId, messages: [user], trigger: "submit-message", messageId: undefined, abortSignal: undefined })))!;
      expect(paused.metadata).toMatchObject({ status: "waiting" });
      const tool = paused.parts.find((part) => part.type === "dynamic-tool")!;
      expect(tool).toMatchObject({ toolName: "deploy", input: { target: "prod" }, state: "approval-requested", approval: { id: expect.any(String) } });
      expect(executed).toBe(0);
      const answer = answered(paused, approved, approved ? undefined : "not today");
      // sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses → submit-message with the assistant message's id.
      const chunks = await chunksOf(await transport.sendMessages({ chatId, messages: [user, answer], trigger: "submit-message", messageId: paused.id, abortSignal: undefined }));
      expect(chunks[0]).toEqual({ type: "start", messageId: paused.id });
      // (readUIMessageStream updates the message it is given: a copy keeps `answer` as it was posted.)
      const message = await continued(structuredClone(answer), streamOf(chunks) as ReadableStream<never>);
      expect(message.id).toBe(paused.id);
      expect(message.parts.filter((part) => part.type === "dynamic-tool")).toHaveLength(1);
      expect(message.parts.filter((part) => part.type === "text" && part.text === "Deploying now.")).toHaveLength(1);
      expect(executed).toBe(approved ? 1 : 0);
      expect(message.parts.find((part) => part.type === "dynamic-tool")).toMatchObject(approved ? { state: "output-available", approval: { approved: true } } : { state: "output-denied", approval: { approved: false, reason: "not today" } });
      expect(message.metadata).toMatchObject({ status: "completed" });
      expect(textOfMessage(message)).toContain("Deployment finished.");
      // A replay of the whole turn rebuilds the same message from `start`.
      const abort = new AbortController();
      const replay = await fetch(`${api}/${chatId}/stream?after=0`, { headers: { authorization: `Bearer ${TOKEN}` }, signal: abort.signal });
      const text = await replay.text();
      const replayed = text.split("\n\n").flatMap((frame) => /^data: (\{.*)$/m.exec(frame)?.[1] ?? []).map((data) => JSON.parse(data));
      // (The person's reason stays with the client that gave it.)
      const replayedMessage = (await finalMessage(streamOf(replayed)))!;
      expect(replayedMessage).toEqual(approved ? message : { ...message, parts: message.parts.map((part) => (part.type === "dynamic-tool" ? { ...part, approval: { id: (part as { approval: { id: string } }).approval.id, approved: false } } : part)) });
      // UI-7: the log keeps who answered — the chat route, at the time of the answer.
      const tenant = staticTokenPrincipal("gateway").tenant;
      const log = await tenantStorage(storage, tenant).sessions!.openUnleased({ address: sessionAddressOf({}, { projectId: "ui-chat-test", conversationId: chatConversationId(tenant, chatId) }), create: false });
      const decision = (await log!.readAfter(0)).find((event) => event.type === "approval_decision");
      await log!.close();
      expect(decision?.payload).toMatchObject({ answeredBy: { surface: "ui-chat", tenant: "token:static", subject: "static", at: expect.any(Number) } });
      // The same answer again waits for nothing: refused.
      const again = await fetch(api, { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body: JSON.stringify({ id: chatId, messages: [user, answer], trigger: "submit-message", messageId: paused.id }) });
      expect(again.status).toBe(400);
    });
  }

  it("UI-4 ask_user is a client-side tool: the question arrives as its tool part, addToolOutput's answer continues the same run and message", async () => {
    const { api } = await chatGateway((request) => {
      const last = request.messages.at(-1)!;
      return last.role === "toolResult" ? { text: `You picked ${last.content.map((block) => block.text).join("")}.` } : { toolCalls: [{ name: "ask_user", arguments: { question: "Which colour?" } }] };
    });
    const transport = transportFor(api);
    const chatId = randomUUID();
    const user = userMessage("Pick a colour");
    const paused = (await finalMessage(await transport.sendMessages({ chatId, messages: [user], trigger: "submit-message", messageId: undefined, abortSignal: undefined })))!;
    expect(paused.metadata).toMatchObject({ status: "waiting" });
    const question = paused.parts.find((part) => part.type === "dynamic-tool")!;
    expect(question).toMatchObject({ toolName: "ask_user", state: "input-available", input: { question: "Which colour?" } });
    // addToolOutput({ tool: "ask_user", toolCallId, output: "red" }), then sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls.
    const answer: UIMessage = { ...paused, parts: paused.parts.map((part) => (part === question ? ({ ...part, state: "output-available", output: "red" } as unknown as typeof part) : part)) };
    const chunks = await chunksOf(await transport.sendMessages({ chatId, messages: [user, answer], trigger: "submit-message", messageId: paused.id, abortSignal: undefined }));
    expect(chunks[0]).toEqual({ type: "start", messageId: paused.id });
    const message = await continued(structuredClone(answer), streamOf(chunks) as ReadableStream<never>);
    expect(message.parts.filter((part) => part.type === "dynamic-tool")).toHaveLength(1);
    expect(textOfMessage(message)).toBe("You picked red.");
    expect(message.metadata).toMatchObject({ status: "completed" });
  });
});
