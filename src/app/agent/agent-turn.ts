import { budgetAttributes } from "../../domain/budget/budget-view.js";
import { isSteamharnessError, SteamharnessError, UserInputRequiredError } from "../../domain/errors.js";
import { runEventId } from "../../domain/agent/ids.js";
import { createAgentOutputProjector } from "../../domain/agent/output-projector.js";
import type { JsonObject } from "../../domain/json.js";
import { createOutputStreamAccumulator, type OutputStreamAccumulator } from "../../domain/output-stream.js";
import { contextRingItem } from "../../domain/session-host/snapshot.js";
import type { OutputItemStreamChunk } from "../../domain/output-items.js";
import type { ContextMeter } from "../../domain/agent/context-meter.js";
import type { NodeContext } from "../../domain/node-context.js";
import { compactionStep } from "./compaction-step.js";
import { modelStep, throwIfCancelled } from "./model-step.js";
import { planStep } from "./plan-step.js";
import { steerStep } from "./steer-step.js";
import { outcomeOf, toolStep } from "./tool-step.js";
import { sessionAddressOf } from "./session-resolver.js";
import { prepareTurn, runFinishedEvent, type AgentCache, type Turn } from "./turn.js";
import type { RunSummary } from "./turn-parts.js";
import type { AgentInput, AgentInternalOptions, AgentOptions } from "./types.js";

const DEFAULT_MAX_STEPS = 64;

/**
 * The run's `agent-session` content (OUT-1, OUT-8): what the turn used, its `contextUsage`,
 * `contexts[]` (this session's context with its ring output, as a host snapshot has them, HOST-6)
 * and `turns[]` (this run, with its usage and its output `items` so far, in output order).
 */
function sessionContent(turn: RunSummary, status: string, items: OutputStreamAccumulator): JsonObject {
  const contextUsage = turn.meter.usage();
  const ownItems = items.items().filter((item) => item.id !== turn.projector.ringItemId && item.metadata.kind !== "agent-session");
  return {
    ...runFields(turn, status),
    contextUsage: { ...contextUsage },
    contexts: [{ sessionKey: turn.sessionKey, active: true, usage: { ...contextUsage }, outputs: [contextRingItem(turn.sessionKey, contextUsage) as unknown as JsonObject] }],
    turns: [{ runId: turn.runId, prompt: turn.start.prompt, status, usage: { ...turn.usage }, items: ownItems as unknown as JsonObject[] }],
    ...(turn.budget ? { budget: turn.budget.view() as unknown as JsonObject } : {}),
  };
}

function runFields(turn: RunSummary, status: string): JsonObject {
  return {
    version: 1,
    sessionId: turn.sessionId,
    sessionKey: turn.sessionKey,
    runId: turn.runId,
    status,
    prompt: turn.start.prompt,
    workdir: turn.start.workdir,
    provider: turn.start.provider,
    model: turn.start.model,
    effort: turn.start.effort,
    agent: turn.start.mode,
    toolCallCount: turn.toolCallCount,
    usage: { ...turn.usage },
  };
}

async function* loop(turn: Turn): AsyncGenerator<OutputItemStreamChunk, void, undefined> {
  const maxSteps = turn.options.maxSteps ?? DEFAULT_MAX_STEPS;
  let planIndex = 0;
  let segmentStart = turn.turnStart;
  for (let step = 0; ; step++) {
    throwIfCancelled(turn);
    if (step >= maxSteps) throw new SteamharnessError("model_error", `the run exceeded ${maxSteps} model requests`, { data: { maxSteps } });
    // The plan of this segment is read from what follows the summary.
    if (yield* compactionStep(turn, step)) segmentStart = turn.messages.length;
    // Tools a search loaded are offered from the next request on (EXT-3).
    turn.registry = turn.registryFor(turn.mode);
    const message = yield* modelStep(turn, step);
    turn.messages.push(message);
    yield* turn.projector.ring(turn.meter.usage());
    const calls = message.content.filter((block) => block.type === "toolCall");
    for (const call of calls) {
      throwIfCancelled(turn);
      turn.toolCallCount++;
      turn.budget?.checkToolCalls(turn.toolCallCount);
      // A catalog tool called without a search is connected now (EXT-3), unless already settled.
      if (!turn.registry.get(call.name) && !turn.committed.has(runEventId(turn.runId, "tool", call.id, "result")) && (await turn.extensions.loadCalled(call.name))) turn.registry = turn.registryFor(turn.mode);
      turn.messages.push(yield* toolStep(turn, call));
      // A tool hook that threw fails the run (EXT-2), not only the call.
      if (turn.extensions.hooks.fault) throw turn.extensions.hooks.fault;
      // A codemode snippet's nested calls, as rows under its own (EXT-4).
      for (const chunk of turn.extensions.nestedRows(call.id)) yield chunk;
    }
    if (calls.length > 0) {
      // UI-5: the step boundary, where messages steered into the run join it.
      await steerStep(turn, step);
      continue;
    }
    if (turn.mode !== "plan") return;
    const outcome = yield* planStep(turn, planIndex++, segmentStart);
    if (outcome === "end") return;
    segmentStart = turn.messages.length;
    if (outcome === "build") {
      turn.mode = "build";
      turn.registry = turn.registryFor("build");
    }
  }
}

