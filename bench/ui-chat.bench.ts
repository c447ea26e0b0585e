/**
 * The chat route (issue 45, UI-1/UI-2): one gateway (`startGateway`, SQLite storage in a temp
 * folder, 127.0.0.1) serving an offline model whose answer depends on the user's text:
 *
 * 1. Time to first chunk: a chat turn (`POST /v1/ui/chat`, first `text-delta` chunk) against the
 *    gateway's streamed Responses (`POST /v1/responses`, `stream: true`, first
 *    `response.output_text.delta`) — the same 480-character answer in 60 deltas, same gateway,
 *    same keep-alive node:http client, interleaved in rounds (medians of rounds). Goal ≤ 1.1×.
 *    1b (added beside 1, which stays as defined): the same, for the next turn of a conversation
 *    both routes already have (the chat's host resident; Responses with `previous_response_id`).
 *    1c (added beside 1 and 1b, which stay as defined): the same, new and continued, with a model
 *    that streams at a steady pace — the same 480-character answer in 60 deltas, 2 ms apart
 *    (user text `steady`; the offline model's deltas, the paced-turn mechanism of sections 3–4),
 *    so a route that streams the model's text live can show it before the step ends. Goal ≤ 1.1×.
 * 2. Resume time to first chunk after 10, 1,000 and 10,000 chunks of history (UI chunks the
 *    chat's turns streamed; how each is made: `definitions.history` in the JSON), then
 *    `GET /v1/ui/chat/{id}/stream?after=<cursor of the third chunk from the end>` (near the end)
 *    and `?after=0` (a replay of the last turn from `start`), interleaved across sizes;
 *    p50/p99 nearest-rank. Note: the chat route streams from the log, which holds whole items,
 *    so a text arrives as one `text-delta` when its item is complete.
 *    Goal: flat, ≤ 20 ms p50.
 * 3. 100 concurrent watchers (`GET {id}/stream`) of one running turn (40 model calls 20 ms apart;
 *    the second call waits until every watcher has its first frame, so all attach while it runs):
 *    RSS and heap after all attached minus before (after a GC), and CPU of this process over the
 *    turn with 100 watchers minus without, per watcher. The watchers are raw node:http clients in
 *    this process that only count bytes, so the CPU includes their socket reads.
 * 4. The disconnect torture of test/ui-chat/resume.test.ts on a paced turn (30 model calls 1 ms
 *    apart, ~240 chunks): the client reads 1–4 chunks, drops the connection, reconnects; chunks lost or
 *    duplicated against the uninterrupted stream, and resume time to first chunk. Ours resumes
 *    with the documented cursor (`?after=`); the anchor (bench/ui-chat-anchor.ts: AI SDK +
 *    `resumable-stream` + Redis, as the AI SDK docs set it up) with its GET, a replay from the
 *    start that the client rebuilds the message from (`resumeStreamIsReplay`), 204 once done.
 *
 * Figures come from a shared, loaded machine (load averages before and after are in the JSON).
 * UI_BENCH_QUICK=1 runs small counts (a smoke run; its JSON is not kept). UI_BENCH_ONLY=1c stops
 * after section 1c (its figures printed, no JSON): for an A/B of 1c against another build.
 */
import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createSqliteStorage } from "../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { startGateway } from "../src/compose/gateway.js";
import type { ModelProvider, ModelRequest } from "../src/ports/model-provider.js";
import { createOfflineModel } from "../src/testing/offline-model.js";
import { ANSWER, cpuMs, sinceMs, streamedResponse, TOKEN } from "./gateway-support.js";
import { startAnchor } from "./ui-chat-anchor.js";
// A seeded generator (mulberry32), so a run can be repeated.
import { random } from "./storage/corpus.js";

const QUICK = process.env.UI_BENCH_QUICK === "1";
const ROUNDS = QUICK ? 2 : 5;
const TURNS = QUICK ? 10 : 40;
const RESUMES = QUICK ? 5 : 30;
const WATCHERS = 100;
const WATCH_ROUNDS = QUICK ? 1 : 3;
const DISCONNECTS = QUICK ? 100 : 1_000;
const PACED = "paced 30 1";
const WATCH = "watch 40 1";

