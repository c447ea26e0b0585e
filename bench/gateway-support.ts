/**
 * The turn the gateway benchmarks measure (gateway.bench.ts, gateway-floor.bench.ts and
 * tenancy.bench.ts): an offline model streaming a 480-character answer in 60 deltas, as a
 * host-driven run, served in process (the baseline) and by `startGateway` on 127.0.0.1.
 */
import { randomUUID } from "node:crypto";
import { request as httpRequest, type Agent } from "node:http";
import { MemoryStorage } from "../src/compose/memory-storage.js";
import { startGateway } from "../src/compose/gateway.js";
import { createAgentNode } from "../src/app/agent-node/create-agent-node.js";
import { createOfflineModel } from "../src/testing/offline-model.js";
import { createNodeContext } from "../src/compose/node-context.js";

export const TOKEN = "bench-token-0123456789abcdef";
export const ANSWER = "The gateway streams this answer in small deltas. ".repeat(10).slice(0, 480);
export const ANSWER_ID = "bench-answer";

export interface Timing {
  firstMs: number;
  totalMs: number;
}

export const sinceMs = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;

/**
 * One streamed Responses request, as both gateway benchmarks time it: the clock starts, then
 * `body()` is built and POSTed to `url` through `agent` with the bench token; `firstMs` is when
 * the first `response.output_text.delta` event arrives, `totalMs` the end of the stream. Rejects
 * unless the status is 200 and the stream completed. `text` is the whole SSE body.
 */
export function streamedResponse(url: URL | string, agent: Agent, body: () => string): Promise<Timing & { text: string }> {
  const start = process.hrtime.bigint();
  const payload = body();
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: "POST", agent, headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", "content-length": Buffer.byteLength(payload) } }, (res) => {
      let firstMs = -1;
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (part: string) => {
        if (firstMs < 0 && part.includes("response.output_text.delta")) firstMs = sinceMs(start);
        text += part;
      });
      res.on("end", () => {
        if (res.statusCode !== 200 || !text.includes("event: response.completed")) return reject(new Error(`request failed: ${res.statusCode} ${text.slice(0, 200)}`));
        resolve({ firstMs, totalMs: sinceMs(start), text });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(payload);
  });
}

/**
 * Milliseconds of one non-streamed Responses request (`stream: false`) POSTed to `url` through
 * `agent` with `bearer`; rejects unless the status is 200 and the response completed.
 *
 * @example
 * const ms = await respondedMs(`${gateway.url}/responses`, new Agent({ keepAlive: true }), TOKEN);
 */
export function respondedMs(url: URL | string, agent: Agent, bearer: string): Promise<number> {
  const start = process.hrtime.bigint();
  const payload = JSON.stringify({ model: "bench", input: "Tell me about the gateway", stream: false });
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: "POST", agent, headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json", "content-length": Buffer.byteLength(payload) } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (part: string) => void (text += part));
      res.on("end", () => {
        const status = res.statusCode === 200 ? (JSON.parse(text) as { status?: string }).status : undefined;
        if (status !== "completed") return reject(new Error(`request failed: ${res.statusCode} ${text.slice(0, 200)}`));
        resolve(sinceMs(start));
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(payload);
  });
}

/** This process's CPU time so far, in ms. */
export const cpuMs = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

/**
 * The agent options every gateway benchmark serves: the offline model answering {@link ANSWER}
 * in 8-character deltas; `trimCalls` empties the model's request log (memory only, not measured).
 *
 * @example
 * const { agentOptions } = benchAgentOptions();
 * const gateway = await startGateway({ agent: agentOptions, projectId: "bench", token: TOKEN });
 */
export function benchAgentOptions() {
  const model = createOfflineModel({ steps: () => ({ text: ANSWER }), chunkSize: 8 });
  const agentOptions = { models: model, retryDelayMs: 0, outputItemId: ANSWER_ID, workdir: process.cwd() };
  // Memory kept by the model's request log would grow with every run; it is not measured.
  return { agentOptions, trimCalls: () => void model.calls.splice(0) };
}

/** The model, the in-process node and a gateway serving the same agent options. */
export async function gatewayBenchTurn() {
  const { agentOptions, trimCalls } = benchAgentOptions();
  const node = createAgentNode(agentOptions);
  const storage = new MemoryStorage();
  const gateway = await startGateway({ agent: agentOptions, projectId: "bench", modelId: "bench", token: TOKEN, rateLimit: false, maxConversations: 10_000 });
  /** The baseline: the node streamed in process, as a host embedding the agent would. */
  async function inProcess(turn: number): Promise<Timing> {
    const start = process.hrtime.bigint();
    let firstMs = -1;
    const context = createNodeContext({ projectId: "bench", conversationId: `bench-${turn}-${randomUUID()}`, storage, runId: `run-${turn}-${randomUUID()}` });
    for await (const chunk of node.stream({ prompt: "Tell me about the gateway", hostInput: { gateway: "openai-responses" } }, context)) {
      if (firstMs < 0 && chunk.type === "delta" && chunk.id === ANSWER_ID) firstMs = sinceMs(start);
    }
    return { firstMs, totalMs: sinceMs(start) };
  }
  return { gateway, storage, inProcess, trimCalls };
}
