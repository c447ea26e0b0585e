/**
 * TypeBox schemas of the request bodies the gateway accepts (GW-1, GW-2, GW-4), with the field
 * names of the official `openai` client's types. Fields the gateway does not use (temperature,
 * tools, …) are let through and ignored, as the OpenAI API accepts them; the fields it uses are
 * checked, and the first failure becomes a 400 in OpenAI's error shape naming the parameter.
 */
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { dotted } from "../../../app/conversation/executor-schema.js";
import { GatewayHttpError } from "./gateway-http.js";
import { describeSchemaError } from "../../../domain/schema-errors.js";

const Role = Type.Union([Type.Literal("user"), Type.Literal("assistant"), Type.Literal("system"), Type.Literal("developer")]);
const TextPart = Type.Object({ type: Type.Union([Type.Literal("input_text"), Type.Literal("output_text"), Type.Literal("text")]), text: Type.String() });

/** A message in a Responses `input` array (`EasyInputMessage` / `ResponseInputItem.Message`). */
export const ResponsesInputMessageSchema = Type.Object({
  type: Type.Optional(Type.Literal("message")),
  role: Role,
  content: Type.Union([Type.String(), Type.Array(TextPart)]),
});

/** The answer to a pending approval (`ResponseInputItem.McpApprovalResponse`). */
export const McpApprovalResponseSchema = Type.Object({
  type: Type.Literal("mcp_approval_response"),
  approval_request_id: Type.String({ minLength: 1 }),
  approve: Type.Boolean(),
  reason: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

/** The answer to a pending question (`ResponseInputItem.FunctionCallOutput`). */
export const FunctionCallOutputSchema = Type.Object({
  type: Type.Literal("function_call_output"),
  call_id: Type.String({ minLength: 1 }),
  output: Type.Union([Type.String(), Type.Array(TextPart)]),
  id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

/** `POST /v1/responses` (`ResponseCreateParams`). */
export const ResponsesCreateSchema = Type.Object({
  model: Type.String({ minLength: 1 }),
  input: Type.Union([Type.String(), Type.Array(Type.Union([ResponsesInputMessageSchema, McpApprovalResponseSchema, FunctionCallOutputSchema]), { minItems: 1 })]),
  instructions: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  previous_response_id: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
  stream: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  store: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  metadata: Type.Optional(Type.Union([Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 512 })), Type.Null()])),
});
export type ResponsesCreateBody = Static<typeof ResponsesCreateSchema>;
export type ResponsesInputItem = Exclude<ResponsesCreateBody["input"], string>[number];

const ChatContent = Type.Union([Type.String(), Type.Null(), Type.Array(Type.Object({ type: Type.Literal("text"), text: Type.String() }))]);

/** A Chat Completions message (`ChatCompletionMessageParam`). */
export const ChatMessageSchema = Type.Object({
  role: Type.Union([Type.Literal("system"), Type.Literal("developer"), Type.Literal("user"), Type.Literal("assistant"), Type.Literal("tool")]),
  content: Type.Optional(ChatContent),
  name: Type.Optional(Type.String()),
  tool_call_id: Type.Optional(Type.String({ minLength: 1 })),
  tool_calls: Type.Optional(Type.Array(Type.Object({ id: Type.String(), type: Type.Optional(Type.String()) }))),
});
export type ChatMessage = Static<typeof ChatMessageSchema>;

/** `POST /v1/chat/completions` (`ChatCompletionCreateParams`). */
export const ChatCompletionsCreateSchema = Type.Object({
  model: Type.String({ minLength: 1 }),
  messages: Type.Array(ChatMessageSchema, { minItems: 1 }),
  stream: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  stream_options: Type.Optional(Type.Union([Type.Object({ include_usage: Type.Optional(Type.Boolean()) }), Type.Null()])),
  n: Type.Optional(Type.Union([Type.Literal(1), Type.Null()])),
});
export type ChatCompletionsCreateBody = Static<typeof ChatCompletionsCreateSchema>;

/**
 * Returns `body` typed by `schema`, or throws a 400 `invalid_request_error` whose `param` is the
 * first failing field (`input[0].content`).
 *
 * @example
 * const body = validateBody(ResponsesCreateSchema, await readJsonBody(request, limit));
 */
export function validateBody<T extends TSchema>(schema: T, body: unknown): Static<T> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new GatewayHttpError(400, "The request body must be a JSON object.", { code: "invalid_request_body" });
  if (Value.Check(schema, body)) return body;
  const first = Value.Errors(schema, body).First();
  const param = dotted("", first?.path ?? "") || null;
  const found = first?.value === undefined ? "missing" : `got ${preview(first.value, 60)}`;
  throw new GatewayHttpError(400, `Invalid ${param ? `'${param}'` : "request body"}: ${first ? describeSchemaError(first) : "invalid"} (${found}).`, { param, code: param && first?.value === undefined ? "missing_required_parameter" : "invalid_value" });
}

/**
 * A JSON-like preview of a client's value of at most about `limit` characters. Written without
 * `JSON.stringify` and without recursion: a body nested a hundred thousand levels deep (1 MiB of
 * `[`) would overflow the stack there and turn a 400 into a 500 (SEC-7).
 *
 * @example
 * preview([[[1]]], 60); // "[[[1]]]"
 */
export function preview(value: unknown, limit: number): string {
  let text = "";
  // A stack of what is left to write: values, and the literal text that closes or separates them.
  const pending: Array<{ value: unknown } | string> = [{ value }];
  while (pending.length > 0 && text.length <= limit) {
    const next = pending.pop()!;
    if (typeof next === "string") {
      text += next;
      continue;
    }
    const item = next.value;
    if (Array.isArray(item)) {
      text += "[";
      pending.push("]");
      for (let i = item.length - 1; i >= 0; i--) pending.push({ value: item[i] }, ...(i > 0 ? [","] : []));
    } else if (item !== null && typeof item === "object") {
      const entries = Object.entries(item);
      text += "{";
      pending.push("}");
      for (let i = entries.length - 1; i >= 0; i--) pending.push({ value: entries[i]![1] }, `${JSON.stringify(entries[i]![0])}:`, ...(i > 0 ? [","] : []));
    } else text += typeof item === "string" ? JSON.stringify(item.length > limit ? item.slice(0, limit) : item) : String(item);
  }
  return text.length > limit ? `${text.slice(0, Math.max(0, limit - 3))}...` : text;
}
