import { approvalAsks, approvalExpired, createToolApprovalGate, toolApprovalRequestId } from "../../domain/approval-gate.js";
import { withApprovedCall } from "./approved-call.js";
import { isSteamharnessError, SteamharnessError, UserInputRequiredError } from "../../domain/errors.js";
import { parentToolCallIdOf, questionRequestId, runEventId } from "../../domain/agent/ids.js";
import type { JsonObject, JsonValue } from "../../domain/json.js";
import { approvalDecisionEvent, type SessionEventInput, type SessionEventTiming } from "../../domain/agent/session-events.js";
import type { OutputItemStreamChunk } from "../../domain/output-items.js";
import type { AgentTool } from "../../domain/agent-tool.js";
import type { ModelMessage, ModelToolCallBlock } from "../../ports/model-provider.js";
import { checkToolArguments } from "./tool-registry.js";
import { forkLineageOf, forkRecordEventId, forkRecordOf, repeatedHazard } from "../../domain/time-travel/fork.js";
import type { ToolStepRun } from "./turn-parts.js";
import { contentFor } from "./run-telemetry.js";

type ToolResultMessage = Extract<ModelMessage, { role: "toolResult" }>;
/** `timing`: when the tool ran (VIEW-7), for an outcome of a tool that was called. */
type Outcome = { isError: boolean; text: string; details: JsonValue; timing?: SessionEventTiming };

/** What the model is told when a tool's outcome is unknown after a crash (SES-4). */
export const UNKNOWN_OUTCOME_TEXT =
  "The outcome of this tool call is unknown: the run stopped while it was running, and the tool is not declared safe to repeat. Check the current state before deciding whether to call it again.";

const gate = createToolApprovalGate();

const errorText = (error: unknown): string =>
  isSteamharnessError(error) ? `[${error.code}] ${error.message}` : error instanceof Error ? error.message : String(error);

const toJson = (value: unknown): JsonValue => (value === undefined ? null : (JSON.parse(JSON.stringify(value)) as JsonValue));

/**
 * Records a pause: the approval wait is written once (SES-8), the tool row shows it, and the run
 * throws `user_input_required` with the request's stable id.
 */
async function pause(turn: ToolStepRun, call: ModelToolCallBlock, kind: "tool_approval" | "question", requestId: string, request: Record<string, unknown>): Promise<never> {
  await turn.append([{ eventId: runEventId(turn.runId, "tool", call.id, "wait"), runId: turn.runId, type: "approval_wait", payload: { requestId, kind, toolCallId: call.id } }]);
  throw new UserInputRequiredError(requestId, { ...request, kind, runId: turn.runId, toolCallId: call.id }, kind === "question" ? "the agent asks a question" : `approval required for ${call.name}`);
}

/**
 * Runs a request for a person's decision inside an approval-wait span (OBS-2): from the wait's
 * recorded start when an earlier part of the run paused on it, ended with the outcome.
 */
async function waitFor<T extends { outcome: string }>(turn: ToolStepRun, call: ModelToolCallBlock, kind: "tool_approval" | "question", request: () => Promise<T>): Promise<T> {
  const waited = turn.committed.get(runEventId(turn.runId, "tool", call.id, "wait"));
  const span = turn.telemetry.approvalWait({ kind, toolName: call.name, callId: call.id, ...(waited ? { startedAt: waited.at } : {}) });
  try {
    const response = await request();
    span.end({ attributes: { "steamharness.approval.outcome": response.outcome } });
    return response;
  } catch (error) {
    span.end({ error: isSteamharnessError(error) ? error.code : "internal" });
    throw error;
  }
}

