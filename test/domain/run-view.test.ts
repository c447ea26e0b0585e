import { agentItemIdPrefix, runEventId } from "../../src/domain/agent/ids.js";
import { createAgentOutputProjector, createAgentOutputState, projectAgentOutput, type AgentOutputEvent } from "../../src/domain/agent/output-projector.js";
import { applyRunEvent } from "../../src/domain/agent/run-view-reducer.js";
import { createRunViewState, type RunViewState } from "../../src/domain/agent/run-view.js";
import type { RunStartedPayload, SessionEvent, SessionEventInput } from "../../src/domain/agent/session-events.js";
import type { OutputItem } from "../../src/domain/output-items.js";
import { createOutputStreamAccumulator } from "../../src/domain/output-stream.js";

const RUN = "run-arch5";
const prefix = agentItemIdPrefix(RUN);
const start: RunStartedPayload = { prompt: "read a", mode: "build", workdir: "/w", effort: "medium", provider: "offline", model: "m", modelSource: { source: "injected", id: "m" }, configuration: null, answerItemId: null };

/** Stored events of one run, numbered as a store would. */
function stored(inputs: SessionEventInput[]): SessionEvent[] {
  return inputs.map((input, index) => ({ ...input, seq: index + 1, at: 1_000 + index }) as SessionEvent);
}

/** Applies events with the reducer and returns the state and the items its chunks build. */
function reduce(events: SessionEvent[], state: RunViewState = createRunViewState({ runId: RUN, sessionKey: "agent" })) {
  const accumulator = createOutputStreamAccumulator();
  for (const event of events) accumulator.pushAll(applyRunEvent(state, event));
  return { state, items: accumulator.items() };
}

const shape = (items: OutputItem[]) => items.map((item) => [item.metadata.kind, item.metadata.partType ?? null, item.content, item.done]);

describe("ARCH-5 the output projector as per-event handlers over a small state", () => {
  const events: AgentOutputEvent[] = [
    { type: "text", delta: "I'll read ", block: "0:0:0" },
    { type: "text", delta: "it.", block: "0:0:0" },
    { type: "endBlock" },
    { type: "toolCall", call: { id: "c1", name: "read", arguments: { path: "a" } } },
    { type: "toolStatus", toolCallId: "c1", status: "awaiting_approval" },
    { type: "toolResult", toolCallId: "c1", result: { isError: false, text: "A" } },
    { type: "reasoning", delta: "thinking", block: "1:0:0" },
    { type: "endBlock" },
    { type: "text", delta: "Done.", block: "1:0:1" },
    { type: "retry", row: { kind: "dropped", attempt: 1, max: 3, message: "reset" } },
    { type: "notice", text: "Sources:\n- [x](https://x)", extra: { sources: true } },
    { type: "finish" },
  ];

  it("OUT-2 text stays where it was spoken: a tool row closes the text before it; each handler streams its own chunks", () => {
    const state = createAgentOutputState({ runId: RUN, sessionKey: "agent", answerItemId: null });
    const accumulator = createOutputStreamAccumulator();
    const perEvent = events.map((event) => projectAgentOutput(state, event));
    for (const chunks of perEvent) accumulator.pushAll(chunks);
    expect(shape(accumulator.items())).toEqual([
      ["agent-part", "text", "I'll read it.", true],
      ["agent-part", "tool", { tool: "read", toolCallId: "c1", arguments: { path: "a" }, status: "completed", result: "A" }, true],
      ["agent-part", "reasoning", "thinking", true],
      ["agent-part", "text", "Done.", true],
      ["agent-part", "retry", { kind: "dropped", attempt: 1, max: 3, label: expect.any(String), message: "reset" }, true],
      ["agent-notice", null, "Sources:\n- [x](https://x)", true],
    ]);
    // The text part is closed by the tool row (activity), not by its end of block (OUT-4 may still take it).
    expect(perEvent[2]).toEqual([]);
    expect(perEvent[3]?.[0]).toEqual({ type: "done", id: `${prefix}0` });
    expect(state.counter).toBe(6);
    expect(state.open).toBeNull();
  });

  it("ARCH-5 the method projector is the handlers over one state: the same calls give the same chunks", () => {
    const state = createAgentOutputState({ runId: RUN, sessionKey: "agent", answerItemId: null });
    const projector = createAgentOutputProjector({ runId: RUN, sessionKey: "agent", answerItemId: null });
    const viaMethods = [
      projector.text("I'll read ", "0:0:0"),
      projector.text("it.", "0:0:0"),
      projector.endBlock(),
      projector.toolCall({ id: "c1", name: "read", arguments: { path: "a" } }),
      projector.toolStatus("c1", "awaiting_approval"),
      projector.toolResult("c1", { isError: false, text: "A" }),
      projector.reasoning("thinking", "1:0:0"),
      projector.endBlock(),
      projector.text("Done.", "1:0:1"),
      projector.retry({ kind: "dropped", attempt: 1, max: 3, message: "reset" }),
      projector.notice("Sources:\n- [x](https://x)", { sources: true }),
      projector.finish(),
    ];
    expect(viaMethods).toEqual(events.map((event) => projectAgentOutput(state, event)));
  });

  it("OUT-4 the final plan takes the text parts after the last tool row in place; OUT-1 a host-driven run writes one agent-answer item", () => {
    const state = createAgentOutputState({ runId: RUN, sessionKey: "agent", answerItemId: null });
    const accumulator = createOutputStreamAccumulator();
    for (const event of [{ type: "text", delta: "Plan:", block: "0:0:0" }, { type: "endBlock" }, { type: "text", delta: " 1. read", block: "0:0:1" }, { type: "finalPlan", text: "Plan: 1. read" }] as AgentOutputEvent[]) accumulator.pushAll(projectAgentOutput(state, event));
    expect(accumulator.items().map((item) => [item.metadata.kind, item.metadata.plan ?? item.metadata.mergedIntoPlan ?? null, item.content])).toEqual([
      ["agent-notice", true, "Plan: 1. read"],
      ["agent-part", true, ""],
    ]);

    const host = createAgentOutputState({ runId: RUN, sessionKey: "agent", answerItemId: "answer-1" });
    const answer = createOutputStreamAccumulator();
    for (const event of [{ type: "text", delta: "One.", block: "0:0:0" }, { type: "toolCall", call: { id: "c1", name: "read", arguments: {} } }, { type: "text", delta: "Two.", block: "1:0:0" }, { type: "finish" }] as AgentOutputEvent[]) answer.pushAll(projectAgentOutput(host, event));
    expect(answer.get("answer-1")).toMatchObject({ content: "One.\n\nTwo.", done: true, metadata: { kind: "agent-answer" } });
  });
});

