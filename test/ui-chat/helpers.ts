import { randomUUID } from "node:crypto";
import { afterEach } from "@jest/globals";
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
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

/** A SQLite storage (sessions included) in a temp folder, closed after the test. */
export async function sqliteStorage(directory = tempDirRemovedAfterAll("ui-chat-")): Promise<Storage> {
  const storage = createSqliteStorage({ directory });
  open.push(storage);
  return storage;
}

/** A gateway on 127.0.0.1 serving an offline-model agent on `storage` (default a fresh SQLite one), closed after the test. */
export async function chatGateway(model: ModelProvider | OfflineStep[] | ((request: ModelRequest) => OfflineStep), options: Partial<ResponsesGatewayOptions> = {}) {
  const models = typeof (model as ModelProvider).stream === "function" ? (model as ModelProvider) : createOfflineModel({ steps: model as OfflineStep[] });
  const storage = options.storage ?? (await sqliteStorage());
  const gateway = await startGateway({ agent: { models, retryDelayMs: 0, workdir: tempDirRemovedAfterAll("ui-chat-work-") }, projectId: "ui-chat-test", token: TOKEN, storage, ...options });
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
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

/** The text of a UI message's text parts. */
export const textOfMessage = (message: UIMessage | undefined): string => (message?.parts ?? []).map((part) => (part.type === "text" ? part.text : "")).join("");