async function decide(turn: ToolStepRun, call: ModelToolCallBlock, outcome: "approved" | "denied" | "answered" | "declined", requestId: string, extra: { values?: JsonObject; reason?: string; timing?: SessionEventTiming } = {}, answeredBy?: unknown): Promise<void> {
  const event = approvalDecisionEvent(runEventId(turn.runId, "tool", call.id, "decision"), turn.runId, { requestId, outcome, ...extra }, answeredBy);
  // Issue 47: a governed policy's own verdict is given again after a crash (deterministically, and
  // the approval audit chain has it): its allow needs no record, as a catalog auto-approval has
  // none, and its denial is committed with the call's result, not alone.
  if ((answeredBy as { surface?: unknown } | undefined)?.surface === "policy") return outcome === "approved" ? undefined : turn.defer([event]);
  await turn.append([event]);
}

/** `ask_user`: the answer comes from `askResume`, a recorded decision, or `context.userInput`. */
async function askUser(turn: ToolStepRun, call: ModelToolCallBlock): Promise<Outcome> {
  const requestId = questionRequestId(turn.runId, call.id);
  const recorded = turn.committed.get(runEventId(turn.runId, "tool", call.id, "decision"));
  const question = typeof call.arguments.question === "string" ? call.arguments.question : JSON.stringify(call.arguments);
  let answer: string | null;
  if (recorded?.type === "approval_decision") {
    answer = recorded.payload.outcome === "answered" ? String(recorded.payload.values?.answer ?? "") : null;
  } else {
    const resume = turn.input.askResume;
    const askedAt = turn.context.clock.now();
    const response = resume && (resume.requestId === undefined || resume.requestId === requestId)
      ? { outcome: "answered" as const, values: { answer: resume.answer }, answeredBy: resume.answeredBy }
      : await waitFor(turn, call, "question", () => turn.context.userInput.request({ requestId, runId: turn.runId, kind: "question", message: question, fields: [{ name: "answer", type: "string", required: true }] }, turn.context.signal));
    if (response.outcome === "pending") return pause(turn, call, "question", requestId, { question });
    if (response.outcome === "cancelled") throw new SteamharnessError("cancelled", "the question was cancelled");
    const raw = response.outcome === "answered" ? response.values.answer ?? Object.values(response.values)[0] : undefined;
    answer = response.outcome === "answered" ? (typeof raw === "string" ? raw : JSON.stringify(raw ?? "")) : null;
    // Answered while the run waited in this process (a terminal): how long the person took (VIEW-7).
    const timing = resume ? {} : { timing: { startedAt: askedAt, endedAt: turn.context.clock.now() } };
    await decide(turn, call, answer === null ? "declined" : "answered", requestId, answer === null ? timing : { values: { answer }, ...timing }, "answeredBy" in response ? response.answeredBy : undefined);
  }
  return answer === null
    ? { isError: false, text: "The user declined to answer.", details: { question } }
    : { isError: false, text: answer, details: { question, answer } };
}

/** The fork lineage of the run's session (FORK-2): one lookup per run, made only when an unsafe call is about to be approved. */
const lineages = new WeakMap<ToolStepRun, Promise<ReturnType<typeof forkLineageOf>>>();
const lineageOf = (turn: ToolStepRun): Promise<ReturnType<typeof forkLineageOf>> => {
  let lineage = lineages.get(turn);
  if (!lineage) lineages.set(turn, (lineage = turn.store.get(forkRecordEventId(turn.sessionKey)).then((event) => forkLineageOf(forkRecordOf(event)))));
  return lineage;
};

/**
 * Approval of a policy or catalog tool; resolves when it may run, or the denial outcome.
 * `fresh`: a person decides whatever the policy or catalog would grant (a fork's repeat of an
 * unsafe call its parent made, FORK-2).
 */
