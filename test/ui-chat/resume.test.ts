import { describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import type { UIMessage } from "ai";
// A seeded generator (mulberry32), so a failing run can be repeated (the seed is in the failure's message).
import { random } from "../../bench/storage/corpus.js";
import { chatGateway, chunksOf, finalMessage, longTurnModel, readFrames, streamOf, TOKEN, transportFor, userMessage, type SseFrame } from "./helpers.js";

const auth = { authorization: `Bearer ${TOKEN}` };

describe("UI-2 a chat's stream is a read of the durable log: resumed, replayed, from a cursor", () => {
  it("UI-2 GET {id}/stream replays the active turn from its start with the same messageId and part ids, then continues live; 204 once no turn is active", async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const { api } = await chatGateway(longTurnModel(6, 1, () => gate));
    const transport = transportFor(api);
    const chatId = randomUUID();
    // The chat exists once the POST answered (its turn is recorded before the stream starts).
    const first = chunksOf(await transport.sendMessages({ chatId, messages: [userMessage("go")], trigger: "submit-message", messageId: undefined, abortSignal: undefined }));
    const next = random(45);
    // Reconnects that each read a few chunks and drop the connection, while the turn runs.
    for (let i = 0; i < 40; i++) {
      const stream = await transport.reconnectToStream({ chatId });
      expect(stream).not.toBeNull();
      const reader = stream!.getReader();
      const take = 1 + Math.floor(next() * 12);
      for (let n = 0; n < take; n++) if ((await reader.read()).done) break;
      await reader.cancel();
    }
    const reconnected = await transport.reconnectToStream({ chatId });
    if (reconnected === null) throw new Error(`no active turn: ${JSON.stringify(await first)}`);
    const resumed = chunksOf(reconnected);
    open();
    const [original, replay] = await Promise.all([first, resumed]);
    // resumeStreamIsReplay: the same chunks from `start`, so the client rebuilds the same message.
    expect(replay).toEqual(original);
    expect(original[0]).toMatchObject({ type: "start" });
    const message = (await finalMessage(streamOf(original)))!;
    expect(message.parts.filter((part) => part.type === "dynamic-tool")).toHaveLength(6);
    expect(await finalMessage(streamOf(replay))).toEqual(message);
    expect(await transport.reconnectToStream({ chatId })).toBeNull();
  });

  it("UI-2 `start` carries its cursor (`<seq>-start`): a client that drops the connection right after it resumes from it, by query or Last-Event-ID, and gets every other chunk once", async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const { api } = await chatGateway(longTurnModel(4, 1, () => gate));
    const chatId = randomUUID();
    const postAbort = new AbortController();
    const post = await fetch(api, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ id: chatId, messages: [userMessage("go")], trigger: "submit-message" }), signal: postAbort.signal });
    const { frames: received } = await readFrames(post, postAbort, 1);
    const start = received[0]!;
    expect(JSON.parse(start.data)).toMatchObject({ type: "start" });
    expect(start.id).toMatch(/^\d+-start$/);
    // Both resumes attach while the turn is held, so what follows `start` arrives live.
    const resume = async (url: string, headers: Record<string, string>) => {
      const abort = new AbortController();
      return readFrames(await fetch(url, { headers: { ...auth, ...headers }, signal: abort.signal }), abort);
    };
    const byQuery = resume(`${api}/${chatId}/stream?after=${start.id}`, {});
    const byHeader = resume(`${api}/${chatId}/stream`, { "last-event-id": start.id! });
    open();
    const [rest, restByHeader] = await Promise.all([byQuery, byHeader]);
    expect(rest.done).toBe(true);
    expect(restByHeader).toEqual(rest);
    // The uninterrupted stream of the same turn: its replay from `start`.
    const reference = await resume(`${api}/${chatId}/stream?after=0`, {});
    const resumed = [start, ...rest.frames];
    expect(resumed).toEqual(reference.frames);
    expect(resumed.filter((frame) => JSON.parse(frame.data).type === "start")).toHaveLength(1);
    expect(new Set(resumed.map((frame) => frame.id)).size).toBe(resumed.length);
    // The AI SDK's client builds the same message from the resumed chunks as from the uninterrupted ones.
    const message = (await finalMessage(streamOf(resumed.map((frame) => JSON.parse(frame.data)))))!;
    expect(message).toEqual(await finalMessage(streamOf(reference.frames.map((frame) => JSON.parse(frame.data)))));
    expect(message.id).toBe(JSON.parse(start.data).messageId);
    expect(message.parts.filter((part) => part.type === "dynamic-tool")).toHaveLength(4);
  });

  it("UI-2 forced disconnects at random chunk boundaries, resumed from the cursor: 0 chunks lost, 0 duplicated, every turn equal to its uninterrupted stream", async () => {
    const { api } = await chatGateway(longTurnModel(30, 1), { rateLimit: false });
    const chatId = randomUUID();
    const seed = Date.now() % 100_000;
    const next = random(seed);
    // 1,000 (the figure) with UI_CHAT_DISCONNECTS=1000; fewer by default so the suite stays quick on a loaded machine.
    const target = Number(process.env.UI_CHAT_DISCONNECTS ?? 200);
    let disconnects = 0;
    let turns = 0;
    const started = Date.now();
    while (disconnects < target && turns < 40) {
      turns++;
      const postAbort = new AbortController();
      const post = await fetch(api, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ id: chatId, messages: [userMessage(`turn ${turns}`)], trigger: "submit-message" }), signal: postAbort.signal });
      const reference = readFrames(post, postAbort);
      let got: SseFrame[] = [];
      let cursor: string | null = null;
      for (;;) {
        const abort = new AbortController();
        // A client that has no position yet asks from 0: the turn from its `start` (served even if it has ended meanwhile).
        const response = await fetch(`${api}/${encodeURIComponent(chatId)}/stream?after=${cursor ?? "0"}`, { headers: auth, signal: abort.signal });
        expect({ seed, status: response.status }).toEqual({ seed, status: 200 });
        // From 0 the stream is a replay from `start`: what was read before is replaced.
        if (cursor === null) got = [];
        const { frames, done } = await readFrames(response, abort, 1 + Math.floor(next() * 4));
        got.push(...frames);
        cursor = [...got].reverse().find((frame) => frame.id !== null)?.id ?? null;
        if (done) break;
        disconnects++;
      }
      const { frames: expected, done } = await reference;
      expect(done).toBe(true);
      expect({ seed, turn: turns, frames: got }).toEqual({ seed, turn: turns, frames: expected });
      expect(new Set(got.map((frame) => frame.id)).size).toBe(got.length);
    }
    expect(disconnects).toBeGreaterThanOrEqual(Math.min(target, 1));
    // The figure the report quotes: how many forced disconnects, in how many turns, in how long.
    process.stderr.write(`UI-2 torture: ${disconnects} disconnects over ${turns} turns in ${Date.now() - started} ms (seed ${seed})\n`);
  }, 120_000);

  it("UI-2 a cursor serves the chat's last turn even once it ended; a cursor older than a turn starts it with `start`", async () => {
    const { api } = await chatGateway([{ text: "first answer" }, { text: "second answer" }]);
    const chatId = randomUUID();
    const turn = async (text: string) => {
      const abort = new AbortController();
      const response = await fetch(api, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ id: chatId, messages: [userMessage(text)] }), signal: abort.signal });
      return (await readFrames(response, abort)).frames;
    };
    const one = await turn("one");
    expect((await fetch(`${api}/${chatId}/stream`, { headers: auth })).status).toBe(204);
    const middle = one[3]!.id!;
    const abort = new AbortController();
    const rest = await readFrames(await fetch(`${api}/${chatId}/stream?after=${middle}`, { headers: auth, signal: abort.signal }), abort);
    expect(rest.frames).toEqual(one.slice(4));
    const two = await turn("two");
    const lastOfOne = one.at(-1)!.id!;
    const abort2 = new AbortController();
    const caughtUp = await readFrames(await fetch(`${api}/${chatId}/stream`, { headers: { ...auth, "last-event-id": lastOfOne }, signal: abort2.signal }), abort2);
    // UI-1: `two` got its first step live, in the model's deltas; the log holds the step's text whole (same ids, same text).
    expect(mergedDeltas(caughtUp.frames)).toEqual(mergedDeltas(two));
    expect(JSON.parse(two[0]!.data)).toMatchObject({ type: "start" });
    const message = (await finalMessage(streamOf(two.map((frame) => JSON.parse(frame.data))))) as UIMessage;
    expect(message.parts.some((part) => part.type === "text" && part.text === "second answer")).toBe(true);
  });
});

/** Frames with consecutive text deltas of one part joined (the last one's id): how the text was cut is not part of the stream's content. */
function mergedDeltas(frames: readonly SseFrame[]): SseFrame[] {
  const merged: SseFrame[] = [];
  for (const frame of frames) {
    const chunk = JSON.parse(frame.data) as { type: string; id?: string; delta?: string };
    const last = merged.at(-1);
    const before = last && (JSON.parse(last.data) as { type: string; id?: string; delta?: string });
    if (chunk.type === "text-delta" && before?.type === "text-delta" && before.id === chunk.id) merged[merged.length - 1] = { id: frame.id, data: JSON.stringify({ ...before, delta: `${before.delta}${chunk.delta}` }) };
    else merged.push(frame);
  }
  return merged;
}