const loadBefore = loadavg().map((value) => Number(value.toFixed(2)));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round4 = (value: number): number => Number(value.toFixed(4));
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number): number => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)]!;
const stats = (values: number[]) => ({ n: values.length, p50Ms: round4(percentile(values, 50)), p99Ms: round4(percentile(values, 99)) });
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** The user's last text: it picks the answer. */
function lastUserText(request: ModelRequest): string {
  const user = request.messages.filter((message) => message.role === "user").at(-1);
  if (!user || user.role !== "user") return "";
  return typeof user.content === "string" ? user.content : user.content.map((block) => block.text).join("");
}
/**
 * `<kind> <steps> <calls>` (kind history, paced or watch): `steps` model calls, each answering
 * `step <n>` and calling a tool the agent does not have `calls` times (each call's input and
 * error output are chunks of the turn), then `done`; anything else: {@link ANSWER}.
 */
const offline = createOfflineModel({
  steps: (request) => {
    const [kind, steps, calls] = lastUserText(request).split(" ");
    if (kind !== "history" && kind !== "paced" && kind !== "watch") return { text: ANSWER };
    const lastUser = request.messages.map((message) => message.role).lastIndexOf("user");
    const made = request.messages.slice(lastUser).filter((message) => message.role === "assistant").length;
    if (made >= Number(steps)) return { text: `done after ${made} steps` };
    return { text: `step ${made} `, toolCalls: Array.from({ length: Number(calls) }, (_, n) => ({ name: "no_such_tool", arguments: { made, n } })) };
  },
  chunkSize: 8,
});
/**
 * What a `watch` turn's second model call waits for (section 3): every watcher attached. The
 * turn is held open by the model, not by a sleep, so on a loaded machine no watcher attaches
 * after the turn ended (it would get 204).
 */
let watchersAttached: Promise<unknown> = Promise.resolve();
/** Milliseconds between the text deltas of a `steady` turn (section 1c). */
const STEADY_MS = 2;
/**
 * `paced` and `watch` turns wait 1 ms and 20 ms before each model call; `steady` turns (section
 * 1c) wait {@link STEADY_MS} between text deltas; the rest answer at once.
 */
const model: ModelProvider = {
  descriptor: offline.descriptor,
  async *stream(request, signal) {
    const kind = lastUserText(request).split(" ")[0];
    const pace = kind === "paced" ? 1 : kind === "watch" ? 20 : 0;
    if (kind === "watch" && request.messages.at(-1)?.role !== "user") await watchersAttached;
    if (pace > 0) await sleep(pace);
    // The Responses route's prompt starts with its `<host-input>` block: the user's text ends it.
    if (!/(^|>)steady$/.test(lastUserText(request))) return yield* offline.stream(request, signal);
    let deltas = 0;
    for await (const event of offline.stream(request, signal)) {
      if (event.type === "text_delta" && deltas++ > 0) await sleep(STEADY_MS);
      yield event;
    }
  },
};

const directory = mkdtempSync(join(tmpdir(), "ui-chat-bench-"));
const storage = createSqliteStorage({ directory });
const gateway = await startGateway({ agent: { models: model, retryDelayMs: 0, workdir: directory }, projectId: "bench", modelId: "bench", token: TOKEN, storage, rateLimit: false, maxConversations: 100_000 });
const api = `${gateway.url}/ui/chat`;
const keepAlive = new Agent({ keepAlive: true, maxSockets: WATCHERS * 2 });
const trimCalls = () => void offline.calls.splice(0);

interface Frame {
  id: string | null;
  data: string;
}
interface Read {
  status: number;
  firstMs: number;
  totalMs: number;
  frames: Frame[];
  done: boolean;
}

/**
 * One SSE request through `agent`: times the first frame whose data includes `firstMark` (any
 * frame when empty), keeps the frames (unless `keep` is false), and ends the connection after
 * `stopAfter` frames (a forced disconnect) or at `[DONE]`.
 */
