/**
 * UI-1, UI-2 (issue 45 item 1): the first model step of a turn streams live to the connection
 * that submitted it — before the step is committed to the log — with cursors a resume continues
 * from (`<seq>~<block>.<offset>.<hash>`) without loss or duplication, live or from the log.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "@jest/globals";
import type { UIMessageChunk } from "ai";
import type { ModelProvider } from "../../src/ports/model-provider.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { chatGateway, finalMessage, readFrames, streamOf, TOKEN, textOfMessage, userMessage, type SseFrame } from "./helpers.js";

const ANSWER = "The first half streams now; the second half waits for the gate to open.";

/** An offline model that streams `ANSWER` in 8-character deltas and holds after the first `held` deltas until `release()`. */
function gatedModel(held: number) {
  const offline = createOfflineModel({ steps: () => ({ text: ANSWER }), chunkSize: 8 });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const state = { finished: false };
  const model: ModelProvider = {
    descriptor: offline.descriptor,
    async *stream(request, signal) {
      let deltas = 0;
      for await (const event of offline.stream(request, signal)) {
        if (event.type === "text_delta" && deltas++ === held) await gate;
        yield event;
      }
      state.finished = true;
    },
  };
  return { model, release, state };
}

const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
const post = (api: string, chatId: string, signal: AbortSignal) =>
  fetch(api, { method: "POST", headers: auth, body: JSON.stringify({ id: chatId, messages: [userMessage("Tell me")], trigger: "submit-message" }), signal });
const chunks = (frames: readonly SseFrame[]) => frames.map((frame) => JSON.parse(frame.data) as UIMessageChunk);
/** The frames of a response one at a time (`null` at `[DONE]`). */
function frameReader(response: Response) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  return {
    async next(): Promise<SseFrame | null> {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end >= 0) {
          const raw = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^data: (.*)$/m.exec(raw)![1]!;
          return data === "[DONE]" ? null : { id: /^id: (.*)$/m.exec(raw)?.[1] ?? null, data };
        }
        const { done, value } = await reader.read();
        if (done) return null;
        buffer += decoder.decode(value, { stream: true });
      }
    },
  };
}
const text = (frames: readonly SseFrame[]) => chunks(frames).map((chunk) => (chunk.type === "text-delta" ? chunk.delta : "")).join("");

