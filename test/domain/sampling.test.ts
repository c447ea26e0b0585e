import { describe, expect, it } from "@jest/globals";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { checkSamplingRequest, checkSamplingResult, SAMPLING_LIMITS } from "../../src/domain/workflow/sampling.js";

const text = (value: string) => ({ role: "user" as const, content: { type: "text" as const, text: value } });

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("MCP-6 a run's sampling request is checked and bounded before it leaves the worker", () => {
  it("MCP-6 a well-formed request passes with only the fields MCP sampling knows", () => {
    const request = { messages: [text("Hi")], maxTokens: 100, systemPrompt: "Be brief", modelPreferences: { hints: [{ name: "claude" }], costPriority: 0.3 }, stopSequences: ["\n"], temperature: 0.5, tools: [{ name: "x" }] };
    expect(checkSamplingRequest(request)).toEqual({ messages: [text("Hi")], maxTokens: 100, systemPrompt: "Be brief", modelPreferences: { hints: [{ name: "claude" }], costPriority: 0.3 }, stopSequences: ["\n"], temperature: 0.5 });
  });

  it.each([
    ["no messages", { messages: [], maxTokens: 10 }, "/messages"],
    ["maxTokens missing", { messages: [text("Hi")] }, "/maxTokens"],
    ["maxTokens not whole", { messages: [text("Hi")], maxTokens: 1.5 }, "/maxTokens"],
    ["maxTokens above the bound", { messages: [text("Hi")], maxTokens: SAMPLING_LIMITS.maxTokens + 1 }, "/maxTokens"],
    ["a system role", { messages: [{ role: "system", content: { type: "text", text: "x" } }], maxTokens: 10 }, "/messages/0/role"],
    ["an image without mimeType", { messages: [{ role: "user", content: { type: "image", data: "AA==" } }], maxTokens: 10 }, "/messages/0/content"],
    ["a priority above 1", { messages: [text("Hi")], maxTokens: 10, modelPreferences: { speedPriority: 2 } }, "/modelPreferences/speedPriority"],
  ])("MCP-6 %s is input_validation naming where", (_name, request, path) => {
    const error = thrown(() => checkSamplingRequest(request));
    expect(isSteamharnessError(error, "input_validation")).toBe(true);
    expect((error as Error).message).toContain(`at ${path}`);
  });

  it("MCP-6 more than SAMPLING_LIMITS.messages messages, or more than requestBytes of JSON, is refused with the limit", () => {
    const many = thrown(() => checkSamplingRequest({ messages: Array.from({ length: SAMPLING_LIMITS.messages + 1 }, () => text("x")), maxTokens: 10 }));
    expect(many).toMatchObject({ code: "input_validation", field: "messages", data: { limit: SAMPLING_LIMITS.messages } });
    expect(checkSamplingRequest({ messages: Array.from({ length: SAMPLING_LIMITS.messages }, () => text("x")), maxTokens: 10 }).messages).toHaveLength(SAMPLING_LIMITS.messages);
    // Two-byte characters: the bound counts UTF-8 bytes, not string length.
    const big = thrown(() => checkSamplingRequest({ messages: [text("é".repeat(SAMPLING_LIMITS.requestBytes / 2))], maxTokens: 10 }));
    expect(big).toMatchObject({ code: "input_validation", data: { limit: SAMPLING_LIMITS.requestBytes } });
  });
});

describe("MCP-6 a client's sampling answer is checked before the run sees it", () => {
  it("MCP-6 a CreateMessageResult passes, extra fields dropped", () => {
    const answer = { role: "assistant", content: { type: "text", text: "Hello", annotations: { audience: ["user"] } }, model: "m", stopReason: "endTurn", _meta: { a: 1 } };
    expect(checkSamplingResult(answer)).toEqual({ role: "assistant", content: { type: "text", text: "Hello" }, model: "m", stopReason: "endTurn" });
    expect(checkSamplingResult({ role: "assistant", content: { type: "audio", data: "AA==", mimeType: "audio/wav" }, model: "m" })).toEqual({ role: "assistant", content: { type: "audio", data: "AA==", mimeType: "audio/wav" }, model: "m" });
  });

  it.each([
    ["not an object", "hello"],
    ["no model", { role: "assistant", content: { type: "text", text: "x" } }],
    ["a model that is not text", { role: "assistant", content: { type: "text", text: "x" }, model: 42 }],
    ["text content without text", { role: "assistant", content: { type: "text" }, model: "m" }],
    ["an array of blocks (tool flows only)", { role: "assistant", content: [{ type: "text", text: "x" }], model: "m" }],
    ["a tool_use block", { role: "assistant", content: { type: "tool_use", id: "1", name: "t", input: {} }, model: "m" }],
  ])("MCP-6 %s is sampling_failed", (_name, answer) => {
    const error = thrown(() => checkSamplingResult(answer));
    expect(isSteamharnessError(error, "sampling_failed")).toBe(true);
    expect((error as Error).message).toContain("not a CreateMessageResult");
  });

  it("MCP-6 an answer larger than SAMPLING_LIMITS.resultBytes is sampling_failed with the limit", () => {
    const error = thrown(() => checkSamplingResult({ role: "assistant", content: { type: "text", text: "x".repeat(SAMPLING_LIMITS.resultBytes) }, model: "m" }));
    expect(error).toMatchObject({ code: "sampling_failed", data: { limit: SAMPLING_LIMITS.resultBytes } });
  });
});
