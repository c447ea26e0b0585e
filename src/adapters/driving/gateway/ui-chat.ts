/**
 * The AI SDK UI chat route (issue 45; docs/ui-chat.md): Web-standard `Request → Response`
 * handlers for `useChat`'s `DefaultChatTransport` — `POST` a turn, `GET` its stream again
 * (`{api}/{id}/stream`, the transport's reconnect URL), `stop` it (`{api}/{id}/stop`). Usable as
 * they are in a Next.js route file, Hono or `node:http`; `steamharness gateway` mounts them at
 * `/v1/ui/chat`. Every stream is read from the chat's durable session log (app/chats), so a
 * dropped connection loses nothing and any host on the same session backend resumes it.
 */
import { randomUUID } from "node:crypto";
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { createAgentNode, type AgentNode, type AgentNodeOptions } from "../../../app/agent-node/create-agent-node.js";
import { createChatTurns, SHARED_CHAT_TENANT, type ChatPrincipal, type ChatStreamEntry, type ChatTurns } from "../../../app/chats/chat-turns.js";
import type { ApprovalGovernance } from "../../../app/approvals/answer-approval.js";
import { isSteamharnessError, SteamharnessError } from "../../../domain/errors.js";
import type { ToolCatalogEntry } from "../../../domain/node-context.js";
import { describeSchemaError } from "../../../domain/schema-errors.js";
import { compiledCheck } from "../../../domain/workflow/argument-validation.js";
import type { HarnessRuntime } from "../../../ports/runtime.js";
import type { Storage } from "../../../ports/storage.js";
import { createUiChunkFold, type UiMessageChunk } from "./ui-chat-chunks.js";
import { chatTextHash, type ChatLivePiece } from "../../../app/chats/chat-feed.js";

/** The headers of a UI message stream response (the AI SDK's `UI_MESSAGE_STREAM_HEADERS`). */
export const UI_CHAT_STREAM_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no",
};

const Id = Type.String({ minLength: 1, maxLength: 128, pattern: "^[A-Za-z0-9_.:-]+$" });
const Part = Type.Object({ type: Type.String({ minLength: 1 }), text: Type.Optional(Type.String()) });
const UiMessage = Type.Object({ id: Id, role: Type.Union([Type.Literal("user"), Type.Literal("assistant"), Type.Literal("system")]), parts: Type.Array(Part, { maxItems: 10_000 }) });

/** The body `DefaultChatTransport` posts (`id`, `messages`, `trigger`, `messageId`), plus the transport's `body` fields, which are let through. */
export const UiChatRequestSchema = Type.Object({
  id: Id,
  messages: Type.Array(UiMessage, { minItems: 1, maxItems: 10_000 }),
  trigger: Type.Optional(Type.Union([Type.Literal("submit-message"), Type.Literal("regenerate-message")])),
  messageId: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
  /** UI-5 (a transport `body` field): deliver the message to the chat's running turn at its next step boundary instead of queuing it as a follow-up. */
  steer: Type.Optional(Type.Boolean()),
});
export type UiChatRequestBody = Static<typeof UiChatRequestSchema>;

/** FORK-1: the body of `POST {api}/{id}/fork` — the message to fork at (a user message's id, or an assistant message's), and the new chat's id (default a random one). */
export const UiChatForkSchema = Type.Object({ messageId: Type.String({ minLength: 1, maxLength: 200 }), newId: Type.Optional(Id) });

