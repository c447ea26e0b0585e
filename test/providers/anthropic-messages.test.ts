import { describe, expect, it } from "@jest/globals";
import { createProviderModel } from "../../src/adapters/driven/providers/provider-model.js";
import type { ModelMessage } from "../../src/ports/model-provider.js";
import { anthropicMessagesWire, startAnthropicMessagesServer } from "../fixtures/loopback-anthropic-messages.js";
import { API_KEY, collect, describeProviderKind } from "./provider-cases.js";

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
  replayedReasoning: (body) => blocksOf(body).find((block) => block.type === "thinking")?.signature,
  toolRoundTrip: (body) => {
    const call = blocksOf(body).find((block) => block.type === "tool_use") as Block;
    const result = blocksOf(body).find((block) => block.type === "tool_result") as Block;
    expect(result.tool_use_id).toBe(call.id);
    return { callId: call.id, name: call.name, arguments: call.input, output: textOf(result.content) };
  },
});

describe("AG-3 provider anthropic-messages: redacted thinking", () => {
  it("replays a redacted_thinking block as redacted_thinking with its encrypted payload", async () => {
    const server = await startAnthropicMessagesServer({
      apiKey: API_KEY,
      replies: [{ redactedReasoning: "EnCrYpTeD==", text: "Answer." }, { text: "Next." }],
    });
    try {
      const model = createProviderModel({ apiKind: "anthropic-messages", baseUrl: server.baseUrl, apiKey: API_KEY, model: "claude-x", reasoning: true });
      const first = await collect(model.stream({ requestId: "r1", messages: [{ role: "user", content: "Hi" }], tools: [], effort: "low" }));
      expect(first.response.content[0]).toMatchObject({ type: "reasoning" });
      const history: ModelMessage[] = [
        { role: "user", content: "Hi" },
        { role: "assistant", content: first.response.content },
        { role: "user", content: "More." },
      ];
      await collect(model.stream({ requestId: "r2", messages: history, tools: [], effort: "low" }));
      const replayed = blocksOf(server.requests[1]?.body).filter((block) => block.type.includes("thinking"));
      expect(replayed).toEqual([{ type: "redacted_thinking", data: "EnCrYpTeD==" }]);
    } finally {
      await server.close();
    }
  });
});