describe("the first model step streams live (UI-1, UI-2)", () => {
  it("UI-1 the submitting connection and a watcher in the same process get the text while the model is still streaming, and the message ends equal to the log's", async () => {
    const { model, release, state } = gatedModel(2);
    const { api } = await chatGateway(model);
    const chatId = randomUUID();
    const abort = new AbortController();
    const frames = frameReader(await post(api, chatId, abort.signal));
    const sent: SseFrame[] = [];
    while (text(sent).length < 16) sent.push((await frames.next())!);
    expect(state.finished).toBe(false);
    expect(chunks(sent).map((chunk) => chunk.type)).toEqual(["start", "start-step", "text-start", "text-delta", "text-delta"]);
    expect(sent.at(-1)!.id).toMatch(/^0~0\.16\.[0-9a-f]{8}$/);
    // A watcher attaching now gets the step's text so far at once, live.
    const side = new AbortController();
    const early = await readFrames(await fetch(`${api}/${chatId}/stream`, { headers: auth, signal: side.signal }), side, 4);
    expect(state.finished).toBe(false);
    expect(chunks(early.frames).map((chunk) => chunk.type)).toEqual(["start", "start-step", "text-start", "text-delta"]);
    expect(text(early.frames)).toBe(ANSWER.slice(0, 16));
    release();
    for (let frame = await frames.next(); frame; frame = await frames.next()) sent.push(frame);
    expect(text(sent)).toBe(ANSWER);
    // The message the AI SDK client builds equals the one a replay from the log gives.
    const live = await finalMessage(streamOf(chunks(sent)));
    const replayAbort = new AbortController();
    const replay = await readFrames(await fetch(`${api}/${chatId}/stream?after=0`, { headers: auth, signal: replayAbort.signal }), replayAbort);
    expect(textOfMessage(live)).toBe(ANSWER);
    expect(live).toEqual(await finalMessage(streamOf(chunks(replay.frames))));
  });

  it("UI-1 UI-2 the next turn of a chat streams live from its start, whose cursor names the turn's first logged event (the log head the chat's host here last read or appended)", async () => {
    const offline = createOfflineModel({ steps: () => ({ text: ANSWER }), chunkSize: 8 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    // The second turn's model holds after its first delta until `release()`: what the client has by then went out live.
    const model: ModelProvider = {
      descriptor: offline.descriptor,
      async *stream(request, signal) {
        const held = ++calls === 2;
        let deltas = 0;
        for await (const event of offline.stream(request, signal)) {
          if (held && event.type === "text_delta" && deltas++ === 1) await gate;
          yield event;
        }
      },
    };
    const { api } = await chatGateway(model);
    const chatId = randomUUID();
    for (let turn = 0; turn < 2; turn++) {
      const abort = new AbortController();
      const frames = frameReader(await post(api, chatId, abort.signal));
      const sent: SseFrame[] = [];
      if (turn === 1) {
        while (text(sent).length < 8) sent.push((await frames.next())!);
        expect(chunks(sent).map((chunk) => chunk.type)).toEqual(["start", "start-step", "text-start", "text-delta"]);
        release();
      }
      for (let frame = await frames.next(); frame; frame = await frames.next()) sent.push(frame);
      expect(text(sent)).toBe(ANSWER);
      const replayAbort = new AbortController();
      const replay = await readFrames(await fetch(`${api}/${chatId}/stream?after=0`, { headers: auth, signal: replayAbort.signal }), replayAbort);
      expect(sent[0]!.id).toMatch(/^\d+-start$/);
      expect(sent[0]!.id).toBe(replay.frames[0]!.id);
    }
    expect(calls).toBe(2);
  });

  it("UI-1 the first text-delta goes out before the model finishes (the model holds until the client has it)", async () => {
    const { model, release, state } = gatedModel(1);
    const { api } = await chatGateway(model);
    const abort = new AbortController();
    const response = await post(api, randomUUID(), abort.signal);
    const body = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    while (!buffer.includes('"type":"text-delta"')) {
      const { done, value } = await body.read();
      if (done) throw new Error("the stream ended before a text-delta");
      buffer += decoder.decode(value, { stream: true });
    }
    expect(state.finished).toBe(false);
    expect(buffer).toContain(`"delta":"${ANSWER.slice(0, 8)}"`);
    release();
    while (!(await body.read()).done);
  });

  it("UI-2 a resume at a live cursor inside the item continues it without loss or duplication: live while it streams, sliced from the log once committed", async () => {
    const { model, release } = gatedModel(3);
    const { api } = await chatGateway(model);
    const chatId = randomUUID();
    const abort = new AbortController();
    // start, start-step, text-start and two delta frames (the first delta, then the next ones of its tick joined), then the connection drops mid-item.
    const first = await readFrames(await post(api, chatId, abort.signal), abort, 5);
    const cursor = first.frames.at(-1)!.id!;
    const offset = Number(/^0~0\.(\d+)\.[0-9a-f]{8}$/.exec(cursor)?.[1]);
    expect(offset).toBeGreaterThanOrEqual(16);
    expect(offset).toBeLessThanOrEqual(24);
    expect(text(first.frames)).toBe(ANSWER.slice(0, offset));
    // Resumed while the step still streams in this process: the rest of the item, live.
    const liveAbort = new AbortController();
    const resumed = readFrames(await fetch(`${api}/${chatId}/stream?after=${cursor}`, { headers: auth, signal: liveAbort.signal }), liveAbort);
    release();
    const { frames, done } = await resumed;
    expect(done).toBe(true);
    expect(chunks(frames).filter((chunk) => chunk.type === "start" || chunk.type === "start-step" || chunk.type === "text-start")).toEqual([]);
    expect(text(first.frames) + text(frames)).toBe(ANSWER);
    // Resumed at the same cursor once the step is in the log: the same rest, sliced from the committed item.
    const logAbort = new AbortController();
    const fromLog = await readFrames(await fetch(`${api}/${chatId}/stream?after=${cursor}`, { headers: auth, signal: logAbort.signal }), logAbort);
    expect(text(fromLog.frames)).toBe(ANSWER.slice(offset));
    expect(chunks(fromLog.frames).map((chunk) => chunk.type)).toEqual(chunks(frames).map((chunk) => chunk.type).filter((type) => type !== "text-delta").flatMap((type) => (type === "text-end" ? ["text-delta", "text-end"] : [type])));
    // The client's message from the first connection plus the resumed one equals the uninterrupted one.
    const whole = await finalMessage(streamOf([...chunks(first.frames), ...chunks(fromLog.frames)]));
    expect(textOfMessage(whole)).toBe(ANSWER);
  });

  it("UI-2 a live cursor whose text the log does not hold (the step ran again after its process died) is answered with a replay from start", async () => {
    const { model, release } = gatedModel(100);
    release();
    const { api } = await chatGateway(model);
    const chatId = randomUUID();
    const abort = new AbortController();
    await readFrames(await post(api, chatId, abort.signal), abort);
    // The fingerprint of 16 characters the client saw, which are not what the log holds.
    const stale = `0~0.16.00000000`;
    const resumeAbort = new AbortController();
    const { frames, done } = await readFrames(await fetch(`${api}/${chatId}/stream?after=${stale}`, { headers: auth, signal: resumeAbort.signal }), resumeAbort);
    expect(done).toBe(true);
    expect(chunks(frames)[0]!.type).toBe("start");
    expect(textOfMessage(await finalMessage(streamOf(chunks(frames))))).toBe(ANSWER);
  });
});