/** Options of {@link createUiChatHandlers}. */
export interface UiChatOptions {
  /** The agent of the chats (its turns run on resident session hosts, one per chat). */
  agent: AgentNodeOptions;
  /** The project id of the chats' runs. */
  projectId: string;
  /** Where chats live: `storage.sessions` keeps them (durable: SQLite or PostgreSQL, shared by every host on it), the other stores serve the tools. */
  storage: Storage;
  /** The host's tool catalog. */
  toolCatalog?: ToolCatalogEntry[];
  /**
   * The tenant of a request (its principal's `tenant`), or `null` to refuse it (401). Chats
   * belong to their tenant; another tenant's chat id is unknown to it (404). Default: one shared
   * tenant — authenticate before calling the handlers.
   */
  tenantOf?: (request: Request) => string | null | Promise<string | null>;
  /** GOV-1: who a request comes from (tenant key and subject): the requester of its turn's approvals and the approver of its answers. */
  principalOf?: (request: Request) => ChatPrincipal | undefined;
  /** Issue 47: the governed adapter the chats' tool approvals go through; an answer a client gives is recorded by its `decide()` (403 when refused, 409 expired or decided). */
  approvals?: ApprovalGovernance;
  /** Largest request body in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** How often a stream reads the log when this process does not run the turn (default 25 ms). */
  pollMs?: number;
  /** How many chats keep a resident session host in this process (default 64): past it idle ones close, and a new chat while all are busy gets 429. */
  maxResidentHosts?: number;
}

/** The chat route's handlers. */
export interface UiChatHandlers {
  /** `POST {api}`: starts (or finds) the turn of the last user message and streams it. */
  POST(request: Request): Promise<Response>;
  /**
   * `GET {api}/{id}/stream`: the chat's active turn replayed from the log from its `start`, then
   * live (204 none; 404 not the tenant's chat). `?after=<seq>-<index>` or `Last-Event-ID`: only
   * the chunks after that position, of the active turn or else the chat's last one.
   */
  GET(request: Request): Promise<Response>;
  /** `POST {api}/{id}/stop`: cancels the chat's active turn, keeping what it said. */
  stop(request: Request): Promise<Response>;
  /**
   * `POST {api}/{id}/fork` `{ messageId, newId? }` (FORK-1, FORK-2): a new chat of the caller's
   * tenant whose history is this chat's up to the message (a user message: before its turn; an
   * assistant message: through its turn). Answers `{ id, atSeq, hazards }`: the chat's tool calls
   * after the point — a repeat of an unsafe one in the new chat needs a fresh approval. 404 for a
   * chat or message the tenant does not have, 409 for a taken `newId` or a turn still running.
   */
  fork(request: Request): Promise<Response>;
  /** Releases the chats' hosts of this process (running turns continue on the next host that opens them). */
  close(): Promise<void>;
}

/** An HTTP error of the chat route, sent as `{ error: { message, type, param, code } }` (the gateway's shape). */
class UiChatError extends Error {
  constructor(readonly status: number, message: string, readonly code: string, readonly param: string | null = null) {
    super(message);
  }
}

const withNode = (node: AgentNode | undefined) => (node ? { node } : {});
const json = (status: number, body: unknown): Response => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const errorResponse = (error: unknown): Response => {
  if (error instanceof UiChatError) return json(error.status, { error: { message: error.message, type: error.status === 401 ? "authentication_error" : "invalid_request_error", param: error.param, code: error.code } });
  if (isSteamharnessError(error, "not_found")) return json(404, { error: { message: error.message, type: "invalid_request_error", param: "id", code: "not_found" } });
  if (isSteamharnessError(error, "conflict")) return json(409, { error: { message: error.message, type: "invalid_request_error", param: error.field ?? null, code: "conflict" } });
  if (isSteamharnessError(error, "rate_limited")) return json(429, { error: { message: error.message, type: "rate_limit_error", param: null, code: "rate_limited" } });
  // Issue 47: the governed decide() refused the answerer (GOV-4), or the request expired or was decided.
  if (isSteamharnessError(error, "forbidden")) return json(403, { error: { message: error.message, type: "invalid_request_error", param: "approval", code: "forbidden" } });
  if (isSteamharnessError(error, "approval_expired") || isSteamharnessError(error, "conflict")) return json(409, { error: { message: error.message, type: "invalid_request_error", param: "approval", code: error.code } });
  if (isSteamharnessError(error, "input_validation")) return json(400, { error: { message: error.message, type: "invalid_request_error", param: error.field ?? null, code: "invalid_value" } });
  return json(500, { error: { message: "[steamharness] [chat] internal error", type: "server_error", param: null, code: "internal" } });
};

