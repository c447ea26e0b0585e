import { describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { readUIMessageStream, type UIMessage } from "ai";
import { sessionAddressOf } from "../../src/app/agent/session-resolver.js";
import { PLAN_APPROVED_PROMPT } from "../../src/app/agent/plan-step.js";
import { chatConversationId } from "../../src/app/chats/chat-turns.js";
import { tenantStorage } from "../../src/app/tenants/tenant-storage.js";
import { staticTokenPrincipal } from "../../src/domain/principal.js";
import type { ModelRequest } from "../../src/ports/model-provider.js";
import { chatGateway, chunksOf, finalMessage, streamOf, textOfMessage, transportFor, userMessage } from "./helpers.js";

const lastUserText = (request: ModelRequest): string => {
  const last = request.messages.filter((message) => message.role === "user").at(-1)!;
  return typeof last.content === "string" ? last.content : last.content.map((block) => block.text).join("");
};

/** What `addToolApprovalResponse` makes of the assistant message: its plan part answered. */
const answered = (message: UIMessage, approved: boolean, reason?: string): UIMessage => ({
  ...message,
  parts: message.parts.map((part) => (part.type === "dynamic-tool" && part.state === "approval-requested" ? ({ ...part, state: "approval-responded", approval: { id: part.approval.id, approved, ...(reason ? { reason } : {}) } } as unknown as typeof part) : part)),
});

async function continued(message: UIMessage, stream: ReadableStream<never>): Promise<UIMessage> {
  let last = message;
  for await (const next of readUIMessageStream({ message, stream })) last = next;
  return last;
}

describe("UI-4 plan approvals go through the AI SDK's approval flow on the chat route", () => {
  for (const approved of [true, false]) {
    it(`UI-4 a plan asks for approval as a \`plan\` tool part; the ${approved ? "approval builds it" : "denial with a reason revises it"} in the same run and message, and the log records who answered`, async () => {
      const requests: string[] = [];
      const { api, storage } = await chatGateway(
        (request) => {
          const said = lastUserText(request);
          requests.push(said);
          if (said === PLAN_APPROVED_PROMPT) return { text: "Built it." };
          return { text: said.startsWith("The plan was declined") ? "1. Smaller step" : "1. Read\n2. Write" };
        },
        { agentOptions: { mode: "plan" } },
      );
      const transport = transportFor(api);
      const chatId = randomUUID();
      const user = userMessage("Plan the change");
      const paused = (await finalMessage(await transport.sendMessages({ chatId, messages: [user], trigger: "submit-message", messageId: undefined, abortSignal: undefined })))!;
      expect(paused.metadata).toMatchObject({ status: "waiting" });
      const plan = paused.parts.find((part) => part.type === "dynamic-tool")!;
      expect(plan).toMatchObject({ toolName: "plan", input: { plan: "1. Read\n2. Write" }, state: "approval-requested", approval: { id: expect.stringMatching(/^plan:/) } });
      const answer = answered(paused, approved, approved ? undefined : "too big");
      const chunks = await chunksOf(await transport.sendMessages({ chatId, messages: [user, answer], trigger: "submit-message", messageId: paused.id, abortSignal: undefined }));
      expect(chunks[0]).toEqual({ type: "start", messageId: paused.id });
      const message = await continued(structuredClone(answer), streamOf(chunks) as ReadableStream<never>);
      expect(message.id).toBe(paused.id);
      const parts = message.parts.filter((part) => part.type === "dynamic-tool");
      if (approved) {
        expect(parts).toEqual([expect.objectContaining({ toolName: "plan", state: "output-available", approval: expect.objectContaining({ approved: true }) })]);
        expect(message.metadata).toMatchObject({ status: "completed" });
        expect(textOfMessage(message)).toContain("Built it.");
        expect(requests).toEqual(["Plan the change", PLAN_APPROVED_PROMPT]);
      } else {
        // The revised plan asks again, in the same message.
        expect(parts.map((part) => part.state)).toEqual(["output-denied", "approval-requested"]);
        expect(parts[1]).toMatchObject({ toolName: "plan", input: { plan: "1. Smaller step" } });
        expect(message.metadata).toMatchObject({ status: "waiting" });
        expect(requests).toEqual(["Plan the change", "The plan was declined. Revise it. Feedback: too big"]);
      }
      const tenant = staticTokenPrincipal("gateway").tenant;
      const log = await tenantStorage(storage, tenant).sessions!.openUnleased({ address: sessionAddressOf({}, { projectId: "ui-chat-test", conversationId: chatConversationId(tenant, chatId) }), create: false });
      const decisions = (await log!.readAfter(0)).filter((event) => event.type === "approval_decision");
      await log!.close();
      expect(decisions.map((event) => event.payload)).toEqual([expect.objectContaining({ requestId: (plan as { approval: { id: string } }).approval.id, outcome: approved ? "approved" : "declined", answeredBy: { surface: "ui-chat", tenant: "token:static", subject: "static", at: expect.any(Number) } })]);
    });
  }
});
