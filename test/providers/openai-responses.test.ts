import { expect } from "@jest/globals";
import { openAIResponsesWire } from "../fixtures/loopback-openai-responses.js";
import { describeProviderKind } from "./provider-cases.js";

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
