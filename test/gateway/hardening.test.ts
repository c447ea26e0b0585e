import { describe, expect, it } from "@jest/globals";
import { execFile, spawn } from "node:child_process";
import { request as httpRequest } from "node:http";
import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import type { ModelProvider, ModelStreamEvent } from "../../src/ports/model-provider.js";
import { REPO } from "../cli/helpers.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";
import { eventually, gatewayWith, MODEL, TOKEN } from "./helpers.js";

/** A raw request (node:http), for headers `fetch` and the openai client will not send. */
function raw(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; body: { error?: { code: string | null; message: string; type: string; param: string | null } } }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: options.method ?? "GET", headers: { authorization: `Bearer ${TOKEN}`, ...options.headers } }, (response) => {
      let text = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode!, body: JSON.parse(text) as never }));
    });
    request.on("error", reject);
    request.end(options.body);
  });
}

const json = (body: string, headers: Record<string, string> = {}) => ({ method: "POST", headers: { "content-type": "application/json", ...headers }, body });

/** A model that streams one delta, then waits for its run to be cancelled (or for `release`). */
function slowModel(options: { ignoreAbort?: boolean } = {}) {
  const state = { started: 0, aborted: false, release: () => {} };
  const released = new Promise<void>((resolve) => (state.release = resolve));
  const model: ModelProvider = {
    descriptor: { provider: "test", model: "slow", apiKind: "offline", contextWindow: 10_000 },
    async *stream(_request, signal): AsyncIterable<ModelStreamEvent> {
      state.started++;
      yield { type: "text_delta", index: 0, delta: "Working on it" };
      await (options.ignoreAbort ? released : new Promise<void>((resolve) => signal!.addEventListener("abort", () => resolve(), { once: true })));
      state.aborted = signal!.aborted;
      yield { type: "done", response: { content: [], usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }, stopReason: "aborted", errorMessage: "aborted" } };
    },
  };
  return { model, state };
}

