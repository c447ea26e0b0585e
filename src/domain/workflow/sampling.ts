import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { SteamharnessError } from "../errors.js";
import { describeSchemaError } from "../schema-errors.js";

/**
 * A workflow run asking the model of the MCP client that called it for one completion (MCP
 * sampling, `sampling/createMessage` of spec 2025-11-25, without tools). The shapes are MCP's,
 * so the host passes a checked request through and checks the client's answer against
 * {@link WorkflowSamplingResultSchema}; this module knows no transport.
 */

/** How large a sampling request of a run may be; a larger one is refused (`input_validation`) before it leaves the worker. */
export const SAMPLING_LIMITS = {
  /** Most messages in one request. */
  messages: 64,
  /** Largest request (messages, system prompt, preferences), serialised as JSON, in bytes (UTF-8). */
  requestBytes: 1024 * 1024,
  /** Largest answer a client may send back, serialised as JSON, in bytes (UTF-8); larger is `sampling_failed`. */
  resultBytes: 1024 * 1024,
  /** Largest `maxTokens` a run may ask for. */
  maxTokens: 1_000_000,
} as const;

const TextContent = Type.Object({ type: Type.Literal("text"), text: Type.String() });
const ImageContent = Type.Object({ type: Type.Literal("image"), data: Type.String(), mimeType: Type.String() });
const AudioContent = Type.Object({ type: Type.Literal("audio"), data: Type.String(), mimeType: Type.String() });
const Content = Type.Union([TextContent, ImageContent, AudioContent]);
const Priority = Type.Number({ minimum: 0, maximum: 1 });

/** A message of a sampling request: a role and one text, image or audio block (image and audio as base64). */
export const WorkflowSamplingMessageSchema = Type.Object({ role: Type.Union([Type.Literal("user"), Type.Literal("assistant")]), content: Content });

/** What {@link WorkflowSampling.createMessage} takes. */
export const WorkflowSamplingRequestSchema = Type.Object({
  messages: Type.Array(WorkflowSamplingMessageSchema, { minItems: 1, maxItems: SAMPLING_LIMITS.messages }),
  maxTokens: Type.Integer({ minimum: 1, maximum: SAMPLING_LIMITS.maxTokens }),
  systemPrompt: Type.Optional(Type.String()),
  temperature: Type.Optional(Type.Number()),
  stopSequences: Type.Optional(Type.Array(Type.String())),
  modelPreferences: Type.Optional(
    Type.Object({
      hints: Type.Optional(Type.Array(Type.Object({ name: Type.Optional(Type.String()) }))),
      costPriority: Type.Optional(Priority),
      speedPriority: Type.Optional(Priority),
      intelligencePriority: Type.Optional(Priority),
    }),
  ),
});

/** What the client answers (MCP's `CreateMessageResult` without tools); unknown extra fields are dropped. */
export const WorkflowSamplingResultSchema = Type.Object({
  role: Type.Union([Type.Literal("user"), Type.Literal("assistant")]),
  content: Content,
  model: Type.String(),
  stopReason: Type.Optional(Type.String()),
});

/** One text, image or audio block of a sampling message or answer. */
export type WorkflowSamplingContent = Static<typeof Content>;
/** A message of a sampling request. */
export type WorkflowSamplingMessage = Static<typeof WorkflowSamplingMessageSchema>;
/** A run's sampling request (see {@link SAMPLING_LIMITS}). */
export type WorkflowSamplingRequest = Static<typeof WorkflowSamplingRequestSchema>;
/** The client's answer: `{ role, content, model, stopReason? }`. */
export type WorkflowSamplingResult = Static<typeof WorkflowSamplingResultSchema>;

/** Options of {@link WorkflowSampling.createMessage}. */
export interface WorkflowSamplingOptions {
  /** Aborting it abandons the request (the client is told); the promise rejects with `cancelled`. */
  signal?: AbortSignal;
}

/**
 * `context.sampling` of a workflow run: asks the model of the MCP client that called the run for
 * one completion. It works only during an MCP `tools/call` from a client that declared the
 * `sampling` capability; anywhere else (`steamharness run` and `answer`, MCP tasks, a client
 * without the capability) it rejects with `sampling_unavailable`, which the workflow may catch.
 * A request outside {@link SAMPLING_LIMITS} rejects with `input_validation`; a client that
 * refuses, fails or answers something that is not a `CreateMessageResult` gives `sampling_failed`.
 */
export interface WorkflowSampling {
  createMessage(request: WorkflowSamplingRequest, options?: WorkflowSamplingOptions): Promise<WorkflowSamplingResult>;
}

const utf8 = new TextEncoder();