/**
 * Runs or resumes one agent turn as a stream of output items. The session item and the context
 * ring come first (AG-7: before the first model response). Committed steps are replayed from the
 * session log, the rest run live (SES-3). A pause or cancel throws without an error item; any
 * other failure emits `agent-error` and then throws (SES-9).
 *
 * @example
 * for await (const chunk of runAgentTurn(options, createAgentCache(), meter, { prompt: "hi" }, context)) render(chunk);
 */
export async function* runAgentTurn(options: AgentInternalOptions, cache: AgentCache, meter: ContextMeter, input: AgentInput, context: NodeContext): AsyncGenerator<OutputItemStreamChunk, void, undefined> {
  let turn: Turn | null = null;
  // The run's own items, for `turns[].items` of its session item (OUT-8).
  const items = createOutputStreamAccumulator();
  try {
    turn = await prepareTurn(options, cache, meter, input, context);
    const prepared = turn;
    prepared.extensions.setToolCallRunner((call) => outcomeOf(prepared, call));
    // Occupancy before the first response: an estimate of everything the model will be sent.
    meter.reset();
    meter.add(`${input.systemPrompt ?? options.systemPrompt ?? ""}${JSON.stringify(turn.messages)}${JSON.stringify(turn.registry.specs)}`);
    await turn.budget?.refresh();
    yield* turn.projector.session(sessionContent(turn, "running", items));
    yield* turn.projector.ring(meter.usage());
    for await (const chunk of loop(turn)) {
      items.push(chunk);
      yield chunk;
    }
    // The budgets as the run ends go into its end event (the viewer draws them) and its span.
    await turn.budget?.refresh();
    await turn.append([runFinishedEvent(turn)]);
    if (turn.budget) turn.telemetry.set(budgetAttributes(turn.budget.view()));
    turn.telemetry.finish({ status: "completed", usage: turn.usage });
    await turn.extensions.hooks.runEnd({ runId: turn.runId, status: "completed" });
    for (const chunk of turn.projector.finish()) items.push(chunk), yield chunk;
    yield* turn.projector.session(sessionContent(turn, "completed", items));
    yield* turn.projector.ring(meter.usage());
  } catch (error) {
    const paused = isSteamharnessError(error, "user_input_required");
    const cancelled = isSteamharnessError(error, "cancelled") || context.signal.aborted;
    if (!turn && !paused && !cancelled) {
      // Failed before the run was set up (model selection, session store): still an error item.
      const projector = createAgentOutputProjector({ runId: input.runId ?? context.runId, sessionKey: sessionAddressOf(options, context).sessionKey, answerItemId: null });
      yield* projector.error(isSteamharnessError(error) ? error.code : "internal", error instanceof Error ? error.message : String(error));
    }
    if (turn) {
      // How the run stopped goes into its log (the node's execution history), with whatever the
      // run still holds; a store that fails here has already failed the run (SES-5). One event
      // per stop point: its id counts the run's other events, so stopping again where it stopped
      // before (a pause asked again while undecided) appends nothing.
      const status = paused ? "waiting" : cancelled ? "cancelled" : "failed";
      const code = isSteamharnessError(error) ? error.code : "internal";
      await turn.budget?.refresh().catch(() => undefined);
      const budget = turn.budget?.view();
      if (budget) turn.telemetry.set(budgetAttributes(budget));
      turn.telemetry.finish({ status, usage: turn.usage, ...(status === "failed" ? { error: code } : {}) });
      let progress = 0;
      for (const event of turn.committed.values()) if (event.type !== "run_stopped") progress++;
      await turn
        .append([{ eventId: runEventId(turn.runId, "stopped", progress), runId: turn.runId, type: "run_stopped", payload: { status, toolCallCount: turn.toolCallCount, ...(error instanceof UserInputRequiredError ? { requestId: error.requestId } : {}), ...(status === "failed" ? { code } : {}), ...(budget ? { budget } : {}) } }])
        .catch(() => undefined);
      // EXT-2: a hook failing here still ends the run with an error item, never silently.
      let hookError: unknown = null;
      try {
        if (paused) await turn.extensions.hooks.pause({ runId: turn.runId, requestId: (error as UserInputRequiredError).requestId, request: (error as UserInputRequiredError).request });
        else await turn.extensions.hooks.runEnd({ runId: turn.runId, status: cancelled ? "cancelled" : "failed", error: error instanceof Error ? error.message : String(error) });
      } catch (caught) {
        if (!isSteamharnessError(error, "hook_failed")) hookError = caught;
      }
      if (hookError) {
        for (const chunk of turn.projector.error("hook_failed", hookError instanceof Error ? hookError.message : String(hookError))) items.push(chunk), yield chunk;
        const finished = turn.projector.finish();
        items.pushAll(finished);
        yield* turn.projector.session(sessionContent(turn, "failed", items));
        yield* finished;
        throw hookError;
      }
      if (!paused && !cancelled) {
        const message = error instanceof Error ? error.message : String(error);
        // BUD-3: a budget stop says what was spent, the limit and the scope on the error item.
        const facts = isSteamharnessError(error, "budget_exceeded") ? { budget: error.data as JsonObject } : undefined;
        for (const chunk of turn.projector.error(code, message, facts)) items.push(chunk), yield chunk;
      }
      const finished = turn.projector.finish();
      items.pushAll(finished);
      yield* turn.projector.session(sessionContent(turn, paused || cancelled ? status : "failed", items));
      yield* finished;
    }
    throw error;
  } finally {
    // A consumer that stops reading ends the run here: the call whose settle waited for the next
    // reservation is settled (BUD-2), not left held.
    await turn?.budget?.flush().catch(() => undefined);
    await turn?.close();
  }
}