async function approve(turn: ToolStepRun, call: ModelToolCallBlock, fresh = false): Promise<Outcome | null> {
  const registered = turn.registry.get(call.name)!;
  const recorded = turn.committed.get(runEventId(turn.runId, "tool", call.id, "decision"));
  if (recorded?.type === "approval_decision") {
    return recorded.payload.outcome === "approved" ? null : { isError: true, text: `[approval_denied] ${call.name} was denied${recorded.payload.reason ? `: ${recorded.payload.reason}` : ""}`, details: null };
  }
  const requestId = toolApprovalRequestId(turn.runId, call.name, call.arguments, call.id);
  const waited = turn.committed.has(runEventId(turn.runId, "tool", call.id, "wait"));
  if (registered.governance === "catalog" && !fresh) {
    const approval = { name: call.name, arguments: call.arguments, toolCallId: call.id };
    // Decided in this process without a pause (a terminal prompt, a host's adapter): the decision
    // is recorded with how long it took, as for policy tools (VIEW-7).
    const inline = !waited && approvalAsks(approval, { toolCatalog: turn.registry.catalog, toolPermissions: turn.context.toolPermissions });
    const askedAt = turn.context.clock.now();
    const timing = (): { timing: SessionEventTiming } => ({ timing: { startedAt: askedAt, endedAt: turn.context.clock.now() } });
    let answeredBy: unknown;
    const onDecision = (decision: { answeredBy?: unknown }) => (answeredBy = decision.answeredBy);
    try {
      await gate.approve(approval, { runId: turn.runId, toolCatalog: turn.registry.catalog, toolPermissions: turn.context.toolPermissions, signal: turn.context.signal, onDecision, ...(turn.context.requester ? { requester: turn.context.requester } : {}) });
    } catch (error) {
      if (error instanceof UserInputRequiredError || isSteamharnessError(error, "user_input_required")) return pause(turn, call, "tool_approval", requestId, { toolId: call.name, arguments: call.arguments });
      if (isSteamharnessError(error, "approval_denied") || isSteamharnessError(error, "tool_not_registered")) {
        if (waited) await decide(turn, call, "denied", requestId, { reason: error.message }, answeredBy);
        else if (inline && isSteamharnessError(error, "approval_denied")) await decide(turn, call, "denied", requestId, { reason: error.message, ...timing() }, answeredBy);
        return { isError: true, text: errorText(error), details: null };
      }
      // GOV-2: an expiry is not a denial; the model is told so (or the run fails, if the policy says).
      if (isSteamharnessError(error, "approval_expired") && error.data?.then !== "fail") {
        await decide(turn, call, "denied", requestId, { reason: errorText(error) }, answeredBy);
        return { isError: true, text: errorText(error), details: toJson(error.toJSON()) };
      }
      throw error;
    }
    // Auto-approved calls need no record; a decision (after a wait, or inline) is kept.
    if (waited) await decide(turn, call, "approved", requestId, {}, answeredBy);
    else if (inline) await decide(turn, call, "approved", requestId, timing(), answeredBy);
    return null;
  } else if (registered.access === "ask" || fresh) {
    const askedAt = turn.context.clock.now();
    const decision = await waitFor(turn, call, "tool_approval", () => turn.context.toolPermissions.request({ requestId, runId: turn.runId, toolId: call.name, arguments: call.arguments, toolCallId: call.id, ...(turn.context.requester ? { requestedBy: turn.context.requester } : {}) }, turn.context.signal));
    if (decision.outcome === "pending") return pause(turn, call, "tool_approval", requestId, { toolId: call.name, arguments: call.arguments });
    const timing = { startedAt: askedAt, endedAt: turn.context.clock.now() };
    if (decision.outcome === "expired") {
      const expired = approvalExpired(call.name, requestId, decision);
      if (decision.then === "fail") throw expired;
      await decide(turn, call, "denied", requestId, { reason: errorText(expired), timing });
      return { isError: true, text: errorText(expired), details: toJson(expired.toJSON()) };
    }
    if (decision.outcome === "denied") {
      await decide(turn, call, "denied", requestId, { ...(decision.reason ? { reason: decision.reason } : {}), timing }, decision.answeredBy);
      return { isError: true, text: `[approval_denied] ${call.name} was denied${decision.reason ? `: ${decision.reason}` : ""}`, details: null };
    }
    await decide(turn, call, "approved", requestId, { timing }, decision.answeredBy);
    return null;
  }
  return null;
}

