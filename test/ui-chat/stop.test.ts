import { describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { chatGateway, finalMessage, longTurnModel, readFrames, sleep, streamOf, TOKEN, transportFor, userMessage } from "./helpers.js";
import type { ModelProvider } from "../../src/ports/model-provider.js";

const auth = { authorization: `Bearer ${TOKEN}` };

/** Counts the model calls of `model`. */
function counted(model: ModelProvider): { model: ModelProvider; calls: () => number } {
  let calls = 0;
  return {
    model: { descriptor: model.descriptor, stream: (request, signal) => (calls++, model.stream(request, signal)) },
    calls: () => calls,
  };
}

describe("UI-3 a dropped connection is not a stop; POST {id}/stop is", () => {
  it("UI-3 a client that disconnects mid-turn leaves the run running: the turn completes and a later read has all of it", async () => {
    const { api } = await chatGateway(longTurnModel(8, 20), { rateLimit: false });
    const chatId = randomUUID();
    const abort = new AbortController();
    const post = await fetch(api, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ id: chatId, messages: [userMessage("go")] }), signal: abort.signal });
    const { frames, done } = await readFrames(post, abort, 3);
    expect(done).toBe(false);
    // useChat's stop() only aborts the fetch: the same as this disconnect.
    let status = 200;
    while (status === 200) {
      const response = await fetch(`${api}/${chatId}/stream`, { headers: auth });
      status = response.status;
      await response.body?.cancel();
      if (status === 200) await sleep(50);
    }
    expect(status).toBe(204);
    const again = new AbortController();
    const all = await readFrames(await fetch(`${api}/${chatId}/stream?after=0`, { headers: auth, signal: again.signal }), again);
    // A cursor before the turn's first event reads it from its `start`: what the client saw first, then the rest.
    expect(all.frames.slice(0, 3)).toEqual(frames);
    const message = (await finalMessage(streamOf(all.frames.map((frame) => JSON.parse(frame.data)))))!;
    expect(message.metadata).toMatchObject({ status: "completed" });
    expect(message.parts.some((part) => part.type === "text" && part.text === "done after 8 steps")).toBe(true);
  });

  it("UI-3 stop cancels the run, keeps the partial answer, and a later read shows the message stopped (the run is not picked up again)", async () => {
    const { model, calls } = counted(longTurnModel(40, 20));
    const { api } = await chatGateway(model, { rateLimit: false });
    const chatId = randomUUID();
    const abort = new AbortController();
    const post = await fetch(api, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ id: chatId, messages: [userMessage("go")] }), signal: abort.signal });
    const reading = readFrames(post, abort);
    while (calls() < 3) await sleep(10);
    const stopped = await fetch(`${api}/${chatId}/stop`, { method: "POST", headers: auth });
    expect(stopped.status).toBe(200);
    expect(await stopped.json()).toEqual({ stopped: true });
    const { frames, done } = await reading;
    expect(done).toBe(true);
    const chunks = frames.map((frame) => JSON.parse(frame.data) as { type: string });
    expect(chunks.at(-1)).toEqual({ type: "abort", reason: "stopped" });
    const message = (await finalMessage(streamOf(chunks as never)))!;
    expect(message.metadata).toMatchObject({ status: "stopped" });
    expect(message.parts.filter((part) => part.type === "dynamic-tool").length).toBeGreaterThanOrEqual(1);
    const after = calls();
    await sleep(300);
    expect(calls()).toBe(after);
    expect(calls()).toBeLessThan(40);
    // No active stream any more; the chat's last turn, read from its start, is the same stopped message.
    expect((await fetch(`${api}/${chatId}/stream`, { headers: auth })).status).toBe(204);
    const again = new AbortController();
    const replay = await readFrames(await fetch(`${api}/${chatId}/stream?after=0`, { headers: auth, signal: again.signal }), again);
    expect(replay.frames).toEqual(frames);
    // Stopping a chat with nothing running stops nothing; another chat id is unknown.
    expect(await (await fetch(`${api}/${chatId}/stop`, { method: "POST", headers: auth })).json()).toEqual({ stopped: false });
    expect((await fetch(`${api}/${randomUUID()}/stop`, { method: "POST", headers: auth })).status).toBe(404);
    // The chat goes on: the next message is answered.
    const next = await finalMessage(await transportFor(api).sendMessages({ chatId, messages: [userMessage("again")], trigger: "submit-message", messageId: undefined, abortSignal: undefined }));
    expect(next?.metadata).toMatchObject({ status: "completed" });
  });
});
