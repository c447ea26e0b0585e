/**
 * The anchor of ui-chat.bench.ts: the AI SDK's documented resumable-stream design — the chat POST
 * answers with `createUIMessageStream` through `pipeUIMessageStreamToResponse`, whose
 * `consumeSseStream` hands a copy of the SSE text to `resumable-stream`'s
 * `createNewResumableStream` (Redis keeps it, pub/sub relays it); `GET /chat/{id}/stream` answers
 * `resumeExistingStream(activeStreamId)`, or 204 when there is none or it is done (`?skip=<n>`
 * passes resumable-stream's skipCharacters).
 *
 * Neither `resumable-stream` nor a Redis client is a dependency of steamharness, and node_modules
 * is not to grow for a benchmark: they are installed in a folder of their own
 * (`mkdir /work/anchor-rs && cd /work/anchor-rs && npm init -y && npm install resumable-stream redis`,
 * or ANCHOR_MODULES=<that folder>/node_modules) and imported by absolute path; Redis is Debian's
 * `redis-server` (`apt-get install -y redis-server`), started here on a loopback port without
 * persistence. {@link startAnchor} resolves to the reason when any of them is missing.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createUIMessageStream, pipeUIMessageStreamToResponse, UI_MESSAGE_STREAM_HEADERS, type UIMessageChunk } from "ai";

export const ANCHOR_MODULES = process.env.ANCHOR_MODULES ?? "/work/anchor-rs/node_modules";
const REDIS_PORT = 6391;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface ResumableContext {
  createNewResumableStream(id: string, make: () => ReadableStream<string>): Promise<ReadableStream<string> | null>;
  resumeExistingStream(id: string, skipCharacters?: number): Promise<ReadableStream<string> | null | undefined>;
}
interface RedisClient {
  connect(): Promise<unknown>;
  quit(): Promise<unknown>;
}

export interface Anchor {
  /** Base URL: `POST {url}/chat` with `{ id, text }`, `GET {url}/chat/{id}/stream`. */
  url: string;
  versions: { resumableStream: string; redisClient: string; redisServer: string };
  close(): Promise<void>;
}

/**
 * Starts Redis and the anchor's chat server on 127.0.0.1. A POST's turn writes `chunks` (those of
 * the steamharness turn it is compared with), one every `paceMs`.
 *
 * @example
 * const anchor = await startAnchor({ chunks: [{ type: "start" }, { type: "finish" }], paceMs: 1 });
 * if (typeof anchor === "string") console.log(`anchor not run: ${anchor}`);
 */
export async function startAnchor({ chunks, paceMs }: { chunks: UIMessageChunk[]; paceMs: number }): Promise<Anchor | string> {
  const resumablePath = join(ANCHOR_MODULES, "resumable-stream", "dist", "index.js");
  const redisPath = join(ANCHOR_MODULES, "redis", "dist", "index.js");
  if (!existsSync(resumablePath) || !existsSync(redisPath)) return `resumable-stream or redis (npm) not found under ${ANCHOR_MODULES}`;
  if (!existsSync("/usr/bin/redis-server")) return "redis-server (Debian package) not installed";
  const redisServer: ChildProcess = spawn("/usr/bin/redis-server", ["--port", String(REDIS_PORT), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: ["ignore", "pipe", "inherit"] });
  let banner = "";
  await new Promise<void>((resolve, reject) => {
    redisServer.stdout!.on("data", (part: Buffer) => {
      banner += part.toString();
      if (banner.includes("Ready to accept connections")) resolve();
    });
    redisServer.once("exit", (code) => reject(new Error(`redis-server exited (${code}): ${banner.slice(-300)}`)));
  });
  redisServer.stdout!.resume();
  const { createResumableStreamContext } = (await import(pathToFileURL(resumablePath).href)) as { createResumableStreamContext(options: object): ResumableContext };
  const { createClient } = (await import(pathToFileURL(redisPath).href)) as { createClient(options: object): RedisClient };
  const publisher = createClient({ url: `redis://127.0.0.1:${REDIS_PORT}` });
  const subscriber = createClient({ url: `redis://127.0.0.1:${REDIS_PORT}` });
  await Promise.all([publisher.connect(), subscriber.connect()]);
  const context = createResumableStreamContext({ waitUntil: null, publisher, subscriber });
  // The docs keep the chat's activeStreamId in the chat's database row; a Map stands in for it.
  const active = new Map<string, string>();
  let streams = 0;

  const server: Server = createServer((req, res) => {
    // `?skip=<characters>`: resumable-stream's own cursor (skipCharacters), which the AI SDK's
    // transport does not send; the docs' route is the plain GET.
    const match = /^\/chat\/([^/?]+)\/stream(?:\?skip=(\d+))?$/.exec(req.url ?? "");
    if (req.method === "GET" && match) {
      void (async () => {
        const streamId = active.get(decodeURIComponent(match[1]!));
        const stream = streamId === undefined ? null : await context.resumeExistingStream(streamId, match[2] === undefined ? undefined : Number(match[2]));
        if (!stream) return void res.writeHead(204).end();
        res.writeHead(200, UI_MESSAGE_STREAM_HEADERS);
        const reader = stream.getReader();
        res.on("close", () => void reader.cancel().catch(() => {}));
        for (;;) {
          const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
          if (done) return void res.end();
          res.write(value);
        }
      })();
      return;
    }
    if (req.method !== "POST" || req.url !== "/chat") return void res.writeHead(404).end();
    let body = "";
    req.on("data", (part: Buffer) => void (body += part.toString()));
    req.on("end", () => {
      const { id } = JSON.parse(body) as { id: string };
      const streamId = `s${++streams}`;
      active.set(id, streamId);
      const stream = createUIMessageStream({
        execute: async ({ writer }) => {
          for (const chunk of chunks) {
            await sleep(paceMs);
            writer.write(chunk);
          }
        },
      });
      void pipeUIMessageStreamToResponse({ response: res, stream, consumeSseStream: ({ stream: sse }) => void context.createNewResumableStream(streamId, () => sse) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  const version = (name: string) => (JSON.parse(readFileSync(join(ANCHOR_MODULES, name, "package.json"), "utf8")) as { version: string }).version;
  return {
    url: `http://127.0.0.1:${address.port}`,
    versions: { resumableStream: version("resumable-stream"), redisClient: version("redis"), redisServer: /v=(\S+)/.exec(banner)?.[1] ?? /Redis version=(\S+)/.exec(banner)?.[1] ?? "unknown" },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await Promise.all([publisher.quit(), subscriber.quit()]).catch(() => {});
      redisServer.kill();
      await new Promise((resolve) => (redisServer.exitCode !== null ? resolve(null) : redisServer.once("exit", resolve)));
    },
  };
}
