import { expect } from "@jest/globals";
import { anthropicMessagesWire } from "../fixtures/loopback-anthropic-messages.js";
import { describeProviderKind } from "./provider-cases.js";

type Block = { type: string; [key: string]: any };

function blocksOf(body: any): Block[] {
  return body.messages.flatMap((message: { content: string | Block[] }) => (typeof message.content === "string" ? [] : message.content));
}

function textOf(content: string | Block[]): string {
  return typeof content === "string" ? content : content.map((block) => block.text ?? "").join("");
}

describeProviderKind("anthropic-messages", anthropicMessagesWire, {
  effort: (body) => (body.thinking?.type === "enabled" ? `budget:${body.thinking.budget_tokens}` : body.output_config?.effort),
  toolNames: (body) => body.tools.map((tool: { name: string }) => tool.name),
  detectsCleanTruncation: true,
  toolRoundTrip: (body) => {
    const call = blocksOf(body).find((block) => block.type === "tool_use") as Block;
    const result = blocksOf(body).find((block) => block.type === "tool_result") as Block;
    expect(result.tool_use_id).toBe(call.id);
    return { callId: call.id, name: call.name, arguments: call.input, output: textOf(result.content) };
  },
});
