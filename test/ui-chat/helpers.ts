import { randomUUID } from "node:crypto";
import { afterEach } from "@jest/globals";
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import type { AgentNodeOptions } from "../../src/app/agent-node/create-agent-node.js";
import type { ResponsesGatewayOptions } from "../../src/adapters/driving/gateway/gateway.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { startGateway } from "../../src/compose/gateway.js";
import type { ModelProvider, ModelRequest } from "../../src/ports/model-provider.js";
import type { Storage } from "../../src/ports/storage.js";
import { createOfflineModel, type OfflineStep } from "../../src/testing/offline-model.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";

export const TOKEN = "test-token-0123456789abcdef";

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const closable of open.splice(0).reverse()) await closable.close();
});

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * An offline model for long turns: each call answers `step <n>` and calls a tool the agent does
 * not have, until the turn made `steps` calls; then `done <user text>`. Each call first waits
 * `delayMs`, and the last one also for `gate` (default open).
 */
export function longTurnModel(steps: number, delayMs: number, gate: () => Promise<void> = async () => {}): ModelProvider {
  const offline = createOfflineModel({
    steps: (request) => {
      const lastUser = request.messages.map((message) => message.role).lastIndexOf("user");
      const made = request.messages.slice(lastUser).filter((message) => message.role === "assistant").length;
      return made >= steps ? { text: `done after ${made} steps`, usage: { input: 3, output: 2 } } : { text: `step ${made} `, toolCalls: [{ name: "no_such_tool", arguments: { made } }], usage: { input: 2, output: 1 } };
    },
  });
  return {
    descriptor: offline.descriptor,
    async *stream(request, signal) {
      await sleep(delayMs);
      const lastUser = request.messages.map((message) => message.role).lastIndexOf("user");
      if (request.messages.slice(lastUser).filter((message) => message.role === "assistant").length >= steps) await gate();
      yield* offline.stream(request, signal);
    },
  };
}

/** A SQLite storage (sessions included) in a temp folder, closed after the test. */
export async function sqliteStorage(directory = tempDirRemovedAfterAll("ui-chat-")): Promise<Storage> {
  const storage = createSqliteStorage({ directory });
  open.push(storage);
  return storage;
}

/** A gateway on 127.0.0.1 serving an offline-model agent on `storage` (default a fresh SQLite one), closed after the test. */
export async function chatGateway(model: ModelProvider | OfflineStep[] | ((request: ModelRequest) => OfflineStep), { agentOptions, ...options }: Partial<ResponsesGatewayOptions> & { agentOptions?: AgentNodeOptions } = {}) {
  const models = typeof (model as ModelProvider).stream === "function" ? (model as ModelProvider) : createOfflineModel({ steps: model as OfflineStep[] });
  const storage = options.storage ?? (await sqliteStorage());
  const gateway = await startGateway({ agent: { models, retryDelayMs: 0, workdir: tempDirRemovedAfterAll("ui-chat-work-"), ...agentOptions }, projectId: "ui-chat-test", token: TOKEN, storage, ...options });
  open.push(gateway);
  return { gateway, storage, api: `${gateway.url}/ui/chat` };
}

/** The AI SDK's own transport for the chat route. */
export const transportFor = (api: string, token = TOKEN) => new DefaultChatTransport<UIMessage>({ api, headers: { authorization: `Bearer ${token}` } });

/** A user message as `useChat` builds it. */
export const userMessage = (text: string, id: string = randomUUID()): UIMessage => ({ id, role: "user", parts: [{ type: "text", text }] });

/** The last message `readUIMessageStream` built from a stream (what `useChat` shows). */
export async function finalMessage(stream: ReadableStream<UIMessageChunk>): Promise<UIMessage | undefined> {
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({ stream })) last = message;
  return last;
}

/** Every chunk of a stream. */
export async function chunksOf(stream: ReadableStream<UIMessageChunk>): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(value);
  }
}

/** A stream of the given chunks. */
export const streamOf = (chunks: readonly UIMessageChunk[]): ReadableStream<UIMessageChunk> =>
  new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });

/** One SSE frame of the chat route: its `id` (the cursor; `<seq>-start` on `start`, none on transient notes) and its data. */
export interface SseFrame {
  id: string | null;
  data: string;
}

/**
 * Reads SSE frames of a response until `stopAfter` frames arrived (then aborts the connection:
 * a forced disconnect) or the stream ends (`done`: `[DONE]` seen).
 */
export async function readFrames(response: Response, abort: AbortController, stopAfter = Number.POSITIVE_INFINITY): Promise<{ frames: SseFrame[]; done: boolean }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const frames: SseFrame[] = [];
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
    if (done) return { frames, done: false };
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const raw = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const id = /^id: (.*)$/m.exec(raw)?.[1] ?? null;
      const data = /^data: (.*)$/m.exec(raw)![1]!;
      if (data === "[DONE]") {
        abort.abort();
        return { frames, done: true };
      }
      frames.push({ id, data });
      if (frames.length >= stopAfter) {
        abort.abort();
        return { frames, done: false };
      }
    }
  }
}

/** The text of a UI message's text parts. */
export const textOfMessage = (message: UIMessage | undefined): string => (message?.parts ?? []).map((part) => (part.type === "text" ? part.text : "")).join("");

/** The user messages' texts of a model request, in order. */
export const userTexts = (request: ModelRequest): string[] =>
  request.messages.filter((message) => message.role === "user").map((message) => (typeof message.content === "string" ? message.content : message.content.map((block) => block.text).join("")));

/**
 * An offline model that answers `answer to <user texts>` and holds its first call until
 * `release()`: a turn that stays busy while a test posts more messages. `seen` records each
 * call's user texts.
 */
export function firstCallHeld(): { model: ModelProvider; seen: string[][]; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const offline = createOfflineModel({ steps: (request) => ({ text: `answer to ${userTexts(request).join(" + ")}` }) });
  const seen: string[][] = [];
  const model: ModelProvider = {
    descriptor: offline.descriptor,
    async *stream(request, signal) {
      seen.push(userTexts(request));
      if (seen.length === 1) await gate;
      yield* offline.stream(request, signal);
    },
  };
  return { model, seen, release };
}
