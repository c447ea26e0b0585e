import { expect } from "@jest/globals";
import { openAICompletionsWire } from "../fixtures/loopback-openai-completions.js";
import { describeProviderKind } from "./provider-cases.js";

describeProviderKind("openai-completions", openAICompletionsWire, {
  effort: (body) => body.reasoning_effort,
  // Skipped: pi-ai closes every open block when a Chat Completions body ends, with or without
  // `finish_reason` / `[DONE]`, so a cleanly cut stream is indistinguishable from a finished
  // one (telling them apart by a missing finish_reason would break servers that omit it).
  detectsCleanTruncation: false,
  toolNames: (body) => body.tools.map((tool: { function: { name: string } }) => tool.function.name),
  replayedReasoning: (body) => body.messages.find((message: { role: string }) => message.role === "assistant")?.reasoning_content,
  toolRoundTrip: (body) => {
    const assistant = body.messages.find((message: { role: string; tool_calls?: unknown[] }) => message.role === "assistant" && message.tool_calls);
    const call = assistant.tool_calls[0];
    const result = body.messages.find((message: { role: string }) => message.role === "tool");
    expect(result.tool_call_id).toBe(call.id);
    const output = typeof result.content === "string" ? result.content : result.content.map((part: { text: string }) => part.text).join("");
    return { callId: call.id, name: call.function.name, arguments: JSON.parse(call.function.arguments), output };
  },
});
