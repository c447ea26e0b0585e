/**
 * Profiling aid for the chat route's time to first chunk (issue 45 item 1; not a bench of its own,
 * no JSON): a new chat turn and a streamed Responses turn on one SQLite gateway, N of each,
 * printing medians of the time to first chunk and of this process's CPU per turn (gateway and
 * client: on a loaded machine CPU compares before and after a change better than wall time).
 * Run under `node --cpu-prof --import tsx bench/ui-chat-ttfc-profile.ts [N] [continued]`
 * (`continued`: every chat turn is the next turn of one chat, not a new chat).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStorage } from "../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { startGateway } from "../src/compose/gateway.js";
import { createOfflineModel } from "../src/testing/offline-model.js";
import { ANSWER, cpuMs, sinceMs, streamedResponse, TOKEN } from "./gateway-support.js";

const N = Number(process.argv[2] ?? 100);
const continued = process.argv[3] === "continued";
const oneChat = randomUUID();
const directory = mkdtempSync(join(tmpdir(), "ui-chat-ttfc-"));
const model = createOfflineModel({ steps: () => ({ text: ANSWER }), chunkSize: 8 });
const storage = createSqliteStorage({ directory });
const gateway = await startGateway({ agent: { models: model, retryDelayMs: 0, workdir: directory }, projectId: "bench", modelId: "bench", token: TOKEN, storage, rateLimit: false, maxConversations: 100_000 });
const agent = new Agent({ keepAlive: true });
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function chatTurn(): Promise<number> {
  const body = JSON.stringify({ id: continued ? oneChat : randomUUID(), messages: [{ id: randomUUID(), role: "user", parts: [{ type: "text", text: "Tell me" }] }], trigger: "submit-message" });
  const start = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    let first = -1;
    const req = httpRequest(`${gateway.url}/ui/chat`, { method: "POST", agent, headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
      res.setEncoding("utf8");
      res.on("data", (part: string) => {
        if (first < 0 && part.includes('"type":"text-delta"')) first = sinceMs(start);
      });
      res.on("end", () => resolve(first));
    });
    req.on("error", reject);
    req.end(body);
  });
}
const responsesTurn = () => streamedResponse(`${gateway.url}/responses`, agent, () => JSON.stringify({ model: "bench", input: "Tell me", stream: true }));
for (let i = 0; i < 10; i++) {
  await chatTurn();
  await responsesTurn();
}
const chat: number[] = [];
const responses: number[] = [];
const cpu = { chat: [] as number[], responses: [] as number[] };
for (let i = 0; i < N; i++) {
  let before = cpuMs();
  chat.push(await chatTurn());
  cpu.chat.push(cpuMs() - before);
  before = cpuMs();
  responses.push((await responsesTurn()).firstMs);
  cpu.responses.push(cpuMs() - before);
  model.calls.splice(0);
}
console.log(`chat ${median(chat).toFixed(2)} ms, responses ${median(responses).toFixed(2)} ms → ${(median(chat) / median(responses)).toFixed(2)}×`);
console.log(`CPU per whole turn: chat ${median(cpu.chat).toFixed(2)} ms, responses ${median(cpu.responses).toFixed(2)} ms → ${(median(cpu.chat) / median(cpu.responses)).toFixed(2)}×`);
await gateway.close();
storage.close?.();
rmSync(directory, { recursive: true, force: true });