function sse(url: string, { method = "GET", body, firstMark = "", stopAfter = Number.POSITIVE_INFINITY, keep = true, agent = keepAlive, onFirst }: { method?: string; body?: string; firstMark?: string; stopAfter?: number; keep?: boolean; agent?: Agent; onFirst?: () => void } = {}): Promise<Read> {
  const start = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { authorization: `Bearer ${TOKEN}` };
    if (body !== undefined) Object.assign(headers, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    const req = httpRequest(url, { method, agent, headers }, (res) => {
      const read: Read = { status: res.statusCode ?? 0, firstMs: -1, totalMs: 0, frames: [], done: false };
      let buffer = "";
      let count = 0;
      const finish = () => {
        read.totalMs = sinceMs(start);
        resolve(read);
      };
      res.setEncoding("utf8");
      res.on("data", (part: string) => {
        if (read.firstMs < 0 && part.includes(firstMark)) {
          read.firstMs = sinceMs(start);
          onFirst?.();
        }
        buffer += part;
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const raw = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^data: (.*)$/m.exec(raw)?.[1];
          if (data === undefined) continue;
          if (data === "[DONE]") read.done = true;
          else if (keep) read.frames.push({ id: /^id: (.*)$/m.exec(raw)?.[1] ?? null, data });
          if (read.done || ++count >= stopAfter) {
            res.destroy();
            return finish();
          }
        }
      });
      res.on("end", finish);
      res.on("error", finish);
    });
    req.on("error", reject);
    req.end(body);
  });
}
const chatBody = (id: string, text: string) => JSON.stringify({ id, messages: [{ id: randomUUID(), role: "user", parts: [{ type: "text", text }] }], trigger: "submit-message" });
const chatTurn = (text: string, options: { keep?: boolean } = {}) => sse(api, { method: "POST", body: chatBody(randomUUID(), text), firstMark: '"type":"text-delta"', ...options });

// 1. Time to first chunk: chat turn vs streamed Responses on the same gateway.
const responsesUrl = `${gateway.url}/responses`;
const responsesTurn = () => streamedResponse(responsesUrl, keepAlive, () => JSON.stringify({ model: "bench", input: "Tell me about the gateway", stream: true }));
for (let i = 0; i < 20; i++) {
  await responsesTurn();
  await chatTurn("Tell me about the gateway", { keep: false });
}
trimCalls();
const first = { responses: [] as number[], chat: [] as number[] };
const total = { responses: [] as number[], chat: [] as number[] };
for (let round = 0; round < ROUNDS; round++) {
  const r: number[][] = [[], [], [], []];
  for (let i = 0; i < TURNS; i++) {
    // Alternate which goes first, so neither always runs after the other's garbage.
    const chatFirst = i % 2 === 1;
    const c0 = chatFirst ? await chatTurn("Tell me about the gateway", { keep: false }) : undefined;
    const s = await responsesTurn();
    const c = c0 ?? (await chatTurn("Tell me about the gateway", { keep: false }));
    if (c.status !== 200 || !c.done) throw new Error(`chat turn failed: ${c.status}`);
    r[0]!.push(s.firstMs);
    r[1]!.push(c.firstMs);
    r[2]!.push(s.totalMs);
    r[3]!.push(c.totalMs);
  }
  trimCalls();
  first.responses.push(median(r[0]!));
  first.chat.push(median(r[1]!));
  total.responses.push(median(r[2]!));
  total.chat.push(median(r[3]!));
}
const compare = (responses: number[], chat: number[], goal?: number) => {
  const ratio = Number((median(chat) / median(responses)).toFixed(2));
  return { responsesMs: round4(median(responses)), chatMs: round4(median(chat)), ratio, ...(goal === undefined ? {} : { goal: `≤ ${goal}×`, meetsGoal: ratio <= goal }) };
};
const timeToFirstChunk = compare(first.responses, first.chat, 1.1);
const totalTurn = compare(total.responses, total.chat);
console.log(`1. first chunk: responses ${timeToFirstChunk.responsesMs} ms, chat ${timeToFirstChunk.chatMs} ms → ${timeToFirstChunk.ratio}× (goal ≤ 1.1×: ${timeToFirstChunk.meetsGoal ? "met" : "MISSED"}); total ${totalTurn.responsesMs} vs ${totalTurn.chatMs} ms`);

// 1b. Time to first chunk of a continued conversation: the chat's next turn (its host resident,
// its record and log open) against the Responses turn continuing the previous one
// (`previous_response_id`), so neither pays for opening a conversation.
const continued = { responses: [] as number[], chat: [] as number[] };
for (let round = 0; round < ROUNDS; round++) {
  const chatId = randomUUID();
  let previous: string | null = null;
  const r: number[][] = [[], []];
  for (let i = 0; i <= TURNS; i++) {
    const body = (): string => JSON.stringify({ model: "bench", input: "Tell me about the gateway", stream: true, ...(previous ? { previous_response_id: previous } : {}) });
    const chatFirst = i % 2 === 1;
    const c0 = chatFirst ? await sse(api, { method: "POST", body: chatBody(chatId, "Tell me about the gateway"), firstMark: '"type":"text-delta"', keep: false }) : undefined;
    const s = await streamedResponse(responsesUrl, keepAlive, body);
    previous = /"id":"(resp_[^"]+)"/.exec(s.text)?.[1] ?? null;
    const c = c0 ?? (await sse(api, { method: "POST", body: chatBody(chatId, "Tell me about the gateway"), firstMark: '"type":"text-delta"', keep: false }));
    if (c.status !== 200 || !c.done || previous === null) throw new Error(`continued turn failed: ${c.status}`);
    // The first turn opens both conversations: it is not a continued one.
    if (i === 0) continue;
    r[0]!.push(s.firstMs);
    r[1]!.push(c.firstMs);
  }
  trimCalls();
  continued.responses.push(median(r[0]!));
  continued.chat.push(median(r[1]!));
}
const timeToFirstChunkContinued = compare(continued.responses, continued.chat, 1.1);
console.log(`1b. first chunk of a continued conversation: responses ${timeToFirstChunkContinued.responsesMs} ms, chat ${timeToFirstChunkContinued.chatMs} ms → ${timeToFirstChunkContinued.ratio}×`);

