import { describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import { sessionAddressOf } from "../../src/app/agent/session-resolver.js";
import { chatConversationId } from "../../src/app/chats/chat-turns.js";
import { tenantStorage } from "../../src/app/tenants/tenant-storage.js";
import { buildTranscript } from "../../src/domain/agent/transcript.js";
import { staticTokenPrincipal } from "../../src/domain/principal.js";
import type { ModelProvider, ModelRequest } from "../../src/ports/model-provider.js";
import type { Storage } from "../../src/ports/storage.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { chatGateway, chunksOf, finalMessage, sleep, sqliteStorage, streamOf, textOfMessage, transportFor, userMessage, firstCallHeld } from "./helpers.js";

const userTexts = (request: ModelRequest): string[] =>
  request.messages.filter((message) => message.role === "user").map((message) => (typeof message.content === "string" ? message.content : message.content.map((block) => block.text).join("")));

/**
 * The chat's first call asks for a tool the agent does not have (its error result makes a step
 * boundary); every later call answers with the user messages it was sent. Calls wait for `gate`
 * (an abort ends the wait, as a suspended host aborts it) and are recorded in `seen`.
 */
function steeredModel(seen: string[][], gate: () => Promise<void> = async () => {}): ModelProvider {
  const offline = createOfflineModel({
    steps: (request) =>
      request.messages.some((message) => message.role === "assistant") ? { text: `answer to ${userTexts(request).join(" + ")}` } : { text: "looking ", toolCalls: [{ name: "no_such_tool", arguments: {} }] },
  });
  return {
    descriptor: offline.descriptor,
    async *stream(request, signal) {
      seen.push(userTexts(request));
      await Promise.race([gate(), new Promise((resolve) => signal?.addEventListener("abort", resolve, { once: true }))]);
      yield* offline.stream(request, signal);
    },
  };
}

/** The chat's session log as a transcript (what the viewer shows, UI-7). */
async function transcriptOf(storage: Storage, chatId: string) {
  const tenant = staticTokenPrincipal("gateway").tenant;
  const log = await tenantStorage(storage, tenant).sessions!.openUnleased({ address: sessionAddressOf({}, { projectId: "ui-chat-test", conversationId: chatConversationId(tenant, chatId) }), create: false });
  try {
    return buildTranscript(await log!.readAfter(0));
  } finally {
    await log!.close();
  }
}

const userEntries = (entries: Awaited<ReturnType<typeof transcriptOf>>): string[] => entries.flatMap((entry) => (entry.type === "message" && entry.role === "user" ? [entry.text] : []));
const send = (api: string, chatId: string, text: string, body?: object) =>
  transportFor(api).sendMessages({ chatId, messages: [userMessage(text, `m-${text.replace(/\W/g, "")}`)], trigger: "submit-message", messageId: undefined, abortSignal: undefined, ...(body ? { body } : {}) });

async function until(check: () => boolean): Promise<void> {
  while (!check()) await sleep(10);
}

describe("UI-5 steer: with `steer: true` a message reaches the running turn at its next step boundary", () => {
  it("UI-5 a steer posted mid-turn is in the model's next call, appears once in the turn's stream (a steering-message part) and once in the transcript, and never runs on its own", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const seen: string[][] = [];
    const { api, storage } = await chatGateway(steeredModel(seen, () => (seen.length === 1 ? gate : Promise.resolve())));
    const chatId = randomUUID();
    const first = chunksOf(await send(api, chatId, "first"));
    await until(() => seen.length === 1);
    const steer = (await send(api, chatId, "steer now", { steer: true })).getReader();
    expect((await steer.read()).value).toMatchObject({ type: "data-queued", transient: true });
    release();
    expect((await steer.read()).value).toMatchObject({ type: "start" });
    const steerRest: UIMessageChunk[] = [];
    for (let next = await steer.read(); !next.done; next = await steer.read()) steerRest.push(next.value);
    // The steer's own stream says where it went and ends: it has no answer of its own.
    expect(steerRest).toEqual([{ type: "data-steer", data: { delivered: true, runId: expect.any(String) }, transient: true }, { type: "finish", finishReason: "stop", messageMetadata: expect.objectContaining({ status: "steered" }) }]);
    const chunks = await first;
    expect(seen).toEqual([["first"], ["first", "steer now"]]);
    expect(chunks.filter((chunk) => chunk.type === "steering-message")).toEqual([{ type: "steering-message", id: "m-steernow", parts: [{ type: "text", text: "steer now" }] }]);
    const message = (await finalMessage(streamOf(chunks)))!;
    expect(message.parts.filter((part) => part.type === "steering-message")).toHaveLength(1);
    expect(textOfMessage(message)).toBe("looking answer to first + steer now");
    expect(userEntries(await transcriptOf(storage, chatId))).toEqual(["first", "steer now"]);
    // The next turn's history has it exactly once, and nothing ran in between.
    const third = await finalMessage(await send(api, chatId, "third"));
    expect(textOfMessage(third)).toBe("answer to first + steer now + third");
    expect(seen).toHaveLength(3);
  });

  it("UI-5 a steer the turn ends before taking (no step boundary left) runs as a follow-up; a steer on an idle chat is a normal turn", async () => {
    const { model, seen, release } = firstCallHeld();
    const { api } = await chatGateway(model);
    const chatId = randomUUID();
    const first = chunksOf(await send(api, chatId, "first"));
    await until(() => seen.length === 1);
    const steer = send(api, chatId, "late steer", { steer: true });
    const steered = await steer;
    release();
    expect(textOfMessage(await finalMessage(streamOf(await first)))).toBe("answer to first");
    expect((await first).some((chunk) => chunk.type === "steering-message")).toBe(false);
    expect(textOfMessage(await finalMessage(steered))).toBe("answer to first + late steer");
    expect(textOfMessage(await finalMessage(await send(api, chatId, "idle steer", { steer: true })))).toBe("answer to first + late steer + idle steer");
    expect(seen).toHaveLength(3);
  });

  it("UI-5 a steer is durable: posted to a gateway that is closed before the boundary, it reaches the same turn when a second gateway resumes it", async () => {
    const storage = await sqliteStorage();
    const stuck: string[][] = [];
    // The first gateway's model never answers: closing the gateway suspends the turn mid-call.
    const one = await chatGateway(steeredModel(stuck, () => new Promise(() => {})), { storage });
    const chatId = randomUUID();
    const first = await send(one.api, chatId, "first");
    await until(() => stuck.length === 1);
    const steer = (await send(one.api, chatId, "steer now", { steer: true })).getReader();
    // Accepted: its stream opens at once saying it waits (its `start` would follow the turn's next logged step).
    expect((await steer.read()).value).toMatchObject({ type: "data-queued", transient: true });
    await one.gateway.close();
    await first.cancel().catch(() => undefined);
    await steer.cancel().catch(() => undefined);
    const seen: string[][] = [];
    const two = await chatGateway(steeredModel(seen), { storage });
    // Any request of the chat reopens its host, which resumes the suspended turn first.
    const third = await send(two.api, chatId, "third");
    expect(textOfMessage(await finalMessage(third))).toBe("answer to first + steer now + third");
    expect(seen).toEqual([["first"], ["first", "steer now"], ["first", "steer now", "third"]]);
    expect(stuck).toEqual([["first"]]);
    expect(userEntries(await transcriptOf(storage, chatId))).toEqual(["first", "steer now", "third"]);
  });
});
