/**
 * The OpenAI Responses API of the gateway (GW-1): `POST /v1/responses` (JSON or SSE) and
 * `GET /v1/responses/{id}`. Shapes follow the official `openai` package's types
 * (`Response`, `ResponseStreamEvent`). A response continues its conversation through
 * `previous_response_id`; a paused run (tool approval, plan decision, `ask_user`) ends its
 * response with `status: "incomplete"`, `incomplete_details.reason: "user_input_required"` and
 * an `mcp_approval_request` or `function_call` item the client answers in its next request.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { JsonValue } from "../../../domain/json.js";
import { GatewayHttpError, sendJson, startSse } from "./gateway-http.js";
import { SHARED_TENANT, type GatewayDecision, type GatewayPendingRequest, type GatewayRun, type GatewayRunOutcome, type GatewayRuns, type GatewayUsage } from "./gateway-runs.js";
import { type ResponsesCreateBody, type ResponsesInputItem } from "./gateway-schemas.js";

/** The server label of approval requests the gateway emits. */
export const GATEWAY_SERVER_LABEL = "steamharness";

type OutputItem = Record<string, JsonValue>;
type ResponseObject = Record<string, JsonValue | undefined> & { id: string; status: string; output: OutputItem[] };

// Ids take their randomness from a pool refilled 4 KiB at a time: one `randomBytes` call per
// response id was a measurable part of a streamed request (as `randomUUID` pools its entropy).
let pool = Buffer.alloc(0);
let offset = 0;
const hex = (bytes: number): string => {
  if (offset + bytes > pool.length) {
    pool = randomBytes(4096);
    offset = 0;
  }
  offset += bytes;
  return pool.toString("hex", offset - bytes, offset);
};
const textOf = (content: string | Array<{ text: string }>): string => (typeof content === "string" ? content : content.map((part) => part.text).join(""));
const STORED = "response:";

/** How the front end reaches the rest of the gateway. */
export interface ResponsesApiOptions {
  runs: GatewayRuns;
  modelId: string;
  now: () => number;
  /** BUD-4: the tenant of a request (by its signal); conversations are continued by their own tenant only. */
  tenantOf?: (signal: AbortSignal) => string;
}

/**
 * The Responses front end.
 *
 * @example
 * const responses = createResponsesApi({ runs, modelId: "assistant", now: Date.now });
 * await responses.create(body, request, response, signal);
 */
