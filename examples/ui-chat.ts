/**
 * The AI SDK UI chat route (docs/ui-chat.md) on a plain `node:http` server: a chat turn streamed
 * in the UI message stream protocol, a connection dropped mid-turn and resumed from the cursor
 * (`Last-Event-ID`) with nothing lost, and a stop button's request. A browser's `useChat` talks to
 * the same three URLs. Offline: the scripted model of `steamharness/testing`.
 *
 *   node --import tsx examples/ui-chat.ts
 */
import { createServer } from "node:http";
import { Readable } from "node:stream";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createUiChatHandlers } from "steamharness/gateway";
import { createSqliteStorage } from "steamharness/sqlite";
import { createOfflineModel } from "steamharness/testing";

const dir = mkdtempSync(join(tmpdir(), "steamharness-ui-chat-"));
const storage = createSqliteStorage({ directory: dir });
// A slow, scripted model: five steps, each a sentence and a tool call, then an answer.
const model = createOfflineModel({ steps: Array.from({ length: 6 }, (_, step) => (step < 5 ? { text: `Step ${step + 1}. `, toolCalls: [{ name: "lookup", arguments: { step } }] } : { text: "All done." })) });
const slow = { descriptor: model.descriptor, async *stream(...args: Parameters<typeof model.stream>) { await new Promise((resolve) => setTimeout(resolve, 50)); yield* model.stream(...args); } };

// A node:http setup: the handlers, and a server that hands them Web requests and pipes their answers back.
const chat = createUiChatHandlers({ agent: { models: slow, workdir: dir }, projectId: "ui-chat-example", storage });
const server = createServer(async (req, res) => {
  const body = req.method === "POST" ? await new Response(Readable.toWeb(req) as ReadableStream).text() : undefined;
  const route = /\/stream(\?|$)/.test(req.url!) ? chat.GET : req.url!.endsWith("/stop") ? chat.stop : chat.POST;
  const response = await route(new Request(`http://localhost${req.url}`, { method: req.method!, headers: req.headers as Record<string, string>, body }));
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  if (response.body) Readable.fromWeb(response.body as never).pipe(res);
  else res.end();
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const api = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/chat`;

/** Reads SSE frames (`id` = the cursor, `data` = one chunk) until `[DONE]` or `limit` frames. */
async function read(response: Response, limit = Infinity): Promise<Array<{ id: string | null; chunk: { type: string; delta?: string } }>> {
  const frames: Array<{ id: string | null; chunk: { type: string; delta?: string } }> = [];
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const bytes of Readable.fromWeb(response.body! as never) as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(bytes, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = /^data: (.*)$/m.exec(frame)![1]!;
      if (data === "[DONE]") return frames;
      frames.push({ id: /^id: (.*)$/m.exec(frame)?.[1] ?? null, chunk: JSON.parse(data) });
      if (frames.length >= limit) return frames;
    }
  }
  return frames;
}
const text = (frames: Awaited<ReturnType<typeof read>>) => frames.map(({ chunk }) => (chunk.type === "text-delta" ? chunk.delta : "")).join("");

try {
  // 1. Send a message (the body DefaultChatTransport posts) and read a few chunks, then drop the connection.
  const abort = new AbortController();
  const posted = await fetch(api, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: "chat-1", messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "Do the five steps." }] }], trigger: "submit-message" }), signal: abort.signal });
  const first = await read(posted, 6);
  abort.abort();
  console.log(`read ${first.length} chunks, then the connection dropped: "${text(first)}"`);

  // 2. The turn went on. Resume after the last chunk received: the rest, nothing twice.
  const cursor = first.filter((frame) => frame.id !== null).at(-1)!.id!;
  const rest = await read(await fetch(`${api}/chat-1/stream`, { headers: { "last-event-id": cursor } }));
  console.log(`resumed after ${cursor}: ${rest.length} more chunks, the whole answer: "${text([...first, ...rest])}"`);
  if (text([...first, ...rest]) !== "Step 1. Step 2. Step 3. Step 4. Step 5. All done.") throw new Error("the resumed answer is not the whole answer");

  // 3. A stop button POSTs {api}/{id}/stop (useChat's own stop() only aborts the fetch, which is a disconnect).
  const stopped = await (await fetch(`${api}/chat-1/stop`, { method: "POST" })).json();
  console.log(`stop with nothing running: ${JSON.stringify(stopped)}`);
} finally {
  await chat.close();
  server.close();
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
}