/** Bodies a mounting surface already read and parsed (under its own limits), by request: read once, not serialised again. */
const parsedBodies = new WeakMap<Request, unknown>();

/**
 * Hands the handlers a request body its mounting surface has already read and parsed as JSON
 * (within its own size limit): the handler checks it against its schema without reading and
 * parsing the body again (UI-1: what precedes a turn's model request is kept short). Internal to
 * the gateway's mount; a Web-standard caller just sends the body.
 *
 * @example
 * const web = withParsedBody(new Request(url, { method: "POST", headers }), await readJsonBody(request, maxBodyBytes));
 */
export function withParsedBody(request: Request, body: unknown): Request {
  parsedBodies.set(request, body);
  return request;
}

async function readBody<S extends typeof UiChatRequestSchema | typeof UiChatForkSchema = typeof UiChatRequestSchema>(request: Request, limit: number, schema: S = UiChatRequestSchema as S): Promise<Static<S>> {
  let body: unknown = parsedBodies.get(request);
  if (body === undefined) {
    const declared = Number(request.headers.get("content-length") ?? "0");
    if (declared > limit) throw new UiChatError(413, `The request body is larger than ${limit} bytes.`, "body_too_large");
    const text = await request.text();
    if (Buffer.byteLength(text) > limit) throw new UiChatError(413, `The request body is larger than ${limit} bytes.`, "body_too_large");
    try {
      body = JSON.parse(text);
    } catch {
      throw new UiChatError(400, "The request body is not valid JSON.", "invalid_json");
    }
  }
  const check = compiledCheck(schema);
  if (!check.Check(body)) {
    const first = check.Errors(body).First()!;
    throw new UiChatError(400, describeSchemaError(first), "invalid_value", first.path.replace(/^\//, "").replace(/\//g, ".") || null);
  }
  return body as Static<S>;
}

/** The approval answered in a tool part (`state: "approval-responded"`, `approval: { id, approved, reason? }`), if any. */
function approvalOf(part: { type: string; [field: string]: unknown }): Array<{ id: string; approved: boolean; reason?: string }> {
  const approval = part.approval as { id?: unknown; approved?: unknown; reason?: unknown } | undefined;
  if (part.state !== "approval-responded" || typeof approval?.id !== "string" || typeof approval.approved !== "boolean") return [];
  return [{ id: approval.id, approved: approval.approved, ...(typeof approval.reason === "string" ? { reason: approval.reason } : {}) }];
}

/** The client's answer to an `ask_user` question (`addToolOutput`: the tool part in state `output-available`), if any. */
function replyOf(part: { type: string; [field: string]: unknown }): Array<{ toolCallId: string; answer: string }> {
  const named = part.type === "dynamic-tool" ? part.toolName : part.type.slice("tool-".length);
  if (named !== "ask_user" || part.state !== "output-available" || typeof part.toolCallId !== "string") return [];
  return [{ toolCallId: part.toolCallId, answer: typeof part.output === "string" ? part.output : JSON.stringify(part.output) }];
}

/** The chat id before `/<suffix>` at the end of the URL's path. */
function chatIdOf(request: Request, suffix: "stream" | "stop" | "fork"): string {
  const found = new RegExp(`/([^/]+)/${suffix}/?$`).exec(new URL(request.url).pathname)?.[1];
  let id: string | undefined;
  try {
    id = found === undefined ? undefined : decodeURIComponent(found);
  } catch {
    id = undefined;
  }
  if (id === undefined || !Value.Check(Id, id)) throw new UiChatError(400, `The URL names no valid chat id (…/{id}/${suffix}).`, "invalid_value", "id");
  return id;
}

/**
 * A position in a turn's stream: the chunk `index` of the chunks of the log event `seq` (the SSE
 * `id`, `<seq>-<index>`); index -1 (`<seq>-start`) is the turn's `start`, just before the chunks of
 * its first event `seq`. `live` (UI-1, `<seq>~s` or `<seq>~<block>.<offset>.<hash>`): inside the
 * model step logged after the run's event `seq`, sent live before it was committed — after its
 * `start-step`, or through `offset` characters of its block `block` (`hash`: their FNV-1a).
 */
interface StreamCursor {
  seq: number;
  index: number;
  live?: { block: number; offset: number; hash: string } | "step";
}

/** What of the model step after the run's event `prevSeq` a reader has already sent (live, or before its cursor). */
interface StepMask {
  prevSeq: number;
  step: boolean;
  /** Blocks below this one were sent whole (their ends excepted). */
  below: number;
  /** How much of each block's text was sent. */
  sent: Map<number, number>;
  /** A cursor's fingerprint of its block's text, checked against what is read. */
  verify?: { block: number; offset: number; hash: string };
}

const START = -1;
const idOf = (position: StreamCursor): string => `${position.seq}-${position.index === START ? "start" : position.index}`;
const isAfter = (position: StreamCursor, cursor: StreamCursor | null): boolean => cursor === null || position.seq > cursor.seq || (position.seq === cursor.seq && position.index > cursor.index);
/** The SSE id of a live chunk: through `offset` characters of the first step's block `block`, whose text so far has FNV-1a `hash`. */
const liveId = (block: number | string, offset: number, hash: string): string => `0~${block}.${offset}.${hash}`;
const EMPTY_HASH = chatTextHash("");

/**
 * The SSE id of a chunk read from the log at `position`: its position, except the chunks the first
 * model step (part ids `0.<block>`) also streams live — its `start-step` and the starts and texts
 * of its blocks — which carry the live cursor (`0~s`, `0~<block>.<length>.<hash>` of the whole
 * text), so a read gives them the same ids whether they went out live or from the log.
 */
function labelOf(chunk: UiMessageChunk, position: StreamCursor, first: boolean): string {
  const block = typeof chunk.id === "string" ? /^0\.(\d+)$/.exec(chunk.id)?.[1] : undefined;
  if (chunk.type === "start-step" && first) return "0~s";
  if (block === undefined || !/^(text|reasoning)-(start|delta)$/.test(chunk.type)) return idOf(position);
  if (chunk.type.endsWith("-start")) return liveId(block, 0, EMPTY_HASH);
  const text = String(chunk.delta);
  return liveId(block, text.length, chatTextHash(text));
}

/**
 * The mask's view of one chunk of the step it covers: the chunk, what is left of it, `null` when
 * it was sent, or `"replay"` when the text read is not the text the cursor saw (another attempt).
 */
function maskChunk(mask: StepMask, chunk: UiMessageChunk): UiMessageChunk | null | "replay" {
  if (chunk.type === "start-step") return mask.step ? null : chunk;
  const found = typeof chunk.id === "string" ? /^(\d+)\.(\d+)$/.exec(chunk.id) : null;
  if (!found || Number(found[1]) !== mask.prevSeq || !/^(text|reasoning)-(start|delta)$/.test(chunk.type)) return chunk;
  const block = Number(found[2]);
  const offset = mask.sent.get(block);
  if (chunk.type.endsWith("-start")) return block < mask.below || offset !== undefined ? null : chunk;
  if (block < mask.below) return null;
  if (offset === undefined) return chunk;
  const delta = String(chunk.delta);
  if (mask.verify?.block === block && (delta.length < offset || chatTextHash(delta.slice(0, offset)) !== mask.verify.hash)) return "replay";
  return delta.length > offset ? { ...chunk, delta: delta.slice(offset) } : null;
}

/**
 * An SSE response of one turn's chunks read from the log: `id: <seq>-<index>` tags each chunk
 * with its position (the cursor; `start` is `<seq>-start`, before the chunks of the turn's first
 * event `seq`), `data: [DONE]` ends it. With `after`, only the chunks after that position are sent
 * (`start` too when the turn began after it). `start` waits for the turn's first event, which
 * names its position; a queued turn says so at once. A `restart` (a continuation after `after`)
 * opens with its `start` at once. Cancelling the body (the client went away) or `closing` ends the
 * read, never the turn.
 *
 * UI-1: when this process runs the turn, a model step's text goes out as the model streams it
 * (`id: <seq>~<block>.<offset>.<hash>`), and the step's logged event then sends only the rest. A
 * live cursor whose step the log holds with other text (the process died mid-step and the step
 * was run again) is answered with a replay from `start`, which the client rebuilds the message from.
 */
function streamResponse(chats: ChatTurns, tenant: string, chatId: string, turn: { taskId: string; runId: string; status?: string; created?: boolean }, cursor: StreamCursor | null, reading: Set<AbortController>, restart = false): Response {
  let fold = createUiChunkFold(turn.runId);
  const controller = new AbortController();
  reading.add(controller);
  const encoder = new TextEncoder();
  let entries: AsyncGenerator<ChatStreamEntry, void, undefined>;
  let after = cursor;
  let mask: StepMask | null = null;
  if (cursor?.live === "step") mask = { prevSeq: cursor.seq, step: true, below: 0, sent: new Map() };
  else if (cursor?.live) mask = { prevSeq: cursor.seq, step: true, below: cursor.live.block, sent: new Map([[cursor.live.block, cursor.live.offset]]), verify: { ...cursor.live } };
  let seq = 0;
  let index = 0;
  // A live cursor's reader has the message's `start` already.
  let started = cursor?.live !== undefined;
  let opened = false;
  let closed = false;
  // Whether this reader has read the turn's first model step from the log (then nothing more is live).
  let logged = false;
  let out: ReadableStreamDefaultController<Uint8Array> | null = null;
  let replay = false;
  const frame = (chunk: UiMessageChunk, id: string | null) => encoder.encode(`${id === null ? "" : `id: ${id}\n`}data: ${JSON.stringify(chunk)}\n\n`);
  let sentLive = false;
  let joined: { type: string; id: string; delta: string; cursor: string } | null = null;
  /** Sends the live deltas joined since the last tick (before anything else goes out, to keep the order). */
  const flush = (): void => {
    if (joined === null) return;
    const { cursor, ...chunk } = joined;
    joined = null;
    if (!closed) out?.enqueue(frame(chunk, cursor));
  };
  /** Sends a live piece of the turn's first step (nothing precedes it but the message's `start`). */
  const live = (piece: ChatLivePiece): void => {
    // A reader resuming after a position of the log has the first step from the log.
    if (closed || replay || logged || out === null || (after !== null && after.live === undefined)) return;
    mask ??= { prevSeq: 0, step: false, below: 0, sent: new Map() };
    if (piece.block < mask.below) return;
    if (mask.verify?.block === piece.block) {
      if (piece.offset > 0) return;
      if (piece.delta.length < mask.verify.offset || chatTextHash(piece.delta.slice(0, mask.verify.offset)) !== mask.verify.hash) {
        replay = true;
        return;
      }
      delete mask.verify;
    }
    if (!started) {
      started = true;
      // The position of the run's first event, which the step's commit appends first (unknown: no cursor, a client that has only it resumes from `start`).
      out.enqueue(frame(fold.start(), piece.startSeq === null ? null : idOf({ seq: piece.startSeq, index: START })));
    }
    const id = `0.${piece.block}`;
    if (!mask.step) {
      mask.step = true;
      flush();
      out.enqueue(frame({ type: "start-step" }, "0~s"));
    }
    let sent = mask.sent.get(piece.block);
    if (sent === undefined) {
      sent = 0;
      flush();
      out.enqueue(frame({ type: `${piece.type}-start`, id }, liveId(piece.block, 0, EMPTY_HASH)));
    }
    const end = piece.offset + piece.delta.length;
    if (end <= sent) return;
    mask.sent.set(piece.block, end);
    const delta = piece.delta.slice(sent - piece.offset);
    const cursor = liveId(piece.block, end, piece.hash);
    // The first delta goes out now; later ones of the same block are joined per tick (one frame, the last cursor), as Responses does.
    if (joined?.id === id) {
      joined.delta += delta;
      joined.cursor = cursor;
      return;
    }
    flush();
    if (!sentLive) {
      sentLive = true;
      out.enqueue(frame({ type: `${piece.type}-delta`, id, delta }, cursor));
      return;
    }
    joined = { type: `${piece.type}-delta`, id, delta, cursor };
    setImmediate(flush);
  };
  let unsubscribe: (() => void) | null = null;
  const done = async (stream: ReadableStreamDefaultController<Uint8Array>) => {
    flush();
    closed = true;
    unsubscribe?.();
    reading.delete(controller);
    await entries.return(undefined);
    stream.enqueue(encoder.encode("data: [DONE]\n\n"));
    stream.close();
  };
  const body = new ReadableStream<Uint8Array>({
    start(stream) {
      out = stream;
      unsubscribe = chats.live(tenant, chatId, turn.runId, live);
    },
    async pull(stream) {
      if (!opened) {
        opened = true;
        if (restart && after !== null) {
          started = true;
          // The continuation's chunks are those after `after`: its `start` stands just before them.
          stream.enqueue(frame(fold.start(), idOf({ seq: after.seq + 1, index: START })));
        }
        // UI-5: a turn waiting behind another says so at once (transient: the message keeps no part of it, and no cursor names it).
        if ((after === null || restart) && turn.status === "queued") stream.enqueue(frame({ type: "data-queued", data: { taskId: turn.taskId }, transient: true }, null));
        if (started || turn.status === "queued") return;
      }
      for (;;) {
        if (replay) {
          // The cursor's step is not in the log as the client saw it: the turn again from its `start`.
          replay = false;
          await entries.return(undefined);
          entries = chats.stream(tenant, chatId, turn.taskId, controller.signal);
          fold = createUiChunkFold(turn.runId);
          [after, mask, seq, index, started, logged, joined] = [null, null, 0, 0, false, false, null];
        }
        const next = await entries.next().catch((error: unknown) => ({ done: false as const, value: { kind: "end" as const, status: "failed" as const, error: { code: "internal", message: isSteamharnessError(error) ? error.message : "[steamharness] [chat] the stream failed" } } }));
        if (next.done) return done(stream);
        const entry = next.value;
        if (entry.kind === "event" && entry.event.seq !== seq) {
          seq = entry.event.seq;
          index = 0;
        }
        let sent = 0;
        if (!started) {
          started = true;
          // The message starts before the turn's first event; a turn that ended before logging any has no position to name.
          const position = entry.kind === "event" ? { seq, index: START } : null;
          if (position === null ? after === null : isAfter(position, after)) {
            stream.enqueue(frame(fold.start(), position && idOf(position)));
            sent++;
          }
        }
        // The step a reader sent (part of) before it was logged: only the rest of it goes out.
        const step = entry.kind === "event" && (entry.event.type === "assistant_message" || entry.event.type === "model_retry");
        const masked = entry.kind === "event" && mask !== null && seq > mask.prevSeq ? mask : null;
        // A live cursor's step is the first one after its position: anything else first means the step was lost with its process.
        if (masked?.verify && !step && entry.kind === "event" && entry.event.type !== "run_started" && entry.event.type !== "user_message") replay = true;
        for (const chunk of replay ? [] : fold.push(entry)) {
          const position = { seq, index: index++ };
          if (!isAfter(position, after)) continue;
          const left = masked ? maskChunk(masked, chunk) : chunk;
          if (left === "replay") {
            replay = true;
            break;
          }
          if (left === null) continue;
          flush();
          stream.enqueue(frame(left, labelOf(chunk, position, step && !logged)));
          sent++;
        }
        if (replay) continue;
        if (step) {
          logged = true;
          if (masked) mask = null;
        }
        if (entry.kind === "end") return done(stream);
        if (sent > 0) return;
      }
    },
    async cancel() {
      closed = true;
      unsubscribe?.();
      reading.delete(controller);
      controller.abort();
      await entries.return(undefined);
    },
  });
  // UI-1: a turn this request just started on its host here, followed live (`start` subscribed above): its log is first read
  // after its first text went out.
  entries = chats.stream(tenant, chatId, turn.taskId, controller.signal, turn.created === true && unsubscribe !== null);
  return new Response(body, { status: 200, headers: UI_CHAT_STREAM_HEADERS });
}

/**
 * The position after which a resumed read starts: `?after=<seq>-<index>` (`<seq>-start`: after
 * the turn's `start`; `<seq>`: after all of that event; `<seq>~…`: inside a step sent live), else
 * the SSE `Last-Event-ID` header; `null` for a replay from `start`.
 */
function cursorOf(request: Request): StreamCursor | null {
  const raw = new URL(request.url).searchParams.get("after") ?? request.headers.get("last-event-id");
  if (raw === null) return null;
  const found = /^(\d{1,15})(?:-(\d{1,9}|start)|~(?:(s)|(\d{1,9})\.(\d{1,12})\.([0-9a-f]{8})))?$/.exec(raw);
  if (!found) throw new UiChatError(400, "The cursor (after / Last-Event-ID) must be the `id` of the last chunk received (`<seq>-<index>`, `<seq>-start` or `<seq>~…`).", "invalid_value", "after");
  const seq = Number(found[1]);
  if (found[3]) return { seq, index: Number.MAX_SAFE_INTEGER, live: "step" };
  if (found[4] !== undefined) return { seq, index: Number.MAX_SAFE_INTEGER, live: { block: Number(found[4]), offset: Number(found[5]), hash: found[6]! } };
  return { seq, index: found[2] === undefined ? Number.MAX_SAFE_INTEGER : found[2] === "start" ? START : Number(found[2]) };
}

/**
 * Creates the chat route's handlers over an agent and a storage (call `close()` when done).
 *
 * @example
 * const chat = createUiChatHandlers({ agent: { models }, projectId: "assistant", storage });
 * // app/api/chat/route.ts: export const POST = chat.POST;
 * // app/api/chat/[id]/stream/route.ts: export const GET = chat.GET;
 */
export function createUiChatHandlers(options: UiChatOptions, runtime: HarnessRuntime, nodeOf?: (request: Request, chat: AgentNodeOptions) => AgentNode | undefined): UiChatHandlers {
  if (!options.storage.sessions) throw new SteamharnessError("input_validation", "[steamharness] [chat] the storage keeps no sessions (storage.sessions): chats live there", { field: "storage" });
  const chatOptions: AgentNodeOptions = { ...options.agent, session: { ...options.agent.session, resume: true } };
  const node = createAgentNode(chatOptions);
  const chats = createChatTurns({ node, projectId: options.projectId, storage: options.storage, runtime, ...(options.toolCatalog ? { toolCatalog: options.toolCatalog } : {}), ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }), ...(options.maxResidentHosts === undefined ? {} : { maxResidentHosts: options.maxResidentHosts }), ...(options.approvals ? { approvals: options.approvals } : {}) });
  // BUD-4: the node of a request's turns (its principal's budget), as the mounting surface knows it.
  const nodeFor = (request: Request): AgentNode | undefined => nodeOf?.(request, chatOptions);
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  // Closing ends every read of this process's streams (their turns go on, recorded in the log).
  const reading = new Set<AbortController>();
  const tenantOf = async (request: Request): Promise<string> => {
    const tenant = options.tenantOf ? await options.tenantOf(request) : SHARED_CHAT_TENANT;
    if (tenant === null) throw new UiChatError(401, "The request carries no valid credential.", "invalid_api_key");
    return tenant;
  };
  const handled = (work: (request: Request) => Promise<Response>) => (request: Request) => work(request).catch(errorResponse);

  return {
    POST: handled(async (request) => {
      const tenant = await tenantOf(request);
      const body = await readBody(request, maxBodyBytes);
      // UI-4: addToolApprovalResponse posts the assistant message with its tool parts answered.
      const last = body.messages.at(-1)!;
      const answers = last.role === "assistant" ? last.parts.flatMap((part) => [...approvalOf(part), ...replyOf(part)]) : [];
      if (answers.length > 0) {
        let continued: { taskId: string; runId: string; afterSeq: number } | null = null;
        for (const answer of answers) {
          try {
            continued = "toolCallId" in answer ? await chats.reply(tenant, body.id, answer.toolCallId, answer.answer, nodeFor(request)) : await chats.answer(tenant, body.id, answer.id, answer, nodeFor(request), options.principalOf?.(request));
          } catch (error) {
            // An answer to a request that no longer waits (answered already, or another chat's) is not this chat's.
            if (isSteamharnessError(error, "not_found") && continued === null) continue;
            throw error;
          }
        }
        if (continued === null) throw new UiChatError(400, "No turn of this chat waits for the approvals or answers the message carries.", "invalid_value", "messages");
        // The continuation goes on in the same assistant message: its `start`, then what follows the pause.
        return streamResponse(chats, tenant, body.id, continued, { seq: continued.afterSeq, index: Number.MAX_SAFE_INTEGER }, reading, true);
      }
      const position = body.messages.map((message) => message.role).lastIndexOf("user");
      if (position < 0) throw new UiChatError(400, "The messages need a user message.", "invalid_value", "messages");
      const message = body.messages[position]!;
      const text = message.parts.map((part) => (part.type === "text" ? (part.text ?? "") : "")).join("");
      if (text.trim() === "") throw new UiChatError(400, "The last user message has no text.", "invalid_value", `messages.${position}.parts`);
      const principal = options.principalOf?.(request);
      const turn = await chats.submit({ tenant, chatId: body.id, messageId: message.id, text, regenerate: body.trigger === "regenerate-message", ...(body.steer ? { steer: true } : {}), ...withNode(nodeFor(request)), ...(principal ? { principal } : {}) });
      return streamResponse(chats, tenant, body.id, turn, null, reading);
    }),
    GET: handled(async (request) => {
      const tenant = await tenantOf(request);
      const chatId = chatIdOf(request, "stream");
      const after = cursorOf(request);
      // With a cursor the chat's last turn is served even once it ended: a client that kept state catches up on what it missed.
      const task = await chats.active(tenant, chatId, after !== null, nodeFor(request));
      if (task === undefined) throw new UiChatError(404, `No chat '${chatId}'.`, "not_found", "id");
      if (task === null) return new Response(null, { status: 204 });
      return streamResponse(chats, tenant, chatId, task, after, reading);
    }),
    stop: handled(async (request) => {
      const tenant = await tenantOf(request);
      const chatId = chatIdOf(request, "stop");
      if (!(await chats.exists(tenant, chatId))) throw new UiChatError(404, `No chat '${chatId}'.`, "not_found", "id");
      return json(200, { stopped: await chats.stop(tenant, chatId, nodeFor(request)) });
    }),
    fork: handled(async (request) => {
      const tenant = await tenantOf(request);
      const chatId = chatIdOf(request, "fork");
      const body = await readBody(request, maxBodyBytes, UiChatForkSchema);
      const id = body.newId ?? randomUUID();
      const { atSeq, hazards } = await chats.fork(tenant, chatId, body.messageId, id);
      return json(200, { id, atSeq, hazards: hazards.map(({ result: _result, ...hazard }) => hazard) });
    }),
    close: async () => {
      for (const controller of reading) controller.abort();
      reading.clear();
      await chats.close();
    },
  };
}
