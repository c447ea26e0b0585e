import { SteamharnessError } from "../../domain/errors.js";
import { modelRequestId, runEventId, usageEntryId } from "../../domain/agent/ids.js";
import { DEFAULT_MAX_CONTINUATIONS, DEFAULT_MAX_RETRIES, retryDelay, shouldRetry } from "../../domain/agent/retry.js";
import type { AgentWebSearchRecord, SessionEventInput } from "../../domain/agent/session-events.js";
import type { OutputItemStreamChunk } from "../../domain/output-items.js";
import type { ModelMessage, ModelProviderItem, ModelResponse } from "../../ports/model-provider.js";
import type { TokenCounts, TokenUsageEntry } from "../../ports/token-usage.js";
import { runFinishedEvent } from "./turn.js";
import type { ModelStepRun } from "./turn-parts.js";
import { contentFor } from "./run-telemetry.js";
import { callWorstCase, DEFAULT_MAX_OUTPUT } from "./run-budget.js";
import { settledUsage } from "../../domain/budget/reported-usage.js";

type AssistantMessage = Extract<ModelMessage, { role: "assistant" }>;
type Block = AssistantMessage["content"][number];

/**
 * Emits content blocks as the live stream would have (replay of committed output, SES-3).
 *
 * @example
 * yield* emitContent(turn, message.content, "0:0");
 */
export function* emitContent(turn: Pick<ModelStepRun, "projector" | "meter" | "toolCallCount">, content: readonly Block[], blockPrefix: string, searches: readonly AgentWebSearchRecord[] = [], join?: string): Generator<OutputItemStreamChunk> {
  const { projector, meter } = turn;
  const searchesAt = (position: number) => searches.filter((search) => search.position === position);
  for (const [index, block] of content.entries()) {
    for (const search of searchesAt(index)) yield* webSearchRows(turn, search, `web_search:${blockPrefix}:${searches.indexOf(search)}`);
    if (block.type === "toolCall") {
      meter.add(JSON.stringify(block.arguments));
      yield* projector.toolCall({ id: block.id, name: block.name, arguments: block.arguments });
      continue;
    }
    if (block.text === "") continue;
    meter.add(block.text);
    const key = index === 0 && join !== undefined && block.type === "text" ? join : `${blockPrefix}:${index}`;
    yield* block.type === "text" ? projector.text(block.text, key) : projector.reasoning(block.text, key);
    yield* projector.endBlock();
  }
  for (const search of searches.filter((item) => item.position >= content.length)) {
    yield* webSearchRows(turn, search, `web_search:${blockPrefix}:${searches.indexOf(search)}`);
  }
}

/**
 * A web search as a `tool` row (`tool: "web_search"`) plus a notice with its sources (OUT-5);
 * sources the answer cited beyond the searches' are a notice only.
 */
function* webSearchRows(turn: Pick<ModelStepRun, "projector" | "toolCallCount">, search: AgentWebSearchRecord, id: string): Generator<OutputItemStreamChunk> {
  if (search.cited !== true) {
    turn.toolCallCount++;
    yield* turn.projector.toolCall({ id, name: "web_search", arguments: search.query === undefined ? {} : { query: search.query } });
    const text = search.error === undefined ? `${search.sources.length} sources` : `search failed: ${search.error}`;
    yield* turn.projector.toolResult(id, { isError: search.error !== undefined, text });
  }
  if (search.sources.length > 0) {
    const links = search.sources.map((source) => `- [${(source.title ?? source.url).replace(/[[\]]/g, "")}](${source.url})`).join("\n");
    yield* turn.projector.notice(`Sources:\n${links}`, { sources: true, ...(search.cited === true ? { cited: true } : {}) });
  }
}

/**
 * The usage event of a call, from the usage its provider reported — checked first (TEN-5): a
 * report the ledger cannot trust counts as the call's reserved `worstCase`, with a warning naming
 * the provider; a failed request that used nothing records none (its hold is released).
 */