// 1c. Time to first chunk with a model that streams at a steady pace (60 deltas, STEADY_MS
// apart): new turns (as 1) and continued turns (as 1b), interleaved turn by turn.
const STEADY = "steady";
const steadyBody = (previous: string | null) => JSON.stringify({ model: "bench", input: STEADY, stream: true, ...(previous ? { previous_response_id: previous } : {}) });
const steadyChat = (chatId: string) => sse(api, { method: "POST", body: chatBody(chatId, STEADY), firstMark: '"type":"text-delta"', keep: false });
for (let i = 0; i < 5; i++) {
  await streamedResponse(responsesUrl, keepAlive, () => steadyBody(null));
  await steadyChat(randomUUID());
}
trimCalls();
const steady = { new: { responses: [] as number[], chat: [] as number[] }, continued: { responses: [] as number[], chat: [] as number[] }, total: { responses: [] as number[], chat: [] as number[] } };
for (let round = 0; round < ROUNDS; round++) {
  const chatId = randomUUID();
  let previous: string | null = null;
  const r: number[][] = [[], [], [], [], [], []];
  for (let i = 0; i <= TURNS; i++) {
    const chatFirst = i % 2 === 1;
    // A new conversation on each route, then the next turn of the round's conversations.
    const cn0 = chatFirst ? await steadyChat(randomUUID()) : undefined;
    const sn = await streamedResponse(responsesUrl, keepAlive, () => steadyBody(null));
    const cn = cn0 ?? (await steadyChat(randomUUID()));
    const cc0 = chatFirst ? await steadyChat(chatId) : undefined;
    const sc = await streamedResponse(responsesUrl, keepAlive, () => steadyBody(previous));
    previous = /"id":"(resp_[^"]+)"/.exec(sc.text)?.[1] ?? null;
    const cc = cc0 ?? (await steadyChat(chatId));
    if (cn.status !== 200 || !cn.done || cc.status !== 200 || !cc.done || previous === null) throw new Error(`steady turn failed: ${cn.status} ${cc.status}`);
    r[0]!.push(sn.firstMs);
    r[1]!.push(cn.firstMs);
    r[4]!.push(sn.totalMs);
    r[5]!.push(cn.totalMs);
    // The round's first continued turn opens both conversations: it is not a continued one.
    if (i === 0) continue;
    r[2]!.push(sc.firstMs);
    r[3]!.push(cc.firstMs);
  }
  trimCalls();
  steady.new.responses.push(median(r[0]!));
  steady.new.chat.push(median(r[1]!));
  steady.continued.responses.push(median(r[2]!));
  steady.continued.chat.push(median(r[3]!));
  steady.total.responses.push(median(r[4]!));
  steady.total.chat.push(median(r[5]!));
}
const timeToFirstChunkSteady = {
  model: `the 480-character answer in 60 text deltas, ${STEADY_MS} ms apart (user text "${STEADY}")`,
  new: compare(steady.new.responses, steady.new.chat, 1.1),
  continued: compare(steady.continued.responses, steady.continued.chat, 1.1),
  totalTurnNew: compare(steady.total.responses, steady.total.chat),
};
console.log(`1c. first chunk, steady model: new responses ${timeToFirstChunkSteady.new.responsesMs} ms, chat ${timeToFirstChunkSteady.new.chatMs} ms → ${timeToFirstChunkSteady.new.ratio}×; continued ${timeToFirstChunkSteady.continued.responsesMs} vs ${timeToFirstChunkSteady.continued.chatMs} ms → ${timeToFirstChunkSteady.continued.ratio}×; total new ${timeToFirstChunkSteady.totalTurnNew.responsesMs} vs ${timeToFirstChunkSteady.totalTurnNew.chatMs} ms`);
if (process.env.UI_BENCH_ONLY === "1c") {
  keepAlive.destroy();
  await gateway.close();
  await storage.close();
  rmSync(directory, { recursive: true, force: true });
  process.exit(0);
}

