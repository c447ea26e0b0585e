import { describe, expect, it } from "@jest/globals";
import { createProviderModel } from "../../src/adapters/driven/providers/provider-model.js";
import type { ModelMessage } from "../../src/ports/model-provider.js";
import { openAIResponsesWire, startOpenAIResponsesServer } from "../fixtures/loopback-openai-responses.js";
import { API_KEY, collect, describeProviderKind } from "./provider-cases.js";

describeProviderKind("openai-responses", openAIResponsesWire, {
  effort: (body) => body.reasoning?.effort,
  toolNames: (body) => body.tools.map((tool: { name: string }) => tool.name),
  detectsCleanTruncation: true,
  replayedReasoning: (body) => body.input.find((item: { type?: string }) => item.type === "reasoning")?.encrypted_content,
  toolRoundTrip: (body) => {
    const call = body.input.find((item: { type?: string }) => item.type === "function_call");
    const output = body.input.find((item: { type?: string }) => item.type === "function_call_output");
    expect(output.call_id).toBe(call.call_id);
    return { callId: call.call_id, name: call.name, arguments: JSON.parse(call.arguments), output: output.output };
  },
});

describe("AG-3 provider openai-responses: the request steamharness builds (SEC-6: its own openai client)", () => {
  it("answers a tool call left without a result, and makes another model's call id acceptable to the API", async () => {
    const server = await startOpenAIResponsesServer({ apiKey: API_KEY, replies: [{ text: "Fine." }] });
    try {
      const model = createProviderModel({ apiKind: "openai-responses", baseUrl: server.baseUrl, apiKey: API_KEY, model: "m", reasoning: true });
      const messages: ModelMessage[] = [
        { role: "user", content: "Look." },
        { role: "assistant", content: [{ type: "toolCall", id: "call_a|fc_a", name: "ls", arguments: { path: "." } }] },
        { role: "user", content: "Never mind." },
        { role: "assistant", provider: "anthropic", model: "claude", content: [{ type: "reasoning", text: "Their plan.", signature: "sig" }, { type: "toolCall", id: "toolu.9/x", name: "ls", arguments: {} }] },
        { role: "toolResult", toolCallId: "toolu.9/x", toolName: "ls", content: [{ type: "text", text: "a.txt" }], isError: false },
      ];
      const { response } = await collect(model.stream({ requestId: "r", systemPrompt: "Be brief.", messages, tools: [] }));
      expect(response.stopReason).toBe("stop");
      const input = server.requests[0]?.body.input;
      expect(input).toEqual([
        { role: "developer", content: "Be brief." },
        { role: "user", content: [{ type: "input_text", text: "Look." }] },
        { type: "function_call", id: "fc_a", call_id: "call_a", name: "ls", arguments: '{"path":"."}' },
        { type: "function_call_output", call_id: "call_a", output: "No result provided" },
        { role: "user", content: [{ type: "input_text", text: "Never mind." }] },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Their plan.", annotations: [] }], status: "completed", id: "msg_3" },
        { type: "function_call", call_id: "toolu_9_x", name: "ls", arguments: "{}" },
        { type: "function_call_output", call_id: "toolu_9_x", output: "a.txt" },
      ]);
      expect(server.requests[0]?.body).toMatchObject({ model: "m", stream: true, store: false, max_output_tokens: 16384 });
      expect(server.requests[0]?.body.reasoning).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});