async function recordUsage(turn: Pick<ModelStepRun, "runId" | "model" | "context">, step: number, attempt: number, response: ModelResponse, worstCase: TokenCounts): Promise<SessionEventInput[]> {
  const { usage, distrusted } = settledUsage(response.usage, worstCase, response.stopReason === "error");
  const { provider, model } = turn.model.descriptor;
  if (distrusted !== null) {
    turn.context.log.warn(`[steamharness] [budget] provider ${provider} reported unusable usage for model ${model} (${distrusted}); the call counts as its reserved worst case, ${worstCase.total} tokens`, { provider, model, reported: distrusted, counted: worstCase.total });
  }
  if (usage === null) return [];
  const entry: TokenUsageEntry = {
    ...usage,
    entryId: usageEntryId(turn.runId, step, attempt),
    runId: turn.runId,
    provider: turn.model.descriptor.provider,
    model: turn.model.descriptor.model,
    at: turn.context.clock.now(),
  };
  return [{ eventId: runEventId(turn.runId, "model", step, "usage", attempt), runId: turn.runId, type: "usage", payload: { entry } }];
}

/** Counts committed usage into the turn and the recorder (idempotent by entry id, AG-2). */
async function applyUsage(turn: Pick<ModelStepRun, "runId" | "committed" | "usage" | "meter" | "context" | "budget">, step: number, attempt: number, lease: string | undefined): Promise<void> {
  const event = turn.committed.get(runEventId(turn.runId, "model", step, "usage", attempt));
  // BUD-2: the call's reservation (or its lease's) is settled on its committed usage, or released without one.
  if (event?.type !== "usage") return void (await turn.budget?.afterModelCall(step, attempt, null, lease));
  const { entry } = event.payload;
  for (const key of ["input", "output", "cacheRead", "cacheWrite", "total"] as const) turn.usage[key] += entry[key];
  await turn.budget?.afterModelCall(step, attempt, entry, lease);
  turn.meter.recordUsage(entry);
  await turn.context.tokenUsage.record(entry);
}

/** Model requests this run made so far (each committed response or retry record is one). */
function modelCallsOf(turn: Pick<ModelStepRun, "committed">): number {
  let calls = 0;
  for (const event of turn.committed.values()) if (event.type === "assistant_message" || event.type === "model_retry") calls++;
  return calls;
}

/** What asks the model to continue a cut answer (OUT-7); sent with the request only, never stored. */
const CONTINUE_PROMPT = "Your previous message was cut off. Continue exactly where it stopped, without repeating anything you already wrote.";

function continuationMessages(prefix: readonly Block[]): ModelMessage[] {
  if (prefix.length === 0) return [];
  return [{ role: "assistant", content: [...prefix] }, { role: "user", content: CONTINUE_PROMPT }];
}