async function execute(turn: ToolStepRun, call: ModelToolCallBlock): Promise<Outcome> {
  const { tool } = turn.registry.get(call.name)!;
  const started: SessionEventInput = { eventId: runEventId(turn.runId, "tool", call.id, "started"), runId: turn.runId, type: "tool_started", payload: { toolCallId: call.id } };
  // A tool that may not run twice is marked started before it runs (SES-4: after a crash its
  // outcome is unknown). A safe one runs again after a crash anyway, so its start is held and
  // committed with its result, at the run's next step.
  if (tool.replay === "safe") turn.defer([started]);
  else await turn.append([started]);
  const calledAt = turn.context.clock.now();
  const timing = (): SessionEventTiming => ({ startedAt: calledAt, endedAt: turn.context.clock.now() });
  const span = turn.telemetry.toolCall({ name: call.name, callId: call.id, arguments: contentFor(turn.telemetry, () => call.arguments) });
  try {
    // One decision per call (CAP-11): a tool asking the gate again while it runs gets this one.
    const result = await withApprovedCall(turn.context.toolPermissions, call, () => tool.execute(call.id, call.arguments, turn.context.signal));
    const text = result.content.map((block) => block.text).join("\n");
    span.end({ attributes: { result: contentFor(turn.telemetry, () => text) } });
    return { isError: false, text, details: toJson(result.details), timing: timing() };
  } catch (error) {
    span.end({ error: error instanceof UserInputRequiredError ? "user_input_required" : isSteamharnessError(error) ? error.code : error instanceof Error ? error.name : "internal" });
    if (turn.context.signal.aborted) throw new SteamharnessError("cancelled", "the agent run was cancelled", { cause: error });
    if (error instanceof UserInputRequiredError) {
      // A tool that pauses by itself has not done its work; it runs again on resume.
      await turn.append([]);
      const startedAt = turn.committed.get(started.eventId)!;
      await turn.append([{ eventId: runEventId(turn.runId, "tool", call.id, "paused", startedAt.seq), runId: turn.runId, type: "approval_wait", payload: { requestId: error.requestId, kind: "tool_approval", toolCallId: call.id } }]);
      throw error;
    }
    return { isError: true, text: errorText(error), details: isSteamharnessError(error) ? toJson(error.toJSON()) : null, timing: timing() };
  }
}

/**
 * Session hooks (EXT-2) decide before the approval, so a person approves (and the tool runs with)
 * the arguments a hook rewrote, and a call a hook denies never asks anyone. Returns the call to
 * approve and run, or the outcome that replaces it.
 */
async function applyToolHooks(turn: ToolStepRun, tool: AgentTool, call: ModelToolCallBlock): Promise<ModelToolCallBlock | Outcome> {
  if (!turn.extensions.hooks.active) return call;
  let decision: { arguments: JsonObject } | { deny: string };
  try {
    const parent = parentToolCallIdOf(call.id);
    decision = await turn.extensions.hooks.beforeTool({ runId: turn.runId, toolCallId: call.id, name: call.name, arguments: call.arguments, ...(parent ? { parentToolCallId: parent } : {}) });
  } catch (error) {
    // The loop fails the run on the hooks' fault after this call.
    return { isError: true, text: errorText(error), details: isSteamharnessError(error) ? toJson(error.toJSON()) : null };
  }
  if ("deny" in decision) return { isError: true, text: `[approval_denied] ${call.name} was denied by a session hook: ${decision.deny}`, details: null };
  if (decision.arguments === call.arguments) return call;
  const problem = checkToolArguments(tool, decision.arguments);
  if (problem) return { isError: true, text: `[input_validation] after a session hook's rewrite: ${problem}`, details: null };
  return { ...call, arguments: decision.arguments };
}

/**
 * What one tool call comes to, without its message: replays nothing, approves (pausing with
 * `user_input_required`), runs. Also runs a codemode snippet's nested calls (EXT-4).
 *
 * @example
 * const outcome = await outcomeOf(turn, { type: "toolCall", id: "call_1#0", name: "read", arguments: { path: "a" } });
 */
