/**
 * Profiling aid for the chat route's time to first chunk (issue 45 item 1; not a bench of its own,
 * no JSON): a new chat turn and a streamed Responses turn on one SQLite gateway, N of each,
 * printing medians of the time to first chunk, of this process's CPU from a request's start until
 * its first chunk arrived, and of its CPU per turn (gateway and client: on a loaded machine CPU
 * compares before and after a change better than wall time).
 * Run under `node --cpu-prof --import tsx bench/ui-chat-ttfc-profile.ts [N] [continued] [steady]`
 * (`continued`: every chat turn is the next turn of one chat, and every Responses turn continues
 * the previous one with `previous_response_id`, as bench 1b; else each is a new conversation;
 * `steady`: the model waits 2 ms after each text delta, as bench 1c's, so the first chunk's CPU
 * is what precedes the first delta, not the rest of a step answered at once).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStorage } from "../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { startGateway } from "../src/compose/gateway.js";
import type { ModelProvider } from "../src/ports/model-provider.js";
import { createOfflineModel } from "../src/testing/offline-model.js";
import { ANSWER, cpuMs, sinceMs, TOKEN } from "./gateway-support.js";

const N = Number(process.argv[2] ?? 100);
const continued = process.argv.slice(3).includes("continued");
const steady = process.argv.slice(3).includes("steady");
const oneChat = randomUUID();
const directory = mkdtempSync(join(tmpdir(), "ui-chat-ttfc-"));
const offline = createOfflineModel({ steps: () => ({ text: ANSWER }), chunkSize: 8 });
const model: ModelProvider & { calls: unknown[] } = {
  descriptor: offline.descriptor,
  calls: offline.calls,
  async *stream(request, signal) {
    for await (const event of offline.stream(request, signal)) {
      yield event;
      if (steady && event.type === "text_delta") await new Promise((resolve) => setTimeout(resolve, 2));
    }
  },
};
const storage = createSqliteStorage({ directory });
const gateway = await startGateway({ agent: { models: model, retryDelayMs: 0, workdir: directory }, projectId: "bench", modelId: "bench", token: TOKEN, storage, rateLimit: false, maxConversations: 100_000 });
const agent = new Agent({ keepAlive: true });
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** One streamed POST: ms and this process's CPU ms from its start to the first chunk containing `mark`. */
function firstChunk(path: string, body: string, mark: string): Promise<{ firstMs: number; firstCpuMs: number; text: string }> {
  const start = process.hrtime.bigint();
  const cpu = cpuMs();
  return new Promise((resolve, reject) => {
    let firstMs = -1;
    let firstCpuMs = -1;
    let text = "";
    const req = httpRequest(`${gateway.url}${path}`, { method: "POST", agent, headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
      res.setEncoding("utf8");
      res.on("data", (part: string) => {
        if (firstMs < 0 && part.includes(mark)) [firstMs, firstCpuMs] = [sinceMs(start), cpuMs() - cpu];
        text += part;
      });
      res.on("end", () => resolve({ firstMs, firstCpuMs, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}
const chatTurn = () => firstChunk("/ui/chat", JSON.stringify({ id: continued ? oneChat : randomUUID(), messages: [{ id: randomUUID(), role: "user", parts: [{ type: "text", text: "Tell me" }] }], trigger: "submit-message" }), '"type":"text-delta"');
// Continued: each Responses turn continues the previous one (`previous_response_id`), as bench 1b does.
let previous: string | null = null;
const responsesTurn = async () => {
  const turn = await firstChunk("/responses", JSON.stringify({ model: "bench", input: "Tell me", stream: true, ...(continued && previous ? { previous_response_id: previous } : {}) }), "response.output_text.delta");
  previous = /"id":"(resp_[^"]+)"/.exec(turn.text)?.[1] ?? null;
  return turn;
};
for (let i = 0; i < 10; i++) {
  await chatTurn();
  await responsesTurn();
}
const chat: number[] = [];
const responses: number[] = [];
const cpu = { chat: [] as number[], responses: [] as number[] };
const firstCpu = { chat: [] as number[], responses: [] as number[] };
for (let i = 0; i < N; i++) {
  let before = cpuMs();
  const c = await chatTurn();
  chat.push(c.firstMs);
  firstCpu.chat.push(c.firstCpuMs);
  cpu.chat.push(cpuMs() - before);
  before = cpuMs();
  const r = await responsesTurn();
  responses.push(r.firstMs);
  firstCpu.responses.push(r.firstCpuMs);
  cpu.responses.push(cpuMs() - before);
  model.calls.splice(0);
}
console.log(`chat ${median(chat).toFixed(2)} ms, responses ${median(responses).toFixed(2)} ms → ${(median(chat) / median(responses)).toFixed(2)}×`);
console.log(`CPU to first chunk: chat ${median(firstCpu.chat).toFixed(2)} ms, responses ${median(firstCpu.responses).toFixed(2)} ms → ${(median(firstCpu.chat) / median(firstCpu.responses)).toFixed(2)}×`);
console.log(`CPU per whole turn: chat ${median(cpu.chat).toFixed(2)} ms, responses ${median(cpu.responses).toFixed(2)} ms → ${(median(cpu.chat) / median(cpu.responses)).toFixed(2)}×`);
await gateway.close();
storage.close?.();
rmSync(directory, { recursive: true, force: true });
