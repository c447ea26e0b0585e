/**
 * The Chat Completions API of the gateway (GW-2): `POST /v1/chat/completions`, JSON or SSE
 * (`chat.completion.chunk` events ending with `data: [DONE]`). Chat Completions is stateless:
 * every request is a new conversation whose earlier messages reach the model as host input. A
 * paused run ends with `finish_reason: "tool_calls"` and one tool call (`approve_tool_call`,
 * `approve_plan` or `ask_user`) whose id is the pending request; the client resumes the run by
 * sending the conversation back with a `tool` message answering that id.
 */
import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { JsonValue } from "../../../domain/json.js";
import { GatewayHttpError, sendJson, startSse } from "./gateway-http.js";
import { SHARED_TENANT, type GatewayDecision, type GatewayPendingRequest, type GatewayRun, type GatewayRunOutcome, type GatewayRuns } from "./gateway-runs.js";
import type { ChatCompletionsCreateBody, ChatMessage } from "./gateway-schemas.js";
import { failureError } from "./responses-api.js";

const contentText = (content: ChatMessage["content"]): string => (content == null ? "" : typeof content === "string" ? content : content.map((part) => part.text).join(""));

const APPROVE = /^(approve|approved|allow|yes|y|true)$/i;
const DENY = /^(deny|denied|reject|no|n|false)$/i;

/** An approval answer: `{"approve": true|false, "reason"?: "…"}` or a bare approve/deny word. */
function approvalOf(text: string, param: string): GatewayDecision {
  const trimmed = text.trim();
  if (APPROVE.test(trimmed)) return { approve: true };
  if (DENY.test(trimmed)) return { approve: false };
  try {
    const parsed = JSON.parse(trimmed) as { approve?: unknown; reason?: unknown };
    if (typeof parsed?.approve === "boolean") return { approve: parsed.approve, ...(typeof parsed.reason === "string" && parsed.reason !== "" ? { reason: parsed.reason } : {}) };
  } catch {
    // not JSON: refused below
  }
  throw new GatewayHttpError(400, 'An approval is answered with {"approve": true} or {"approve": false, "reason": "…"} (or "approve" / "deny").', { param, code: "invalid_value" });
}

/** A pending request as the one tool call of the assistant message. */
function toolCallOf(request: GatewayPendingRequest): { id: string; type: "function"; function: { name: string; arguments: string } } {
  const [name, args] =
    request.kind === "question" ? ["ask_user", { question: request.question }]
    : request.kind === "plan" ? ["approve_plan", { plan: request.plan }]
    : request.kind === "budget" ? ["approve_budget", { message: request.message, budget: request.budget }]
    : ["approve_tool_call", { tool: request.toolId, arguments: request.arguments }];
  return { id: request.requestId, type: "function", function: { name, arguments: JSON.stringify(args) } };
}

/**
 * The Chat Completions front end.
 *
 * @example
 * const chat = createChatCompletionsApi({ runs, modelId: "assistant", now: Date.now });
 * await chat.create(body, response, signal);
 */
export function createChatCompletionsApi(options: { runs: GatewayRuns; modelId: string; now: () => number; tenantOf?: (signal: AbortSignal) => string }) {
  const { runs } = options;

  async function plan(body: ChatCompletionsCreateBody, tenant: string, signal: AbortSignal): Promise<GatewayRun> {
    const { messages } = body;
    let first = messages.length;
    while (first > 0 && messages[first - 1]!.role === "tool") first--;
    if (first < messages.length) {
      let resumed: GatewayRun | null = null;
      for (let position = first; position < messages.length; position++) {
        const message = messages[position]!;
        const param = `messages[${position}].tool_call_id`;
        const entry = message.tool_call_id === undefined ? null : runs.pendingRun(message.tool_call_id, tenant);
        if (!entry) throw new GatewayHttpError(400, `No pending request '${message.tool_call_id ?? ""}' waits for an answer.`, { param, code: "invalid_value" });
        const text = contentText(message.content);
        await runs.decide(entry.request, entry.request.kind === "question" ? { answer: text } : approvalOf(text, `messages[${position}].content`), signal);
        resumed = entry.run;
      }
      return resumed!;
    }
    const last = messages.at(-1)!;
    if (last.role !== "user") throw new GatewayHttpError(400, "The last message must be a user message (or tool messages answering pending requests).", { param: `messages[${messages.length - 1}].role`, code: "invalid_value" });
    const earlier = messages.slice(0, -1).map((message) => ({ role: message.role, text: contentText(message.content) }));
    const hostInput: JsonValue = { gateway: "openai-chat-completions", ...(earlier.length > 0 ? { messages: earlier } : {}) };
    return runs.start(contentText(last.content), hostInput, tenant);
  }

  const usageOf = (outcome: GatewayRunOutcome) => ({ prompt_tokens: outcome.usage.input, completion_tokens: outcome.usage.output, total_tokens: outcome.usage.total });
  const finishReason = (outcome: GatewayRunOutcome) => (outcome.status === "paused" ? "tool_calls" : "stop");
  // A stateless conversation is forgotten once its run ends; a paused one waits for its answer.
  const settle = (run: GatewayRun, outcome: GatewayRunOutcome) => {
    if (outcome.status !== "paused") runs.drop(run.conversationId);
  };

  return {
    /** `POST /v1/chat/completions`. */
    async create(body: ChatCompletionsCreateBody, response: ServerResponse, signal: AbortSignal): Promise<void> {
      const run = await plan(body, options.tenantOf?.(signal) ?? SHARED_TENANT, signal);
      const id = `chatcmpl-${randomBytes(16).toString("hex")}`;
      const created = Math.floor(options.now() / 1000);
      if (body.stream !== true) {
        const outcome = await runs.run(run, signal);
        settle(run, outcome);
        if (outcome.status === "failed") throw failureError(outcome.error);
        if (outcome.status === "cancelled") return;
        const message = {
          role: "assistant",
          content: outcome.text === "" && outcome.status === "paused" ? null : outcome.text,
          refusal: null,
          ...(outcome.status === "paused" ? { tool_calls: [toolCallOf(outcome.pending)] } : {}),
        };
        sendJson(response, 200, { id, object: "chat.completion", created, model: options.modelId, choices: [{ index: 0, message, finish_reason: finishReason(outcome), logprobs: null }], usage: usageOf(outcome) });
        return;
      }
      const sse = startSse(response);
      const chunk = (delta: Record<string, unknown>, finish: string | null) => sse.send({ id, object: "chat.completion.chunk", created, model: options.modelId, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] });
      chunk({ role: "assistant", content: "" }, null);
      let flushed = false;
      const outcome = await runs.run(run, signal, (delta) => {
        chunk({ content: delta }, null);
        // Time to first token: the first delta goes out now; later ones are joined per tick.
        if (!flushed) {
          flushed = true;
          sse.flush();
        }
      });
      settle(run, outcome);
      if (outcome.status === "cancelled") return sse.end();
      if (outcome.status === "failed") {
        // The official client raises an APIError for a stream event carrying `error`.
        sse.send(failureError(outcome.error).body);
        return sse.end();
      }
      if (outcome.status === "paused") chunk({ tool_calls: [{ index: 0, ...toolCallOf(outcome.pending) }] }, null);
      chunk({}, finishReason(outcome));
      if (body.stream_options?.include_usage) sse.send({ id, object: "chat.completion.chunk", created, model: options.modelId, choices: [], usage: usageOf(outcome) });
      sse.sendRaw("[DONE]");
      sse.end();
    },
  };
}