export function createResponsesApi(options: ResponsesApiOptions) {
  const { runs } = options;
  /** Response id → conversation id; the response itself is kept with its conversation. */
  const index = new Map<string, string>();

  const stored = (id: string, tenant?: string): ResponseObject | null => {
    const conversationId = index.get(id);
    const found = conversationId === undefined ? undefined : (runs.attachment(conversationId, `${STORED}${id}`) as ResponseObject | undefined);
    if (!found && conversationId !== undefined) index.delete(id);
    // BUD-4: another tenant's response is an unknown one (the same 404), never a way into its conversation.
    if (found && tenant !== undefined && runs.tenantOf(conversationId!) !== tenant) return null;
    return found ?? null;
  };
  const tenantOf = (signal: AbortSignal): string => options.tenantOf?.(signal) ?? SHARED_TENANT;
  // Responses of evicted conversations leave stale index entries; they are swept when the index
  // has doubled since the last sweep (amortised O(1) per request: sweeping at every request past a
  // fixed size made each request walk every kept response).
  let sweepAt = 4096;
  const store = (conversationId: string, response: ResponseObject): void => {
    if (index.size >= sweepAt) {
      for (const id of [...index.keys()]) stored(id);
      sweepAt = Math.max(4096, index.size * 2);
    }
    index.set(response.id, conversationId);
    runs.attach(conversationId, `${STORED}${response.id}`, response);
  };

  /** Decides which run a request starts or resumes (and records the client's decisions). */
  async function plan(body: ResponsesCreateBody, tenant: string, signal: AbortSignal): Promise<GatewayRun> {
    const items: ResponsesInputItem[] = typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input;
    const previous = body.previous_response_id ? stored(body.previous_response_id, tenant) : null;
    if (body.previous_response_id && !previous) {
      throw new GatewayHttpError(404, `Previous response with id '${body.previous_response_id}' not found.`, { param: "previous_response_id", code: "previous_response_not_found" });
    }
    const previousConversation = previous ? index.get(previous.id)! : null;
    const answers = items.flatMap((item, position) => (item.type === "mcp_approval_response" || item.type === "function_call_output" ? [{ item, position }] : []));
    if (answers.length > 0) {
      let resumed: GatewayRun | null = null;
      for (const { item, position } of answers) {
        const requestId = item.type === "mcp_approval_response" ? item.approval_request_id : item.call_id;
        const param = `input[${position}].${item.type === "mcp_approval_response" ? "approval_request_id" : "call_id"}`;
        const entry = runs.pendingRun(requestId, tenant);
        if (!entry || (previousConversation !== null && entry.run.conversationId !== previousConversation)) {
          throw new GatewayHttpError(400, `No pending request '${requestId}' waits for an answer${previous ? ` in the conversation of '${previous.id}'` : ""}.`, { param, code: "invalid_value" });
        }
        const decision: GatewayDecision | null =
          item.type === "mcp_approval_response"
            ? entry.request.kind === "question" ? null : { approve: item.approve, ...(item.reason ? { reason: item.reason } : {}) }
            : entry.request.kind === "question" ? { answer: textOf(item.output) } : null;
        if (!decision) {
          const expected = entry.request.kind === "question" ? "a function_call_output" : "an mcp_approval_response";
          throw new GatewayHttpError(400, `Request '${requestId}' is answered with ${expected} item.`, { param: `input[${position}].type`, code: "invalid_value" });
        }
        await runs.decide(entry.request, decision, signal);
        resumed = entry.run;
      }
      return resumed!;
    }
    if (previous?.status === "incomplete") {
      throw new GatewayHttpError(400, `Response '${previous.id}' waits for an answer: send an mcp_approval_response or function_call_output item for its pending request.`, { param: "input", code: "pending_user_input" });
    }
    const lastUser = items.map((item, position) => ({ item, position })).filter(({ item }) => item.type !== "mcp_approval_response" && item.type !== "function_call_output" && item.role === "user").at(-1);
    if (!lastUser || lastUser.item.type === "mcp_approval_response" || lastUser.item.type === "function_call_output") {
      throw new GatewayHttpError(400, "The input needs a user message.", { param: "input", code: "invalid_value" });
    }
    const earlier = items.slice(0, lastUser.position).flatMap((item) => (item.type === "mcp_approval_response" || item.type === "function_call_output" ? [] : [{ role: item.role, text: textOf(item.content) }]));
    const hostInput: JsonValue = {
      gateway: "openai-responses",
      ...(body.instructions ? { instructions: body.instructions } : {}),
      ...(earlier.length > 0 ? { input: earlier } : {}),
      ...(body.metadata ? { metadata: body.metadata } : {}),
    };
    const prompt = textOf(lastUser.item.content);
    if (!previousConversation) return runs.start(prompt, hostInput, tenant);
    const next = runs.next(previousConversation, prompt, hostInput, tenant);
    if (!next) throw new GatewayHttpError(404, `Previous response with id '${body.previous_response_id}' not found.`, { param: "previous_response_id", code: "previous_response_not_found" });
    return next;
  }

  function skeleton(body: ResponsesCreateBody): ResponseObject {
    return {
      id: `resp_${hex(24)}`,
      object: "response",
      created_at: Math.floor(options.now() / 1000),
      status: "in_progress",
      background: false,
      error: null,
      incomplete_details: null,
      instructions: body.instructions ?? null,
      max_output_tokens: null,
      metadata: body.metadata ?? {},
      model: options.modelId,
      output: [],
      output_text: "",
      parallel_tool_calls: false,
      previous_response_id: body.previous_response_id ?? null,
      store: body.store !== false,
      temperature: null,
      text: { format: { type: "text" } },
      tool_choice: "auto",
      tools: [],
      top_p: null,
      truncation: "disabled",
      usage: null,
    };
  }

  return {
    /** `POST /v1/responses`. */
    async create(body: ResponsesCreateBody, _request: IncomingMessage, response: ServerResponse, signal: AbortSignal): Promise<void> {
      const run = await plan(body, tenantOf(signal), signal);
      const base = skeleton(body);
      const messageId = `msg_${hex(24)}`;
      if (body.stream !== true) {
        const outcome = await runs.run(run, signal);
        const final = finish(base, outcome, messageId, options.now);
        if (body.store !== false) store(run.conversationId, final);
        if (outcome.status === "failed") throw failureError(outcome.error);
        if (outcome.status === "cancelled") return;
        sendJson(response, 200, final);
        return;
      }
      const sse = startSse(response);
      let sequence = 0;
      const emit = (event: Record<string, unknown>) => sse.send({ ...event, sequence_number: sequence++ }, String(event.type));
      emit({ type: "response.created", response: base });
      emit({ type: "response.in_progress", response: base });
      let opened = false;
      const open = () => {
        if (opened) return;
        opened = true;
        emit({ type: "response.output_item.added", output_index: 0, item: { id: messageId, type: "message", role: "assistant", status: "in_progress", content: [] } });
        emit({ type: "response.content_part.added", item_id: messageId, output_index: 0, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
      };
      // The one event sent per token, written from a fixed prefix (same JSON as `emit` would give).
      const deltaPrefix = `{"type":"response.output_text.delta","item_id":${JSON.stringify(messageId)},"output_index":0,"content_index":0,"delta":`;
      let flushed = false;
      const outcome = await runs.run(run, signal, (delta) => {
        open();
        sse.sendJson(`${deltaPrefix}${JSON.stringify(delta)},"logprobs":[],"sequence_number":${sequence++}}`, "response.output_text.delta");
        // Time to first token: the first delta goes out now; later ones are joined per tick.
        if (!flushed) {
          flushed = true;
          sse.flush();
        }
      });
      const final = finish(base, outcome, messageId, options.now);
      if (body.store !== false) store(run.conversationId, final);
      if (outcome.status === "cancelled") return sse.end();
      const message = final.output.find((item) => item.id === messageId);
      if (message) {
        open();
        const part = (message.content as OutputItem[])[0]!;
        emit({ type: "response.output_text.done", item_id: messageId, output_index: 0, content_index: 0, text: part.text, logprobs: [] });
        emit({ type: "response.content_part.done", item_id: messageId, output_index: 0, content_index: 0, part });
        emit({ type: "response.output_item.done", output_index: 0, item: message });
      }
      for (const [position, item] of final.output.entries()) {
        if (item.id === messageId) continue;
        emit({ type: "response.output_item.added", output_index: position, item });
        emit({ type: "response.output_item.done", output_index: position, item });
      }
      if (outcome.status === "failed") {
        const error = failureError(outcome.error).body.error;
        emit({ type: "error", code: error.code, message: error.message, param: null });
        emit({ type: "response.failed", response: final });
      } else emit({ type: outcome.status === "paused" ? "response.incomplete" : "response.completed", response: final });
      sse.end();
    },
    /** `GET /v1/responses/{id}` of a request of `tenant` (another tenant's response is not found). */
    get(id: string, response: ServerResponse, tenant: string = SHARED_TENANT): void {
      const found = stored(id, tenant);
      if (!found) throw new GatewayHttpError(404, `Response with id '${id}' not found.`, { param: "response_id", code: "not_found" });
      sendJson(response, 200, found);
    },
  };
}

/** The final response object of a run. */
function finish(base: ResponseObject, outcome: GatewayRunOutcome, messageId: string, now: () => number): ResponseObject {
  const output: OutputItem[] = [];
  const status = outcome.status === "completed" ? "completed" : outcome.status === "paused" ? "incomplete" : outcome.status === "cancelled" ? "cancelled" : "failed";
  if (outcome.text !== "" || outcome.status === "completed") {
    output.push({ id: messageId, type: "message", role: "assistant", status: outcome.status === "completed" ? "completed" : "incomplete", content: [{ type: "output_text", text: outcome.text, annotations: [] }] });
  }
  if (outcome.status === "paused") output.push(pendingItem(outcome.pending));
  return {
    ...base,
    status,
    output,
    output_text: outcome.text,
    usage: usageObject(outcome.usage),
    incomplete_details: outcome.status === "paused" ? { reason: "user_input_required" } : null,
    error: outcome.status === "failed" ? { code: "server_error", message: outcome.error.message } : null,
    ...(status === "completed" ? { completed_at: Math.floor(now() / 1000) } : {}),
  };
}

/** A pending request as the Responses output item the client answers. */
function pendingItem(request: GatewayPendingRequest): OutputItem {
  if (request.kind === "question") {
    return { id: `fc_${request.requestId}`, type: "function_call", call_id: request.requestId, name: "ask_user", arguments: JSON.stringify({ question: request.question }), status: "completed" };
  }
  const [name, args] = request.kind === "plan" ? ["approve_plan", { plan: request.plan }] : request.kind === "budget" ? ["approve_budget", { message: request.message, budget: request.budget }] : [request.toolId, request.arguments];
  return { id: request.requestId, type: "mcp_approval_request", server_label: GATEWAY_SERVER_LABEL, name, arguments: JSON.stringify(args) };
}

function usageObject(usage: GatewayUsage): JsonValue {
  return {
    input_tokens: usage.input,
    input_tokens_details: { cached_tokens: usage.cacheRead },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.total,
  };
}

/**
 * The HTTP error of a failed run: 409 for a busy conversation (another request is running in
 * it), 503 for a run cancelled because the gateway closes, 429 `insufficient_quota` for a budget
 * the run exhausted, 502 when the model failed, else 500.
 *
 * @example
 * throw failureError({ code: "session_busy", message: "…" });
 */
export function failureError(error: { code: string; message: string }): GatewayHttpError {
  // The run's failure was logged by the runs (gateway-runs.ts): the request log does not repeat it.
  const logged = true;
  if (error.code === "session_busy") return new GatewayHttpError(409, `Another request is running in this conversation: ${error.message}`, { type: "conflict_error", code: "conversation_busy", logged });
  if (error.code === "not_found") return new GatewayHttpError(404, error.message, { code: "not_found", logged });
  if (error.code === "gateway_closing") return new GatewayHttpError(503, error.message, { type: "server_error", code: "gateway_closing", logged });
  // BUD-4: an exhausted budget is OpenAI's `insufficient_quota` (429), distinct from a rate limit.
  if (error.code === "budget_exceeded") return new GatewayHttpError(429, error.message, { type: "insufficient_quota", code: "insufficient_quota", logged });
  if (error.code === "model_error") return new GatewayHttpError(502, error.message, { type: "server_error", code: "model_error", logged });
  return new GatewayHttpError(500, error.message, { type: "server_error", code: error.code, logged });
}