export async function outcomeOf(turn: ToolStepRun, call: ModelToolCallBlock): Promise<Outcome> {
  const registered = turn.registry.get(call.name);
  if (!registered) return { isError: true, text: `[tool_not_registered] tool ${call.name} is not available in this run`, details: null };
  // A replay answers from its recording before anything is asked or run (REPLAY-1).
  const answered = turn.toolAnswers ? await turn.toolAnswers(call, registered.tool) : null;
  if (answered) return answered;
  if (call.name === "ask_user") return askUser(turn, call);
  const started = turn.committed.get(runEventId(turn.runId, "tool", call.id, "started"));
  if (started && !turn.committed.has(runEventId(turn.runId, "tool", call.id, "paused", started.seq))) {
    // The call began and no result was committed: its outcome is unknown (SES-4).
    if (registered.tool.replay === "safe") {
      const hooked = await applyToolHooks(turn, registered.tool, call);
      return "isError" in hooked ? hooked : execute(turn, hooked);
    }
    return { isError: true, text: UNKNOWN_OUTCOME_TEXT, details: { outcome: "unknown" } };
  }
  const problem = checkToolArguments(registered.tool, call.arguments);
  if (problem) return { isError: true, text: `[input_validation] ${problem}`, details: null };
  const hooked = await applyToolHooks(turn, registered.tool, call);
  if ("isError" in hooked) return hooked;
  call = hooked;
  // In a fork, a repeat of an unsafe call the parent made after the fork point is never covered
  // by the parent's approval or the catalog: it gets a fresh decision, or the parent's recorded
  // result when the fork was made with `effects: "recorded"` (FORK-2).
  const repeat = registered.tool.replay === "safe" ? null : repeatedHazard(await lineageOf(turn), call);
  if (repeat?.recorded) return { isError: repeat.recorded.isError, text: repeat.recorded.text, details: { recorded: { runId: repeat.hazard.runId, toolCallId: repeat.hazard.toolCallId } } };
  const denied = await approve(turn, call, repeat !== null);
  if (denied) return denied;
  return execute(turn, call);
}

/**
 * One tool call: replays a committed result, or approves (policy, catalog gate, or a person —
 * pausing with `user_input_required`), runs and commits it — a `replay: "safe"` tool's result
 * with the run's next step. Returns the tool result message.
 *
 * @example
 * const result = yield* toolStep(turn, call);
 */
export async function* toolStep(turn: ToolStepRun, call: ModelToolCallBlock): AsyncGenerator<OutputItemStreamChunk, ToolResultMessage, undefined> {
  const resultId = runEventId(turn.runId, "tool", call.id, "result");
  let committed = turn.committed.get(resultId);
  if (committed?.type !== "tool_result") {
    let outcome: Outcome;
    try {
      outcome = await outcomeOf(turn, call);
    } catch (error) {
      if (error instanceof UserInputRequiredError) yield* turn.projector.toolStatus(call.id, error.request.kind === "question" ? "awaiting_input" : "awaiting_approval");
      throw error;
    }
    const message: ToolResultMessage = { role: "toolResult", toolCallId: call.id, toolName: call.name, content: [{ type: "text", text: outcome.text }], isError: outcome.isError };
    const result = { eventId: resultId, runId: turn.runId, type: "tool_result" as const, payload: { message, details: outcome.details, ...(outcome.timing ? { timing: outcome.timing } : {}) } };
    if (turn.registry.get(call.name)?.tool.replay === "safe") {
      // A safe tool runs again after a crash anyway (SES-4), so its start and result are
      // committed with the run's next step (the model's next response, a pause, or the run's end).
      turn.defer([result]);
      committed = { ...result, seq: 0, at: 0 };
    } else {
      await turn.append([result]);
      committed = turn.committed.get(resultId);
    }
  }
  if (committed?.type !== "tool_result") throw new SteamharnessError("storage_failure", `tool result of ${call.id} was not stored`);
  const { message, details } = committed.payload;
  const text = message.content.map((block) => block.text).join("\n");
  turn.meter.add(text);
  yield* turn.projector.toolResult(call.id, { isError: message.isError, text, details });
  yield* turn.projector.ring(turn.meter.usage());
  return message;
}