describe("SEC-7 gateway budgets, Host/Origin, rate limits, drain", () => {
  it("SEC-7 held conversations stay within the byte budget: the least recently used are evicted (404)", async () => {
    const budget = 6 * 1024 * 1024;
    const { gateway, client } = await gatewayWith(() => ({ text: "noted" }), { maxHeldBytes: budget, maxBodyBytes: 2 * 1024 * 1024, rateLimit: false });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      ids.push((await client.responses.create({ model: MODEL, input: `${i} ${"x".repeat(1_000_000)}` })).id);
      expect(gateway.stats().heldBytes).toBeLessThanOrEqual(budget);
      expect(gateway.stats().heldBytes).toBeGreaterThan(1_000_000);
    }
    const { conversations } = gateway.stats();
    expect(conversations).toBeGreaterThanOrEqual(2);
    expect(conversations).toBeLessThan(12);
    await expect(client.responses.retrieve(ids[0]!)).rejects.toMatchObject({ status: 404 });
    await expect(client.responses.create({ model: MODEL, input: "still there?", previous_response_id: ids[0]! })).rejects.toMatchObject({ status: 404, code: "previous_response_not_found" });
    expect((await client.responses.retrieve(ids[11]!)).id).toBe(ids[11]);
    // A kept conversation continues; its new turn is counted against the same budget.
    const next = await client.responses.create({ model: MODEL, input: "and now?", previous_response_id: ids[11]! });
    expect(next.status).toBe("completed");
    expect(gateway.stats().heldBytes).toBeLessThanOrEqual(budget);
  });

  it("SEC-7 the heap a gateway process keeps for ~1 MB conversations stays within the byte budget (separate process, after gc)", async () => {
    const budget = 16 * 1024 * 1024;
    const output = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ["--expose-gc", bundledFixture("test/gateway/fixtures/held-memory.ts"), String(budget), "40"], { cwd: REPO, timeout: 120_000, maxBuffer: 1 << 20 }, (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
      ),
    );
    const result = JSON.parse(output.trim().split("\n").at(-1)!) as { grown: number; maxHeld: number; conversations: number; heldBytes: number };
    expect(result.maxHeld).toBeLessThanOrEqual(budget);
    expect(result.conversations).toBeLessThan(40);
    // 40 MB went through; the budget (plus GC noise) is what stays. Before: ~3.3 MiB per conversation.
    expect(result.grown).toBeLessThan(budget * 1.25);
  }, 150_000);

  it("SEC-7 a foreign Host or Origin gets 403 whatever the token (DNS rebinding); loopback and allowed names are served", async () => {
    const { gateway, model } = await gatewayWith([{ text: "ok" }, { text: "ok" }], { allowedHosts: ["Gateway.Example"] });
    const base = gateway.url;
    const body = JSON.stringify({ model: MODEL, input: "hi" });
    const refusedHost = await raw(`${base}/responses`, json(body, { host: `evil.example:${gateway.port}` }));
    expect(refusedHost.status).toBe(403);
    expect(refusedHost.body.error).toMatchObject({ code: "host_not_allowed", type: "invalid_request_error", param: null });
    expect((await raw(`${base}/models`, { headers: { host: "localhost.evil.example" } })).status).toBe(403);
    for (const origin of ["http://evil.example", `http://evil.example:${gateway.port}`, "null", "file://"]) {
      const refused = await raw(`${base}/responses`, json(body, { origin }));
      expect(refused.status).toBe(403);
      expect(refused.body.error!.code).toBe("origin_not_allowed");
    }
    expect(model.calls).toHaveLength(0);
    for (const host of [`localhost:${gateway.port}`, `127.0.0.1:${gateway.port}`, "[::1]", "gateway.example:443", "GATEWAY.example."]) {
      expect((await raw(`${base}/models`, { headers: { host } })).status).toBe(200);
    }
    expect((await raw(`${base}/models`, { headers: { origin: `http://localhost:3000` } })).status).toBe(200);
    expect((await raw(`${base}/responses`, json(body, { origin: "https://gateway.example" }))).status).toBe(200);
    expect(model.calls).toHaveLength(1);
  });

  it("SEC-7 a local process hammering with a wrong token gets 429, and a client with the token is not limited by it", async () => {
    const { gateway, client } = await gatewayWith(() => ({ text: "fine" }), { rateLimit: { requests: 5, windowMs: 60_000 } });
    const script = `
      const seen = {};
      for (let i = 0; i < 30; i++) {
        const response = await fetch(process.argv[1] + "/models", { headers: { authorization: "Bearer not-the-token-0123456789" } });
        seen[response.status] = (seen[response.status] ?? 0) + 1;
      }
      console.log(JSON.stringify(seen));`;
    const hammer = spawn(process.execPath, ["--input-type=module", "-e", script, gateway.url], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    hammer.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    await new Promise((resolve) => hammer.once("exit", resolve));
    expect(JSON.parse(out)).toEqual({ 401: 5, 429: 25 });
    // Same address (127.0.0.1), the right token: served.
    for (let i = 0; i < 4; i++) expect((await client.responses.create({ model: MODEL, input: `turn ${i}` })).output_text).toBe("fine");
    // The token's own budget still holds.
    await client.models.list();
    await expect(client.models.list()).rejects.toMatchObject({ status: 429, code: "rate_limit_exceeded" });
  });

  it("SEC-7 close() cancels a streamed Responses run with error + response.failed, and resolves after the run ended", async () => {
    const { model, state } = slowModel();
    const { gateway, client } = await gatewayWith([], { agentOptions: { models: model } });
    const stream = await client.responses.create({ model: MODEL, input: "take your time", stream: true });
    const events: ResponseStreamEvent[] = [];
    let closed: Promise<void> | undefined;
    let closeResolved = false;
    for await (const event of stream) {
      events.push(event);
      if (event.type === "response.output_text.delta" && !closed) closed = gateway.close().then(() => void (closeResolved = true));
    }
    await closed;
    expect(closeResolved).toBe(true);
    expect(state.aborted).toBe(true);
    expect(gateway.activeRuns()).toBe(0);
    const error = events.find((event) => event.type === "error") as Extract<ResponseStreamEvent, { type: "error" }> | undefined;
    expect(error).toMatchObject({ code: "gateway_closing" });
    const last = events.at(-1) as Extract<ResponseStreamEvent, { type: "response.failed" }>;
    expect(last.type).toBe("response.failed");
    expect(last.response).toMatchObject({ status: "failed", output_text: "Working on it" });
  });

  it("SEC-7 close() ends a streamed Chat Completion with an error event the client raises, and answers 503 to a waiting request", async () => {
    const { model, state } = slowModel();
    const { gateway, client } = await gatewayWith([], { agentOptions: { models: model } });
    const waiting = client.responses.create({ model: MODEL, input: "no stream" });
    const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "take your time" }], stream: true });
    const deltas: string[] = [];
    let closed: Promise<void> | undefined;
    const consumed = (async () => {
      for await (const chunk of stream) {
        deltas.push(chunk.choices[0]?.delta.content ?? "");
        if (deltas.join("") !== "" && !closed) {
          while (state.started < 2) await new Promise((resolve) => setTimeout(resolve, 5));
          closed = gateway.close();
        }
      }
    })();
    await expect(consumed).rejects.toMatchObject({ code: "gateway_closing" });
    await expect(waiting).rejects.toMatchObject({ status: 503, code: "gateway_closing" });
    await closed;
    expect(deltas.join("")).toBe("Working on it");
    expect(gateway.activeRuns()).toBe(0);
  });

  it("SEC-7 close() is bounded by closeTimeoutMs when a node ignores the cancellation", async () => {
    const { model, state } = slowModel({ ignoreAbort: true });
    const { gateway, client } = await gatewayWith([], { agentOptions: { models: model }, closeTimeoutMs: 200 });
    const stream = await client.responses.create({ model: MODEL, input: "ignore me", stream: true });
    let closed: Promise<void> | undefined;
    await (async () => {
      for await (const event of stream) if (event.type === "response.output_text.delta" && !closed) closed = gateway.close();
    })().catch(() => undefined); // the connection is dropped once the time is up
    await closed;
    // close() gave up waiting: the run that ignores its signal is still going.
    expect(gateway.activeRuns()).toBe(1);
    state.release();
    await eventually(() => gateway.activeRuns() === 0, "the run ended once released");
  });

  it("SEC-7 malformed input gets 400, never 500: deep nesting, a deeply nested invalid field, a malformed %-escape", async () => {
    const { gateway, model } = await gatewayWith([{ text: "never" }]);
    const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
    const post = (path: string, body: string) => raw(`${gateway.url}${path}`, json(body));
    for (const [path, body] of [
      ["/responses", `{"model":"${MODEL}","input":[{"role":"user","content":${deep(20_000)}}]}`],
      ["/responses", `{"model":"${MODEL}","input":${'{"a":'.repeat(20_000)}1${"}".repeat(20_000)}}`],
      ["/responses", `{"model":${deep(100_000)},"input":"x"}`],
      ["/chat/completions", `{"model":"${MODEL}","messages":[{"role":"user","content":${deep(20_000)}}]}`],
    ] as const) {
      const refused = await post(path, body);
      expect(refused.status).toBe(400);
      expect(refused.body.error!.code).toBe("invalid_json");
    }
    // Within the nesting limit, the invalid field is named and its value shown (bounded).
    const named = await post("/responses", `{"model":"${MODEL}","input":[{"role":"user","content":${deep(100)}}]}`);
    expect(named.status).toBe(400);
    expect(named.body.error).toMatchObject({ param: "input", code: "invalid_value" });
    expect(named.body.error!.message).toContain(`got [{"role":"user","content":[[[`);
    expect(named.body.error!.message.length).toBeLessThan(200);
    for (const id of ["%E0%A4%A", "%", "resp_%zz"]) {
      const refused = await raw(`${gateway.url}/responses/${id}`);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ param: "response_id", code: "invalid_value" });
    }
    expect(model.calls).toHaveLength(0);
  });
});