// 2. Resume after 10, 1,000 and 10,000 chunks of history.
/** Chats by chunks of history: `turns` turns of `text` (see the model), the last one resumed. */
const HISTORY_CHATS = [
  { history: 10, turns: 1, text: "history 1 1" },
  { history: 1_000, turns: 1, text: "history 2 250" },
  { history: 10_000, turns: 10, text: "history 2 250" },
];
const histories = [] as Array<{ history: number; chatId: string; chunksInChat: number; frames: Frame[]; nearEnd: string; buildMs: number }>;
for (const { history, turns, text } of HISTORY_CHATS) {
  const chatId = randomUUID();
  let chunksInChat = 0;
  let built!: Read;
  const start = process.hrtime.bigint();
  for (let turn = 0; turn < (QUICK ? 1 : turns); turn++) {
    built = await sse(api, { method: "POST", body: chatBody(chatId, text) });
    if (!built.done || built.status !== 200) throw new Error(`history ${history}: turn ${turn} ended with ${built.status}`);
    chunksInChat += built.frames.length;
    trimCalls();
  }
  histories.push({ history, chatId, chunksInChat, frames: built.frames, nearEnd: built.frames.filter((frame) => frame.id !== null).at(-3)!.id!, buildMs: round4(sinceMs(start)) });
}
const resume = new Map(histories.map(({ history }) => [history, { nearEnd: [] as number[], fromStart: [] as number[], fromStartTotal: [] as number[] }]));
for (let i = 0; i < 3; i++) for (const h of histories) await sse(`${api}/${h.chatId}/stream?after=0`, { keep: false });
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < RESUMES; i++) {
    for (const h of histories) {
      const times = resume.get(h.history)!;
      const tail = await sse(`${api}/${h.chatId}/stream?after=${h.nearEnd}`);
      const replay = await sse(`${api}/${h.chatId}/stream?after=0`, { keep: i === 0 });
      // Correctness, not speed: the tail is the last two chunks, the replay the whole turn.
      if (tail.status !== 200 || !tail.done || JSON.stringify(tail.frames) !== JSON.stringify(h.frames.slice(-2))) throw new Error(`history ${h.history}: tail ${tail.status} ${tail.frames.length}`);
      if (replay.status !== 200 || !replay.done || (i === 0 && JSON.stringify(replay.frames) !== JSON.stringify(h.frames))) throw new Error(`history ${h.history}: replay ${replay.status}`);
      times.nearEnd.push(tail.firstMs);
      times.fromStart.push(replay.firstMs);
      times.fromStartTotal.push(replay.totalMs);
    }
  }
}
const resumeResult = Object.fromEntries(
  histories.map((h) => {
    const times = resume.get(h.history)!;
    return [`${h.history}`, { chunksInChat: h.chunksInChat, chunksInResumedTurn: h.frames.length, historyWrittenInMs: h.buildMs, nearEnd: stats(times.nearEnd), fromStart: stats(times.fromStart), fromStartWholeReplay: stats(times.fromStartTotal) }];
  }),
);
const resumeP50s = histories.flatMap((h) => [percentile(resume.get(h.history)!.nearEnd, 50), percentile(resume.get(h.history)!.fromStart, 50)]);
const resumeMeetsGoal = resumeP50s.every((ms) => ms <= 20);
for (const h of histories) {
  const r = resumeResult[`${h.history}`]!;
  console.log(`2. resume with ${h.chunksInChat} chunks in the chat (${h.frames.length} in the turn): near end p50 ${r.nearEnd.p50Ms} ms (p99 ${r.nearEnd.p99Ms}), from start p50 ${r.fromStart.p50Ms} ms (p99 ${r.fromStart.p99Ms}); whole replay p50 ${r.fromStartWholeReplay.p50Ms} ms`);
}

