import { describe, expect, it } from "@jest/globals";
import { Type } from "@sinclair/typebox";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import { gatewayWith, lastUserText, MODEL } from "./helpers.js";

describe("GW-2 Chat Completions", () => {
  it("GW-2 a non-streaming completion carries the answer; earlier messages reach the model as host input", async () => {
    const { client, model } = await gatewayWith([{ text: "Paris." }]);
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: "system", content: "Answer in one word." },
        { role: "user", content: "Capital of Italy?" },
        { role: "assistant", content: "Rome." },
        { role: "user", content: "And of France?" },
      ],
    });
    expect(completion).toMatchObject({ object: "chat.completion", model: MODEL, choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "Paris." } }] });
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.usage!.total_tokens).toBe(completion.usage!.prompt_tokens + completion.usage!.completion_tokens);
    const seen = lastUserText(model.calls[0]!);
    for (const text of ["Answer in one word.", "Capital of Italy?", "Rome.", "And of France?"]) expect(seen).toContain(text);
    expect(seen.indexOf("Rome.")).toBeLessThan(seen.indexOf("And of France?"));
  });

  it("GW-2 streaming sends chat.completion.chunk events ending in finish_reason stop, a usage chunk and [DONE]", async () => {
    const { client, gateway } = await gatewayWith([{ text: "Streaming chat answer." }]);
    const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }], stream: true, stream_options: { include_usage: true } });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((chunk) => chunk.object === "chat.completion.chunk" && chunk.id === chunks[0]!.id)).toBe(true);
    expect(chunks[0]!.choices[0]!.delta.role).toBe("assistant");
    expect(chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta.content ?? "")).join("")).toBe("Streaming chat answer.");
    const finishes = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.finish_reason)).filter((reason) => reason !== null);
    expect(finishes).toEqual(["stop"]);
    expect(chunks.at(-1)!.choices).toEqual([]);
    expect(chunks.at(-1)!.usage!.total_tokens).toBeGreaterThan(0);
    // The raw stream ends with the [DONE] sentinel.
    const raw = await fetch(`${gateway.url}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer test-token-0123456789abcdef`, "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "again" }], stream: true }),
    });
    expect(raw.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect((await raw.text()).trimEnd().endsWith("data: [DONE]")).toBe(true);
  });

  it("GW-2 a tool approval ends with finish_reason tool_calls; a tool message answering its id resumes the run", async () => {
    let executed = 0;
    const deploy: AgentTool = {
      name: "deploy", label: "Deploy", description: "Deploys", parameters: Type.Object({}),
      async execute() {
        executed++;
        return { content: [{ type: "text", text: "deployed" }] };
      },
    };
    const { client } = await gatewayWith([{ text: "Deploying.", toolCalls: [{ name: "deploy", arguments: {} }] }, { text: "Done." }], {
      agentOptions: { extraTools: [deploy], extraToolCatalog: [{ id: "deploy" }] },
    });
    const messages = [{ role: "user" as const, content: "Deploy it" }];
    const paused = await client.chat.completions.create({ model: MODEL, messages });
    const choice = paused.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    const call = choice.message.tool_calls![0]!;
    expect(call).toMatchObject({ type: "function", function: { name: "approve_tool_call" } });
    expect(JSON.parse((call as { function: { arguments: string } }).function.arguments)).toEqual({ tool: "deploy", arguments: {} });
    expect(executed).toBe(0);
    const denied = client.chat.completions.create({ model: MODEL, messages: [...messages, choice.message, { role: "tool", tool_call_id: call.id, content: "maybe" }] });
    await expect(denied).rejects.toMatchObject({ status: 400, param: "messages[2].content" });
    const resumed = await client.chat.completions.create({ model: MODEL, messages: [...messages, choice.message, { role: "tool", tool_call_id: call.id, content: '{"approve": true}' }] });
    expect(resumed.choices[0]).toMatchObject({ finish_reason: "stop", message: { content: "Deploying.\n\nDone." } });
    expect(executed).toBe(1);
  });
});