function utf8Bytes(value: unknown): number {
  return utf8.encode(JSON.stringify(value) ?? "").length;
}

function firstProblem(schema: TSchema, value: unknown): string | null {
  const first = Value.Errors(schema, value).First();
  return first ? `${first.path || "/"}: ${describeSchemaError(first)}` : null;
}

/**
 * Checks a run's sampling request against its schema and {@link SAMPLING_LIMITS}; returns it with
 * only the known fields, or throws `input_validation` naming the first problem.
 *
 * @example
 * checkSamplingRequest({ messages: [{ role: "user", content: { type: "text", text: "Hi" } }], maxTokens: 100 })
 */
export function checkSamplingRequest(value: unknown): WorkflowSamplingRequest {
  const messages = (value as { messages?: unknown } | null)?.messages;
  if (Array.isArray(messages) && messages.length > SAMPLING_LIMITS.messages) {
    throw new SteamharnessError("input_validation", `a sampling request holds at most ${SAMPLING_LIMITS.messages} messages (got ${messages.length})`, { field: "messages", data: { limit: SAMPLING_LIMITS.messages } });
  }
  const problem = firstProblem(WorkflowSamplingRequestSchema, value);
  if (problem) throw new SteamharnessError("input_validation", `invalid sampling request at ${problem}`, { field: "sampling" });
  const request = Value.Clean(WorkflowSamplingRequestSchema, Value.Clone(value)) as WorkflowSamplingRequest;
  const bytes = utf8Bytes(request);
  if (bytes > SAMPLING_LIMITS.requestBytes) {
    throw new SteamharnessError("input_validation", `a sampling request is at most ${SAMPLING_LIMITS.requestBytes} bytes as JSON (got ${bytes})`, { field: "messages", data: { limit: SAMPLING_LIMITS.requestBytes, bytes } });
  }
  return request;
}

/**
 * Checks a client's answer to a sampling request; returns `{ role, content, model, stopReason? }`
 * (extra fields such as `_meta` dropped), or throws `sampling_failed` saying what is wrong.
 *
 * @example
 * checkSamplingResult({ role: "assistant", content: { type: "text", text: "Hello" }, model: "m", stopReason: "endTurn" })
 */
export function checkSamplingResult(value: unknown): WorkflowSamplingResult {
  const bytes = utf8Bytes(value);
  if (bytes > SAMPLING_LIMITS.resultBytes) {
    throw new SteamharnessError("sampling_failed", `the MCP client's sampling answer is larger than ${SAMPLING_LIMITS.resultBytes} bytes (${bytes})`, { data: { limit: SAMPLING_LIMITS.resultBytes, bytes } });
  }
  const problem = firstProblem(WorkflowSamplingResultSchema, value);
  if (problem) throw new SteamharnessError("sampling_failed", `the MCP client's sampling answer is not a CreateMessageResult: ${problem}`, { data: { problem } });
  const { role, content, model, stopReason } = value as WorkflowSamplingResult;
  const block = Value.Clean(Content, Value.Clone(content)) as WorkflowSamplingContent;
  return stopReason === undefined ? { role, content: block, model } : { role, content: block, model, stopReason };
}

/** A root the calling MCP client shares (`roots/list`): a `file://` URI and an optional name. */
export interface WorkflowRoot {
  uri: string;
  name?: string;
}

/** The most roots a run is handed from one `roots/list` answer. */
const MAX_ROOTS = 1000;

/**
 * Checks what an MCP client answered `roots/list` with (a `ListRootsResult`) and keeps each
 * root's `uri` and `name`; anything else is `sampling_failed` (the failure of a request to the
 * calling client), naming the problem.
 *
 * @example
 * checkRootsResult({ roots: [{ uri: "file:///work", name: "work" }] }) // [{ uri: "file:///work", name: "work" }]
 */
export function checkRootsResult(value: unknown): WorkflowRoot[] {
  const roots = (value as { roots?: unknown } | null)?.roots;
  const fail = (problem: string) => new SteamharnessError("sampling_failed", `the MCP client's roots/list answer is not a ListRootsResult: ${problem}`, { data: { problem } });
  if (!Array.isArray(roots)) throw fail("roots: not an array");
  if (roots.length > MAX_ROOTS) throw fail(`more than ${MAX_ROOTS} roots`);
  return roots.map((root: unknown, index) => {
    const { uri, name } = (root ?? {}) as { uri?: unknown; name?: unknown };
    if (typeof uri !== "string" || !uri.startsWith("file://")) throw fail(`roots[${index}].uri: not a file:// URI`);
    if (name !== undefined && typeof name !== "string") throw fail(`roots[${index}].name: not a string`);
    return name === undefined ? { uri } : { uri, name };
  });
}