// 3. 100 concurrent watchers of one running turn.
async function watchTurn(watchers: number) {
  const chatId = randomUUID();
  gc();
  const before = process.memoryUsage();
  const cpu0 = cpuMs();
  const wall = process.hrtime.bigint();
  // The turn's second model call waits until every watcher has its first frame (or was answered without one).
  let attachedAll!: () => void;
  watchersAttached = new Promise<void>((resolve) => (attachedAll = resolve));
  // Watchers attach once the turn's stream is active (the POST has its `start`).
  let started!: () => void;
  const streaming = new Promise<void>((resolve) => (started = resolve));
  const post = sse(api, { method: "POST", body: chatBody(chatId, WATCH), keep: false, onFirst: () => started() });
  await streaming;
  const reads = Array.from({ length: watchers }, () => {
    let attached!: () => void;
    const attachedOne = new Promise<void>((resolve) => (attached = resolve));
    const read = sse(`${api}/${chatId}/stream`, { keep: false, onFirst: () => attached() });
    // A watcher answered without a frame (204) never attaches: checked below, not waited for.
    void read.then(() => attached(), () => attached());
    return { read, attachedOne };
  });
  await Promise.all(reads.map(({ attachedOne }) => attachedOne));
  gc();
  const during = process.memoryUsage();
  attachedAll();
  const [main, ...watched] = await Promise.all([post, ...reads.map(({ read }) => read)]);
  const cpu = cpuMs() - cpu0;
  if (!main!.done || watched.some((read) => read.status !== 200 || !read.done)) throw new Error(`watchers: ${watched.filter((read) => read.done).length}/${watchers} read the turn to its end`);
  return { cpuMs: cpu, wallMs: sinceMs(wall), rssBytes: during.rss - before.rss, heapBytes: during.heapUsed - before.heapUsed, completed: watched.length };
}
await watchTurn(10);
const watch = { cpu0: [] as number[], cpu100: [] as number[], rss: [] as number[], heap: [] as number[], wall0: [] as number[], wall100: [] as number[] };
let watchersCompleted = 0;
for (let round = 0; round < WATCH_ROUNDS; round++) {
  const none = await watchTurn(0);
  const many = await watchTurn(WATCHERS);
  trimCalls();
  watchersCompleted += many.completed;
  watch.cpu0.push(none.cpuMs);
  watch.cpu100.push(many.cpuMs);
  watch.wall0.push(none.wallMs);
  watch.wall100.push(many.wallMs);
  watch.rss.push(many.rssBytes - none.rssBytes);
  watch.heap.push(many.heapBytes - none.heapBytes);
}
const watchers = {
  watchers: WATCHERS,
  rounds: WATCH_ROUNDS,
  turn: `user text "${WATCH}": 40 model calls, 20 ms before each, each a text and a tool call`,
  allReadToEnd: watchersCompleted === WATCHERS * WATCH_ROUNDS,
  turnCpuMsWithout: round4(median(watch.cpu0)),
  turnCpuMsWith100: round4(median(watch.cpu100)),
  cpuMsPerWatcher: round4((median(watch.cpu100) - median(watch.cpu0)) / WATCHERS),
  rssKiBPerWatcher: round4(median(watch.rss) / WATCHERS / 1024),
  heapKiBPerWatcher: round4(median(watch.heap) / WATCHERS / 1024),
  turnWallMsWithout: round4(median(watch.wall0)),
  turnWallMsWith100: round4(median(watch.wall100)),
  note: "CPU of the whole process (gateway and the 100 node:http watcher clients, which only split frames); memory after a GC with all watchers attached, minus the same turn without watchers",
};
console.log(`3. ${WATCHERS} watchers: ${watchers.cpuMsPerWatcher} ms CPU and ${watchers.rssKiBPerWatcher} KiB RSS (${watchers.heapKiBPerWatcher} KiB heap) per watcher; turn CPU ${watchers.turnCpuMsWithout} → ${watchers.turnCpuMsWith100} ms`);

// 4. The disconnect torture, ours and the anchor's.
/** Chunks in `expected` missing from `got`, and chunks of `got` beyond `expected` (multisets by `key`). */
function lostAndDuplicated(expected: Frame[], got: Frame[], key: (frame: Frame) => string) {
  const counts = new Map<string, number>();
  for (const frame of expected) counts.set(key(frame), (counts.get(key(frame)) ?? 0) + 1);
  let duplicated = 0;
  for (const frame of got) {
    const left = counts.get(key(frame)) ?? 0;
    if (left > 0) counts.set(key(frame), left - 1);
    else duplicated++;
  }
  return { lost: [...counts.values()].reduce((sum, n) => sum + n, 0), duplicated };
}
interface Torture {
  turns: number;
  disconnects: number;
  chunksExpected: number;
  chunksLost: number;
  chunksDuplicated: number;
  turnsDifferentFromUninterrupted: number;
  resumesAnswered204BeforeEnd: number;
  resumeToFirstChunk: ReturnType<typeof stats>;
}
/**
 * Turns until `DISCONNECTS` forced disconnects: `post` starts a turn
 * (its own stream, read whole, is the uninterrupted reference) and `resume(chatId, got)` reads
 * 1–4 chunks and drops the connection. `cursor` clients append after their position; replay
 * clients (no cursor) start over at each resumed `start`.
 */