describe("ARCH-5 the run replay's event → view reducer in the domain (VIEW-1)", () => {
  const call = { type: "toolCall" as const, id: "c1", name: "present", arguments: { card: "k" } };
  const paused = stored([
    { eventId: runEventId(RUN, "start"), runId: RUN, type: "run_started", payload: start },
    { eventId: runEventId(RUN, "prompt"), runId: RUN, type: "user_message", payload: { message: { role: "user", content: "read a" } } },
    { eventId: runEventId(RUN, "model", 0), runId: RUN, type: "assistant_message", payload: { message: { role: "assistant", content: [{ type: "text", text: "Showing it." }, call] }, stopReason: "toolUse", step: 0, attempt: 0 } },
    { eventId: runEventId(RUN, "tool", "c1", "intent"), runId: RUN, type: "tool_intent", payload: { toolCallId: "c1", toolName: "present", arguments: { card: "k" }, replay: "never" } },
    { eventId: runEventId(RUN, "model", 0, "usage", 0), runId: RUN, type: "usage", payload: { entry: { entryId: "u0", runId: RUN, provider: "offline", model: "m", at: 1, input: 10, output: 5, cacheRead: 0, cacheWrite: 0, total: 15 } } },
    { eventId: runEventId(RUN, "tool", "c1", "wait"), runId: RUN, type: "approval_wait", payload: { requestId: "req-1", kind: "tool_approval", toolCallId: "c1" } },
    { eventId: runEventId(RUN, "stopped", 6), runId: RUN, type: "run_stopped", payload: { status: "waiting", toolCallCount: 1, requestId: "req-1" } },
  ]);
  const resumed = stored([
    { eventId: runEventId(RUN, "tool", "c1", "decision"), runId: RUN, type: "approval_decision", payload: { requestId: "req-1", outcome: "approved" } },
    { eventId: runEventId(RUN, "tool", "c1", "started"), runId: RUN, type: "tool_started", payload: { toolCallId: "c1" } },
    { eventId: runEventId(RUN, "tool", "c1", "result"), runId: RUN, type: "tool_result", payload: { message: { role: "toolResult", toolCallId: "c1", toolName: "present", content: [{ type: "text", text: "shown" }], isError: false }, details: { cardCommand: { action: "upsert", cardId: "k", title: "K" } } } },
    { eventId: runEventId(RUN, "model", 1, "retry", 1), runId: RUN, type: "model_retry", payload: { step: 1, attempt: 1, max: 3, kind: "length", errorMessage: "cut", partial: [{ type: "text", text: "All " }], joinKey: "1:0:0" } },
    { eventId: runEventId(RUN, "model", 1), runId: RUN, type: "assistant_message", payload: { message: { role: "assistant", content: [{ type: "text", text: "All done." }] }, shown: [{ type: "text", text: "done." }], stopReason: "stop", step: 1, attempt: 1 } },
    { eventId: runEventId(RUN, "end"), runId: RUN, type: "run_finished", payload: { status: "completed", toolCallCount: 1 } },
  ]).map((event, index) => ({ ...event, seq: paused.length + index + 1 }));

  it("VIEW-1 a paused run: waiting, its request names the tool, the row awaits approval, usage counted", () => {
    const { state, items } = reduce(paused);
    expect(state.status).toBe("waiting");
    expect([...state.waits.values()]).toEqual([{ requestId: "req-1", kind: "tool_approval", toolCallId: "c1", toolName: "present", arguments: { card: "k" } }]);
    expect(state.prompt).toBe("read a");
    expect(state.toolCallCount).toBe(1);
    expect(state.usage).toEqual({ input: 10, output: 5, cacheRead: 0, cacheWrite: 0, total: 15 });
    expect(shape(items)).toEqual([
      ["agent-part", "text", "Showing it.", true],
      ["agent-part", "tool", { tool: "present", toolCallId: "c1", arguments: { card: "k" }, status: "awaiting_approval" }, false],
    ]);
  });

  it("VIEW-1 the same run resumed and finished: decision kept, card command kept, a silent continuation joins its text (OUT-7)", () => {
    const state = createRunViewState({ runId: RUN, sessionKey: "agent" });
    reduce(paused, state);
    // Applied in two pages or at once: the same items.
    const { items } = reduce([...paused, ...resumed]);
    const after = reduce(resumed, state);
    expect(after.state.status).toBe("completed");
    expect(after.state.waits.size).toBe(0);
    expect(after.state.decisions).toEqual({ "req-1": { outcome: "approved" } });
    expect([...after.state.cards.values()]).toEqual([{ cardId: "k", command: { action: "upsert", cardId: "k", title: "K" }, toolCallId: "c1" }]);
    expect(shape(items)).toEqual([
      ["agent-part", "text", "Showing it.", true],
      ["agent-part", "tool", { tool: "present", toolCallId: "c1", arguments: { card: "k" }, status: "completed", result: "shown", cardCommand: { action: "upsert", cardId: "k", title: "K" } }, true],
      ["agent-part", "text", "All done.", true],
      ["agent-part", "retry", { kind: "length", attempt: 1, max: 3, label: expect.any(String), message: "cut" }, true],
    ]);
    expect(items[3]?.metadata.silent).toBe(true);
  });

  it("VIEW-1 a failed run ends with an agent-error item naming the code; a later start sets it running again", () => {
    const failed = stored([
      { eventId: runEventId(RUN, "start"), runId: RUN, type: "run_started", payload: start },
      { eventId: runEventId(RUN, "stopped", 1), runId: RUN, type: "run_stopped", payload: { status: "failed", toolCallCount: 0, code: "model_error" } },
    ]);
    const { state, items } = reduce(failed);
    expect(state.status).toBe("failed");
    expect(state.errorCode).toBe("model_error");
    expect(shape(items)).toEqual([["agent-error", null, "The run failed (model_error).", true]]);
    applyRunEvent(state, { eventId: runEventId(RUN, "prompt"), runId: RUN, type: "user_message", payload: { message: { role: "user", content: "again" } }, seq: 3, at: 3 });
    expect(state.status).toBe("running");
  });
});
