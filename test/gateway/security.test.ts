import { describe, expect, it } from "@jest/globals";
import type { ModelProvider, ModelStreamEvent } from "../../src/ports/model-provider.js";
import { eventually, gatewayWith, MODEL, TOKEN } from "./helpers.js";

const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...headers }, body });

const expectOpenAIError = async (response: Response, status: number, code: string | null, param: string | null = null) => {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: Record<string, unknown> };
  expect(Object.keys(body)).toEqual(["error"]);
  expect(Object.keys(body.error).sort()).toEqual(["code", "message", "param", "type"]);
  expect(body.error).toMatchObject({ code, param });
  expect(typeof body.error.message).toBe("string");
  return body.error;
};

describe("GW-4 auth, limits and errors", () => {
  it("GW-4 refuses requests without the bearer token or with a wrong one (401, OpenAI's error shape)", async () => {
    const { gateway, client } = await gatewayWith([{ text: "never" }]);
    expect(gateway.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    await expectOpenAIError(await fetch(`${gateway.url}/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: MODEL, input: "hi" }) }), 401, "invalid_api_key");
    await expectOpenAIError(await fetch(`${gateway.url}/models`), 401, "invalid_api_key");
    await expect(client.withOptions({ apiKey: "wrong-token-0123456789" }).responses.create({ model: MODEL, input: "hi" })).rejects.toMatchObject({ status: 401, code: "invalid_api_key" });
    expect((await client.models.list()).data.map((model) => model.id)).toEqual([MODEL]);
  });

  it("GW-4 a body over the limit is refused with 413, declared or streamed", async () => {
    const { gateway, client, model } = await gatewayWith([{ text: "never" }], { maxBodyBytes: 512 });
    await expect(client.responses.create({ model: MODEL, input: "x".repeat(2000) })).rejects.toMatchObject({ status: 413, code: "request_too_large" });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode(" ".repeat(100)));
        controller.close();
      },
    });
    const streamed = await fetch(`${gateway.url}/responses`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body, duplex: "half" } as RequestInit);
    await expectOpenAIError(streamed, 413, "request_too_large");
    expect(model.calls).toHaveLength(0);
  });

  it("GW-4 a simple rate limit per client answers 429 with Retry-After", async () => {
    const { gateway, client } = await gatewayWith([{ text: "ok" }], { rateLimit: { requests: 2, windowMs: 60_000 } });
    await client.models.list();
    await client.models.list();
    const limited = await fetch(`${gateway.url}/models`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    const error = await expectOpenAIError(limited, 429, "rate_limit_exceeded");
    expect(error.type).toBe("requests");
  });

  it("GW-4 bad JSON, unknown routes, unknown models and invalid bodies get OpenAI-shaped errors", async () => {
    const { gateway, client, model } = await gatewayWith([{ text: "never" }]);
    await expectOpenAIError(await post(`${gateway.url}/responses`, "{not json"), 400, "invalid_json");
    await expectOpenAIError(await post(`${gateway.url}/responses`, "[1, 2]"), 400, "invalid_request_body");
    await expectOpenAIError(await post(`${gateway.url}/embeddings`, "{}"), 404, "unknown_url");
    await expectOpenAIError(await post(`${gateway.url}/responses`, "{}", { "content-type": "text/plain" }), 415, "unsupported_media_type");
    await expect(client.responses.create({ model: "gpt-4o", input: "hi" })).rejects.toMatchObject({ status: 404, code: "model_not_found", param: "model" });
    await expect(client.responses.create({ model: MODEL, input: 42 as unknown as string })).rejects.toMatchObject({ status: 400, param: "input" });
    await expect(client.responses.create({ model: MODEL } as never)).rejects.toMatchObject({ status: 400, param: "input", code: "missing_required_parameter" });
    await expect(client.chat.completions.create({ model: MODEL, messages: [{ content: "hi" } as never] })).rejects.toMatchObject({ status: 400, param: "messages[0].role" });
    await expect(client.chat.completions.create({ model: MODEL, messages: [{ role: "assistant", content: "hi" }] })).rejects.toMatchObject({ status: 400, param: "messages[0].role" });
    expect(model.calls).toHaveLength(0);
  });

  it("GW-4 a client that disconnects mid-stream cancels the run: its AbortSignal fires and nothing is left running", async () => {
    let signalled: AbortSignal | undefined;
    let aborted = false;
    const slow: ModelProvider = {
      descriptor: { provider: "test", model: "slow", apiKind: "offline", contextWindow: 10_000 },
      async *stream(_request, signal): AsyncIterable<ModelStreamEvent> {
        signalled = signal;
        yield { type: "text_delta", index: 0, delta: "Thinking about it" };
        // Waits until the run is cancelled (the test fails on its timeout otherwise).
        await new Promise<void>((resolve) => signal!.addEventListener("abort", () => resolve(), { once: true }));
        aborted = true;
        yield { type: "done", response: { content: [], usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }, stopReason: "aborted", errorMessage: "aborted" } };
      },
    };
    const { gateway, client } = await gatewayWith([], { agentOptions: { models: slow } });
    const stream = await client.responses.create({ model: MODEL, input: "take your time", stream: true });
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") break; // leaving the loop aborts the HTTP request
    }
    await eventually(() => aborted, "the model saw the run's signal abort");
    expect(signalled!.aborted).toBe(true);
    await eventually(() => gateway.activeRuns() === 0, "no run left running");
  });
});