async function torture(post: (chatId: string) => Promise<Read>, resumeUrl: (chatId: string, got: Frame[]) => string, replay: boolean, key: (frame: Frame) => string): Promise<Torture> {
  const next = random(45);
  const result = { turns: 0, disconnects: 0, chunksExpected: 0, chunksLost: 0, chunksDuplicated: 0, turnsDifferentFromUninterrupted: 0, resumesAnswered204BeforeEnd: 0 };
  const latencies: number[] = [];
  while (result.disconnects < DISCONNECTS) {
    result.turns++;
    const chatId = randomUUID();
    const reference = post(chatId);
    await sleep(5);
    let got: Frame[] = [];
    for (;;) {
      const read = await sse(resumeUrl(chatId, got), { stopAfter: 1 + Math.floor(next() * 4) });
      if (read.status === 204) {
        result.resumesAnswered204BeforeEnd++;
        break;
      }
      if (read.firstMs >= 0) latencies.push(read.firstMs);
      if (replay && read.frames[0] && JSON.parse(read.frames[0].data).type === "start") got = [];
      got.push(...read.frames);
      if (read.done) break;
      result.disconnects++;
    }
    const { frames: expected } = await reference;
    const { lost, duplicated } = lostAndDuplicated(expected, got, key);
    result.chunksExpected += expected.length;
    result.chunksLost += lost;
    result.chunksDuplicated += duplicated;
    if (JSON.stringify(got) !== JSON.stringify(expected)) result.turnsDifferentFromUninterrupted++;
  }
  return { ...result, resumeToFirstChunk: stats(latencies) };
}
trimCalls();
const ours = await torture(
  (chatId) => sse(api, { method: "POST", body: chatBody(chatId, PACED) }),
  (chatId, got) => `${api}/${chatId}/stream?after=${[...got].reverse().find((frame) => frame.id !== null)?.id ?? "0"}`,
  false,
  (frame) => `${frame.id} ${frame.data}`,
);
console.log(`4. ours: ${ours.disconnects} disconnects over ${ours.turns} turns: ${ours.chunksLost} lost, ${ours.chunksDuplicated} duplicated of ${ours.chunksExpected}; resume p50 ${ours.resumeToFirstChunk.p50Ms} ms`);
// The anchor streams the chunks of one of our paced turns, at that turn's pace.
const sample = await sse(api, { method: "POST", body: chatBody(randomUUID(), PACED) });
const anchor = await startAnchor({ chunks: sample.frames.map((frame) => JSON.parse(frame.data) as UIMessageChunk), paceMs: sample.totalMs / sample.frames.length });
let anchorResult: (Torture & { design: string; versions: object; note: string; withSkipCharacters: Torture & { design: string } }) | { notRun: string };
if (typeof anchor === "string") anchorResult = { notRun: anchor };
else {
  const anchorAgent = new Agent({ keepAlive: true, maxSockets: 8 });
  for (let i = 0; i < 5; i++) await sse(`${anchor.url}/chat`, { method: "POST", body: JSON.stringify({ id: randomUUID() }), agent: anchorAgent });
  const post = (chatId: string) => sse(`${anchor.url}/chat`, { method: "POST", body: JSON.stringify({ id: chatId }), agent: anchorAgent });
  const result = await torture(post, (chatId) => `${anchor.url}/chat/${chatId}/stream`, true, (frame) => frame.data);
  // The library's own cursor: characters already received (each frame is `data: <json>\n\n`).
  const skip = await torture(post, (chatId, got) => `${anchor.url}/chat/${chatId}/stream?skip=${got.reduce((sum, frame) => sum + frame.data.length + 8, 0)}`, false, (frame) => frame.data);
  anchorAgent.destroy();
  await anchor.close();
  anchorResult = {
    design: "AI SDK createUIMessageStream + pipeUIMessageStreamToResponse({ consumeSseStream }) → resumable-stream createNewResumableStream; GET → resumeExistingStream (replay from start), 204 when none or done",
    versions: anchor.versions,
    ...result,
    note: "a replay client restarts at `start` on every resume, so one that drops every 1–4 chunks never reaches the end; once the stream is done the GET answers 204 and the client is left without the message (all its chunks count as lost): the AI SDK docs' remedy is to reload the chat from the database",
    withSkipCharacters: { design: "the same server, GET passing resumable-stream's skipCharacters = characters the client already has (not something DefaultChatTransport sends)", ...skip },
  };
  console.log(`4. anchor + skipCharacters: ${skip.disconnects} disconnects over ${skip.turns} turns: ${skip.chunksLost} lost, ${skip.chunksDuplicated} duplicated of ${skip.chunksExpected}; ${skip.resumesAnswered204BeforeEnd} resumes answered 204 before the end; resume p50 ${skip.resumeToFirstChunk.p50Ms} ms`);
  console.log(`4. anchor: ${result.disconnects} disconnects over ${result.turns} turns: ${result.chunksLost} lost, ${result.chunksDuplicated} duplicated of ${result.chunksExpected}; ${result.resumesAnswered204BeforeEnd} resumes answered 204 before the client saw the end; resume p50 ${result.resumeToFirstChunk.p50Ms} ms`);
}

