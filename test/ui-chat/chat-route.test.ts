import { describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { chatGateway, chunksOf, finalMessage, textOfMessage, TOKEN, transportFor, userMessage } from "./helpers.js";

describe("UI-1 the chat route streams a turn in the AI SDK's UI message stream protocol", () => {
  it("UI-1 a turn streams through DefaultChatTransport: start with the messageId, text, tool parts, finish with usage", async () => {
    const { api } = await chatGateway([
      { text: "Let me look.", toolCalls: [{ name: "missing_tool", arguments: { q: 1 } }], usage: { input: 10, output: 5 } },
      { text: "All done.", usage: { input: 20, output: 7 } },
    ]);
    const transport = transportFor(api);
    const chatId = randomUUID();
    const stream = await transport.sendMessages({ chatId, messages: [userMessage("hello")], trigger: "submit-message", messageId: undefined, abortSignal: undefined });
    const chunks = await chunksOf(stream);
    expect(chunks[0]).toMatchObject({ type: "start", messageId: expect.stringMatching(/^msg-/) });
    expect(chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "stop", messageMetadata: { status: "completed", usage: { inputTokens: 30, outputTokens: 12 } } });
    const message = await finalMessage(new ReadableStream({ start: (controller) => { for (const chunk of chunks) controller.enqueue(chunk); controller.close(); } }));
    expect(message?.role).toBe("assistant");
    expect(textOfMessage(message)).toBe("Let me look.All done.");
    const tool = message?.parts.find((part) => part.type === "dynamic-tool");
    expect(tool).toMatchObject({ toolName: "missing_tool", input: { q: 1 }, state: "output-error" });
  });

  it("UI-1 refuses a missing or wrong credential (401) and malformed bodies (4xx with a JSON error)", async () => {
    const { api } = await chatGateway([{ text: "hi" }]);
    const post = (body: string, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }) => fetch(api, { method: "POST", headers, body });
    const good = JSON.stringify({ id: "c1", messages: [userMessage("x")], trigger: "submit-message" });
    expect((await post(good, { "content-type": "application/json" })).status).toBe(401);
    expect((await post(good, { authorization: "Bearer wrong-token-0123456789", "content-type": "application/json" })).status).toBe(401);
    for (const [body, status] of [
      ["{not json", 400],
      [JSON.stringify({ messages: [userMessage("x")] }), 400],
      [JSON.stringify({ id: "c1", messages: [] }), 400],
      [JSON.stringify({ id: "c1", messages: [{ id: "a", role: "assistant", parts: [{ type: "text", text: "x" }] }] }), 400],
      [JSON.stringify({ id: "c1", messages: [userMessage("")] }), 400],
      [JSON.stringify({ id: "c/1", messages: [userMessage("x")] }), 400],
      [JSON.stringify({ id: "c1", messages: [userMessage("x")], trigger: "nope" }), 400],
    ] as const) {
      const response = await post(body);
      expect({ body, status: response.status }).toEqual({ body, status });
      expect(((await response.json()) as { error: { message: string } }).error.message).toEqual(expect.any(String));
    }
    const wrongType = await post(good, { authorization: `Bearer ${TOKEN}`, "content-type": "text/plain" });
    expect(wrongType.status).toBe(415);
    const stream = await fetch(`${api}/c1/stream`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(stream.status).toBe(404);
    const badCursor = await fetch(`${api}/c1/stream?after=x`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(badCursor.status).toBe(400);
  });
});