/** Tokens of streamed text between two ring updates. */
const RING_STEP = 256;

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (ms <= 0 || signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

/**
 * Throws `cancelled` when the run's signal has aborted.
 *
 * @example
 * throwIfCancelled(turn);
 */
export function throwIfCancelled(turn: { readonly context: Pick<ModelStepRun["context"], "signal"> }): void {
  if (turn.context.signal.aborted) throw new SteamharnessError("cancelled", "the agent run was cancelled");
}

/**
 * One model step: replays committed retries and the committed response, or asks the model —
 * retrying retryable failures visibly (OUT-3) — and commits the response, its tool intents and
 * its usage in one append. Returns the assistant message.
 *
 * @example
 * const message = yield* modelStep(turn, 0);
 */
export async function* modelStep(turn: ModelStepRun, step: number): AsyncGenerator<OutputItemStreamChunk, AssistantMessage, undefined> {
  const { runId, projector } = turn;
  const max = turn.options.maxRetries ?? DEFAULT_MAX_RETRIES;
  let attempt = 0;
  let retries = 0;
  let continuation: Continuation = { prefix: [], continuations: 0 };
  for (let retry = turn.committed.get(runEventId(runId, "model", step, "retry", 1)); retry?.type === "model_retry"; ) {
    attempt++;
    const { partial, kind } = retry.payload;
    yield* emitContent(turn, partial, `${step}:${attempt - 1}`, [], continuation.join);
    if (kind === "lost-call") yield* markLostCalls(turn, partial);
    yield* projector.retry({ kind, attempt, max: retry.payload.max, message: retry.payload.errorMessage, ...(retry.payload.status === undefined ? {} : { status: retry.payload.status }) });
    continuation = continueAfter(continuation, kind, partial, retry.payload.joinKey);
    if (!isContinuation(kind)) retries++;
    await applyUsage(turn, step, attempt - 1, retry.payload.lease);
    retry = turn.committed.get(runEventId(runId, "model", step, "retry", attempt + 1));
  }
  const done = turn.committed.get(runEventId(runId, "model", step));
  if (done?.type === "assistant_message") {
    yield* emitContent(turn, done.payload.shown ?? done.payload.message.content, `${step}:${attempt}`, done.payload.webSearches, continuation.join);
    await applyUsage(turn, step, attempt, done.payload.lease);
    return done.payload.message;
  }
  const maxContinuations = turn.options.maxContinuations ?? DEFAULT_MAX_CONTINUATIONS;
  for (;;) {
    throwIfCancelled(turn);
    // BUD-2: the worst case of this call is reserved before it starts (or the run stops or pauses).
    // The lease it drew from, if any, is committed with the call (a resumed run settles it).
    const contextTokens = turn.meter.usage().used;
    const lease = await turn.budget?.beforeModelCall(step, attempt, contextTokens, () => modelCallsOf(turn));
    // TEN-5: what the call counts when its provider's usage report is not trusted.
    const worstCase = turn.budget?.worstCase(contextTokens) ?? callWorstCase(contextTokens, turn.model.descriptor.maxTokens ?? DEFAULT_MAX_OUTPUT, null);
    const leased = lease === undefined ? {} : { lease };
    const startedAt = turn.context.clock.now();
    let streamed: Awaited<ReturnType<typeof streamResponse> extends AsyncGenerator<unknown, infer R> ? R : never>;
    let responded = false;
    try {
      streamed = yield* tracedResponse(turn, step, attempt, continuation);
      if (streamed.response.stopReason === "aborted") throw new SteamharnessError("cancelled", "the agent run was cancelled");
      responded = true;
    } finally {
      // The hold goes however the request ended without an answer: it threw, was aborted, or the
      // run's consumer stopped reading mid-stream (a generator return runs only this).
      if (!responded) await turn.budget?.afterModelCall(step, attempt, null, lease);
    }
    const { response, partial, searches, joinKey, startedCalls } = streamed;
    const timing = { startedAt, endedAt: turn.context.clock.now() };
    const usageEvents = await recordUsage(turn, step, attempt, response, worstCase);
    if (response.stopReason === "error") {
      if (!shouldRetry(response, retries, max)) {
        await turn.append(usageEvents);
        await applyUsage(turn, step, attempt, lease);
        throw new SteamharnessError("model_error", `model request failed: ${response.errorMessage ?? "unknown error"}`, { data: { status: response.retry?.status ?? null } });
      }
      attempt++;
      retries++;
      const kind = response.retry!.kind;
      await turn.append([
        { eventId: runEventId(runId, "model", step, "retry", attempt), runId, type: "model_retry", payload: { step, attempt, max, kind, errorMessage: response.errorMessage ?? "", partial, ...(response.retry!.status === undefined ? {} : { status: response.retry!.status }), timing, ...leased } },
        ...usageEvents,
      ]);
      await applyUsage(turn, step, attempt - 1, lease);
      yield* projector.retry({ kind, attempt, max, message: response.errorMessage ?? "", ...(response.retry!.status === undefined ? {} : { status: response.retry!.status }) });
      turn.telemetry.retry({ kind, attempt, max, message: response.errorMessage ?? "", ...(response.retry!.status === undefined ? {} : { status: response.retry!.status }) });
      continuation = continueAfter(continuation, kind, partial, undefined);
      await sleep(retryDelay(retries, turn.options.retryDelayMs ?? 500), turn.context.signal);
      continue;
    }
    // OUT-7: an answer cut at the output limit is continued; a tool call cut or lost is asked
    // again after the text before it. Both are bounded, and silent (their records stay in the log).
    const cut = cutShort(response, startedCalls);
    if (cut !== null && continuation.continuations < maxContinuations) {
      attempt++;
      const message = cut === "length" ? "the answer reached the output token limit; continuing" : "a tool call was cut off or lost; asking again";
      await turn.append([
        { eventId: runEventId(runId, "model", step, "retry", attempt), runId, type: "model_retry", payload: { step, attempt, max: maxContinuations, kind: cut, errorMessage: message, partial: response.content, ...(joinKey === undefined ? {} : { joinKey }), timing, ...leased } },
        ...usageEvents,
      ]);
      await applyUsage(turn, step, attempt - 1, lease);
      if (cut === "lost-call") yield* markLostCalls(turn, response.content);
      yield* projector.retry({ kind: cut, attempt, max: maxContinuations, message });
      turn.telemetry.retry({ kind: cut, attempt, max: maxContinuations, message });
      continuation = continueAfter(continuation, cut, response.content, joinKey);
      continue;
    }
    const own = cut === "lost-call" ? response.content.filter((block) => block.type !== "toolCall") : response.content;
    const content = joinContent(continuation.prefix, own, continuation.join !== undefined);
    const providerItems = keptItems(response, own, content.length);
    const message: AssistantMessage = { role: "assistant", content, provider: turn.model.descriptor.provider, model: turn.model.descriptor.model, ...(providerItems ? { providerItems } : {}) };
    const intents: SessionEventInput[] = content.flatMap((block) =>
      block.type === "toolCall"
        ? [{ eventId: runEventId(runId, "tool", block.id, "intent"), runId, type: "tool_intent" as const, payload: { toolCallId: block.id, toolName: block.name, arguments: block.arguments, replay: turn.registry.get(block.name)?.tool.replay ?? "never" } }]
        : [],
    );
    // A final answer outside plan mode ends the run: its end is committed with it (one
    // transaction instead of two; the run's own end event then finds it stored). A run with a
    // budget ends after its last call is settled, so its end event records the final budgets.
    const ends = intents.length === 0 && turn.mode !== "plan" && !turn.budget ? [runFinishedEvent(turn)] : [];
    const shown = continuation.prefix.length > 0 || own !== response.content ? { shown: response.content } : {};
    await turn.append([
      { eventId: runEventId(runId, "model", step), runId, type: "assistant_message", payload: { message, stopReason: response.stopReason, step, attempt, ...shown, ...(searches.length ? { webSearches: searches } : {}), timing, ...leased } },
      ...intents,
      ...usageEvents,
      ...ends,
    ]);
    await applyUsage(turn, step, attempt, lease);
    return message;
  }
}

/**
 * What a continued answer carries from its cut attempts (OUT-7): the text said so far (sent back
 * so the model continues it, and joined into the final message) and the display key of the text
 * part the continuation appends to.
 */
interface Continuation {
  prefix: Block[];
  join?: string;
  continuations: number;
}

const isContinuation = (kind: string): kind is "length" | "lost-call" => kind === "length" || kind === "lost-call";

/** `length` when the answer hit the output limit; `lost-call` when a tool call was cut or vanished. */
function cutShort(response: ModelResponse, startedCalls: number): "length" | "lost-call" | null {
  const calls = response.content.filter((block) => block.type === "toolCall").length;
  if (response.stopReason === "length") return calls > 0 ? "lost-call" : "length";
  if (response.stopReason === "toolUse" && calls === 0) return "lost-call";
  if (calls < startedCalls) return "lost-call";
  return null;
}

/**
 * The response's hidden provider items (OUT-10), placed in the committed message: after the text
 * of earlier cut attempts it continues, and past the tool calls a lost call dropped.
 */
function keptItems(response: ModelResponse, own: readonly Block[], length: number): ModelProviderItem[] | undefined {
  if (!response.providerItems?.length) return undefined;
  const offset = length - own.length;
  return response.providerItems.map((item) => {
    const dropped = own === response.content ? 0 : response.content.slice(0, item.position).filter((block) => block.type === "toolCall").length;
    return { ...item, position: Math.max(0, item.position - dropped + offset) };
  });
}

/** Text blocks joined: the first of `next` continues the last of `prefix` when `joined`. */
function joinContent(prefix: readonly Block[], next: readonly Block[], joined: boolean): Block[] {
  const content = prefix.map((block) => ({ ...block }));
  const [first, ...rest] = next;
  const last = content.at(-1);
  if (joined && first?.type === "text" && last?.type === "text") {
    last.text += first.text;
    return [...content, ...rest];
  }
  return [...content, ...next];
}

function continueAfter(state: Continuation, kind: "dropped" | "recovery" | "length" | "lost-call", partial: readonly Block[], joinKey: string | undefined): Continuation {
  if (!isContinuation(kind)) {
    // A failed attempt is asked again from the same prefix; text it streamed already stands
    // apart (the dropped row, or the cut text), so the retry starts a part of its own.
    return partial.some((block) => block.type !== "toolCall" && block.text !== "") ? { ...state, join: undefined } : state;
  }
  const kept = partial.filter((block): block is Extract<Block, { type: "text" }> => block.type === "text" && block.text !== "");
  const prefix = joinContent(state.prefix, kept, state.join !== undefined && partial[0]?.type === "text");
  return { prefix, continuations: state.continuations + 1, ...(joinKey === undefined ? {} : { join: joinKey }) };
}

/** Tool rows of calls that were cut off end as failed: they never run (OUT-7 `lost-call`). */
function* markLostCalls(turn: Pick<ModelStepRun, "projector">, partial: readonly Block[]): Generator<OutputItemStreamChunk> {
  for (const block of partial) {
    if (block.type === "toolCall") yield* turn.projector.toolResult(block.id, { isError: true, text: "the tool call was cut off before it was complete; it did not run" });
  }
}

/**
 * Tool-call ids made unique within the run: every id keys the call's events and approvals, and
 * some models repeat ids (`call_0`) or send none. A repeated or empty id is replaced by
 * `<id>_<step>_<n>`, the same way for the streamed rows and the committed message.
 */
function toolCallIds(turn: Pick<ModelStepRun, "committed">, step: number) {
  const used = new Set<string>();
  for (const event of turn.committed.values()) if (event.type === "tool_intent") used.add(event.payload.toolCallId);
  const assigned: string[] = [];
  const unique = (id: string): string => {
    let candidate = id;
    for (let n = assigned.length; candidate === "" || used.has(candidate); n++) candidate = `${id || "call"}_${step}_${n}`;
    used.add(candidate);
    assigned.push(candidate);
    return candidate;
  };
  return {
    /** The id of the next streamed tool call. */
    next: unique,
    /** The committed content, with the ids given to the streamed calls (in order). */
    apply(content: Block[]): Block[] {
      let n = 0;
      return content.map((block) => {
        if (block.type !== "toolCall") return block;
        const id = n < assigned.length ? assigned[n]! : unique(block.id);
        n++;
        return id === block.id ? block : { ...block, id };
      });
    },
  };
}

/** {@link streamResponse} inside a `chat` span (OBS-2): usage, finish reason and, when opted in, content. */
async function* tracedResponse(turn: ModelStepRun, step: number, attempt: number, continuation: Continuation): ReturnType<typeof streamResponse> {
  const call = turn.telemetry.modelCall({ step, attempt, input: contentFor(turn.telemetry, () => turn.messages) });
  try {
    const streamed = yield* streamResponse(turn, step, attempt, continuation);
    const { response } = streamed;
    const failed = response.stopReason === "error" ? (response.retry?.kind ?? "model_error") : response.stopReason === "aborted" ? "cancelled" : undefined;
    call.finish({ usage: response.usage, responseModel: turn.model.descriptor.model, finishReason: response.stopReason, ...(failed ? { error: failed } : {}), output: contentFor(turn.telemetry, () => response.content) });
    return streamed;
  } catch (error) {
    call.end({ error: error instanceof Error && "code" in error ? String(error.code) : "internal" });
    throw error;
  } finally {
    call.end();
  }
}

/** Streams one model request into output items; collects what was streamed for a retry record. */
async function* streamResponse(
  turn: ModelStepRun,
  step: number,
  attempt: number,
  continuation: Continuation,
): AsyncGenerator<OutputItemStreamChunk, { response: ModelResponse; partial: Block[]; searches: AgentWebSearchRecord[]; joinKey: string | undefined; startedCalls: number }, undefined> {
  const { projector, meter, model } = turn;
  const partial: Block[] = [];
  const blocks = new Map<number, Block>();
  const searches: AgentWebSearchRecord[] = [];
  let pendingSearch: string | undefined;
  let ringAt = meter.usage().used;
  const ids = toolCallIds(turn, step);
  const request = {
    requestId: modelRequestId(turn.runId, step),
    ...((turn.input.systemPrompt ?? turn.options.systemPrompt) === undefined ? {} : { systemPrompt: (turn.input.systemPrompt ?? turn.options.systemPrompt)! }),
    // A continuation sends the text so far and asks for the rest (OUT-7); the request is not history.
    messages: continuation.continuations === 0 ? [...turn.messages] : [...turn.messages, ...continuationMessages(continuation.prefix)],
    tools: turn.registry.specs,
    effort: turn.effort,
    webSearch: (turn.input.webSearch ?? turn.options.webSearch) !== false && (turn.options.modelAttributes?.webSearch ?? model.descriptor.webSearch ?? false),
  };
  let startedCalls = 0;
  let lastText: string | undefined;
  let lastType: Block["type"] | undefined;
  // The first block of a continuation, when it is text, appends to the text part it continues.
  let joinIndex: number | undefined;
  const keyOf = (index: number, type: Block["type"]): string => {
    if (blocks.size === 0 && type === "text" && continuation.join !== undefined) joinIndex = index;
    return index === joinIndex ? continuation.join! : `${step}:${attempt}:${index}`;
  };
  const block = <T extends Block>(index: number, make: () => T): T => {
    let found = blocks.get(index);
    if (!found) {
      found = make();
      blocks.set(index, found);
      partial.push(found);
    }
    return found as T;
  };
  for await (const event of model.stream(request, turn.context.signal)) {
    switch (event.type) {
      case "text_delta":
      case "reasoning_delta": {
        if (event.delta === "") break;
        const type = event.type === "text_delta" ? "text" : "reasoning";
        const key = keyOf(event.index, type);
        block(event.index, () => ({ type, text: "" }) as Block & { text: string }).text += event.delta;
        lastType = type;
        if (type === "text") lastText = key;
        meter.add(event.delta);
        yield* type === "text" ? projector.text(event.delta, key) : projector.reasoning(event.delta, key);
        // The ring follows long text and reasoning as it streams, in steps of RING_STEP tokens.
        if (meter.usage().used - ringAt >= RING_STEP) {
          ringAt = meter.usage().used;
          yield* projector.ring(meter.usage());
        }
        break;
      }
      case "toolcall_start":
        startedCalls++;
        lastType = "toolCall";
        yield* projector.endBlock();
        yield* projector.ring(meter.usage());
        break;
      case "toolcall_delta":
        meter.add(event.delta);
        break;
      case "toolcall_end": {
        const call = { ...event.toolCall, id: ids.next(event.toolCall.id) };
        block(event.index, () => call);
        lastType = "toolCall";
        yield* projector.toolCall({ id: call.id, name: call.name, arguments: call.arguments });
        yield* projector.ring(meter.usage());
        break;
      }
      case "web_search":
        if (event.status === "started") pendingSearch = event.query;
        else {
          const query = event.query ?? (event.status === "completed" ? pendingSearch : undefined);
          if (event.status === "completed") pendingSearch = undefined;
          const search: AgentWebSearchRecord = {
            position: event.position ?? blocks.size,
            sources: event.sources ?? [],
            ...(query === undefined ? {} : { query }),
            ...(event.status === "cited" ? { cited: true as const } : {}),
            ...(event.error === undefined ? {} : { error: event.error }),
          };
          searches.push(search);
          lastType = undefined;
          yield* projector.endBlock();
          yield* webSearchRows(turn, search, `web_search:${step}:${attempt}:${searches.length - 1}`);
        }
        break;
      case "done":
        yield* projector.endBlock();
        // The text part a continuation of this response would append to: its last block, when text.
        return { response: { ...event.response, content: ids.apply(event.response.content) }, partial, searches, joinKey: lastType === "text" ? lastText : undefined, startedCalls };
    }
  }
  return { response: { content: partial, usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }, stopReason: "error", errorMessage: "the model stream ended without a done event", retry: { retryable: true, kind: "dropped" } }, partial, searches, joinKey: undefined, startedCalls };
}