const leftRunning = gateway.activeRuns();
keepAlive.destroy();
await gateway.close();
await storage.close();
rmSync(directory, { recursive: true, force: true });

const result = {
  bench: "ui-chat",
  at: new Date().toISOString(),
  node: process.version,
  machine: "shared 2-core machine loaded by other sessions' builds and tests: figures are from a loaded machine; compare ratios within this run, not absolute times across runs",
  loadAverage: { before: loadBefore, after: loadavg().map((value) => Number(value.toFixed(2))) },
  storage: "SQLite (createSqliteStorage in a temp folder), one gateway on 127.0.0.1, node:http keep-alive clients",
  definitions: {
    timeToFirstChunk: "ms from the request's start to the first text-delta chunk (chat) / response.output_text.delta event (Responses); median per round of TURNS turns, then median of rounds",
    timeToFirstChunkSteady: `as timeToFirstChunk (new) and timeToFirstChunkContinued (continued), interleaved turn by turn in one loop, with a model that streams the same 480-character answer in 60 text deltas ${STEADY_MS} ms apart (the offline model's deltas with a sleep between them), so live text can arrive before the model's step ends; totalTurnNew: the new turns' whole streams`,
    timeToFirstChunkContinued: "as timeToFirstChunk, but each round is one chat (its host resident) and one Responses conversation (previous_response_id), TURNS turns each after a first turn that opens them and is not counted: the first chunk of a conversation's next turn, without the cost of creating a durable chat (its host record, session log and lease)",
    resumeToFirstChunk: "ms from the GET's start to the first SSE frame (nearEnd: ?after=<cursor of the third chunk from the end>, first frame is the second-to-last chunk; fromStart: ?after=0, first frame is `start`)",
    percentiles: "nearest-rank over every request of every round",
    history: "chunks of history = UI chunks the chat's turns streamed (its log events' chunks): 10 ≈ one turn `history 1 1` (one model call with a text and one failing tool call, then a text answer), 1,000 ≈ one turn `history 2 250` (two model calls of a text and 250 failing tool calls each), 10,000 ≈ ten such turns in one chat; the last turn is resumed; sizes interleaved request by request; exact counts in bySize",
    torture: `turns of user text "${PACED}" (30 model calls 1 ms apart, each a text and a failing tool call: ~240 chunks; the anchor streams the same chunks at the same average pace); the client reads 1–4 chunks (seeded), drops the connection and reconnects until the turn's end, ${DISCONNECTS} disconnects in all; lost/duplicated = multiset difference between what the client ends with and the turn's uninterrupted stream`,
  },
  rounds: ROUNDS,
  turnsPerRound: TURNS,
  timeToFirstChunk,
  timeToFirstChunkContinued,
  timeToFirstChunkSteady,
  totalTurn,
  resume: { goal: "flat across history sizes, ≤ 20 ms p50", meetsGoal: resumeMeetsGoal, resumesPerSizePerRound: RESUMES, bySize: resumeResult },
  watchers,
  torture: { ours: { design: "steamharness chat route, GET {id}/stream?after=<last cursor> (the durable log)", ...ours }, anchor: anchorResult },
  leftRunning,
};
if (!QUICK) {
  mkdirSync("bench/results", { recursive: true });
  writeFileSync("bench/results/ui-chat.json", `${JSON.stringify(result, null, 2)}\n`);
} else console.log(JSON.stringify(result, null, 2));
if (leftRunning !== 0 || !watchers.allReadToEnd || ours.chunksLost + ours.chunksDuplicated > 0) process.exitCode = 1;
