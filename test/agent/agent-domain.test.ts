import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { createContextMeter, estimateTokens } from "../../src/domain/agent/context-meter.js";
import { completeToolResults, MISSING_RESULT_TEXT } from "../../src/domain/agent/history.js";
import { agentItemId, agentItemIdPrefix, modelRequestId, planRequestId, questionRequestId, usageEntryId } from "../../src/domain/agent/ids.js";
import { createAgentOutputProjector } from "../../src/domain/agent/output-projector.js";
import { extractFinalPlan } from "../../src/domain/agent/plan.js";
import { retryDelay, retryLabel, shouldRetry } from "../../src/domain/agent/retry.js";
import { nextRunStatus, runStatusFromEvents, type AgentRunStatus, type AgentRunTransition } from "../../src/domain/agent/run-state.js";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { createOutputStreamAccumulator } from "../../src/domain/output-stream.js";
import { canonicalJson, stableHash } from "../../src/domain/stable-hash.js";
import type { ModelMessage } from "../../src/ports/model-provider.js";

/** canonicalJson as first written (sorted entries, map and join): the reference canonicalJson must equal. */
function canonicalJsonFirst(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJsonFirst(item)).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJsonFirst(item)}`).join(",")}}`;
}

/** FNV-1a 64 as first written, on BigInt: the reference stableHash must equal. */
function fnv1a64(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) hash = ((hash ^ BigInt(text.charCodeAt(i))) * 0x100000001b3n) & 0xffffffffffffffffn;
  return hash.toString(16).padStart(16, "0");
}

const STATUSES: AgentRunStatus[] = ["new", "running", "waiting", "completed", "failed", "cancelled"];
const TRANSITIONS: AgentRunTransition[] = ["start", "wait", "resume", "complete", "fail", "cancel"];
const ALLOWED: Record<string, AgentRunStatus> = {
  "new start": "running",
  "running start": "running", "running wait": "waiting", "running complete": "completed", "running fail": "failed", "running cancel": "cancelled",
  "waiting resume": "running", "waiting start": "running", "waiting cancel": "cancelled",
  "failed start": "running",
  "completed start": "completed",
};

describe("agent domain", () => {
  it("run states: every (state, transition) pair is allowed exactly as listed, others are invalid_transition", () => {
    for (const status of STATUSES) {
      for (const transition of TRANSITIONS) {
        const expected = ALLOWED[`${status} ${transition}`];
        if (expected) expect(nextRunStatus(status, transition)).toBe(expected);
        else {
          let error: unknown;
          try {
            nextRunStatus(status, transition);
          } catch (caught) {
            error = caught;
          }
          expect(isSteamharnessError(error, "invalid_transition")).toBe(true);
        }
      }
    }
  });

  it("SES-8 run status from events: new, running, waiting until decided, completed", () => {
    const wait = { eventId: "r/w", runId: "r", type: "approval_wait" as const, payload: { requestId: "q", kind: "tool_approval" as const } };
    const decision = { eventId: "r/d", runId: "r", type: "approval_decision" as const, payload: { requestId: "q", outcome: "approved" as const } };
    const end = { eventId: "r/e", runId: "r", type: "run_finished" as const, payload: { status: "completed" as const, toolCallCount: 0 } };
    expect(runStatusFromEvents([])).toBe("new");
    expect(runStatusFromEvents([wait])).toBe("waiting");
    expect(runStatusFromEvents([wait, decision])).toBe("running");
    expect(runStatusFromEvents([wait, decision, end])).toBe("completed");
  });

  it("SES-8 SES-9 run status from events: a run's last stop tells how it ended until it is started again", () => {
    const stop = (status: "waiting" | "cancelled" | "failed", n: number) => ({ eventId: `r/stopped/${n}`, runId: "r", type: "run_stopped" as const, payload: { status, toolCallCount: 0 } });
    const prompt = { eventId: "r/p", runId: "r", type: "user_message" as const, payload: { message: { role: "user" as const, content: "hi" } } };
    const wait = { eventId: "r/w", runId: "r", type: "approval_wait" as const, payload: { requestId: "q", kind: "tool_approval" as const } };
    const decision = { eventId: "r/d", runId: "r", type: "approval_decision" as const, payload: { requestId: "q", outcome: "approved" as const } };
    expect(runStatusFromEvents([prompt, stop("failed", 1)])).toBe("failed");
    expect(runStatusFromEvents([prompt, stop("cancelled", 1)])).toBe("cancelled");
    expect(runStatusFromEvents([prompt, wait, stop("waiting", 2)])).toBe("waiting");
    // Started again after the stop: running (or waiting on an open approval) until it stops again.
    expect(runStatusFromEvents([prompt, stop("failed", 1), wait])).toBe("waiting");
    expect(runStatusFromEvents([prompt, wait, stop("waiting", 2), decision])).toBe("running");
  });

  it("SES-3 ids derive from the run id and position only", () => {
    expect(modelRequestId("run-1", 0)).toBe(modelRequestId("run-1", 0));
    expect(modelRequestId("run-1", 0)).not.toBe(modelRequestId("run-2", 0));
    expect(modelRequestId("run-1", 0)).not.toBe(modelRequestId("run-1", 1));
    expect(usageEntryId("run-1", 0, 0)).not.toBe(usageEntryId("run-1", 0, 1));
    expect(questionRequestId("run-1", "c")).not.toBe(questionRequestId("run-2", "c"));
    expect(planRequestId("run-1", 0)).not.toBe(planRequestId("run-1", 1));
    expect(agentItemIdPrefix("run-1") + 3).toBe(agentItemId("run-1", 3));
  });

  it("OUT-3 retry numbering and policy", () => {
    expect(retryLabel(1, 10)).toBe("Retry 1 / 10");
    const failed = { content: [], usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }, stopReason: "error" as const, retry: { retryable: true, kind: "recovery" as const } };
    expect(shouldRetry(failed, 0, 2)).toBe(true);
    expect(shouldRetry(failed, 2, 2)).toBe(false);
    expect(shouldRetry({ ...failed, retry: { retryable: false, kind: "recovery" } }, 0, 2)).toBe(false);
    expect(shouldRetry({ ...failed, stopReason: "aborted" }, 0, 2)).toBe(false);
    expect([1, 2, 3, 20].map((n) => retryDelay(n, 500))).toEqual([500, 1000, 2000, 30000]);
  });

  it("OUT-4 the plan is the text after the last tool call", () => {
    const turn: ModelMessage[] = [
      { role: "user", content: "p" },
      { role: "assistant", content: [{ type: "text", text: "Research first." }, { type: "toolCall", id: "1", name: "ls", arguments: {} }, { type: "text", text: "Step A" }] },
      { role: "toolResult", toolCallId: "1", toolName: "ls", content: [{ type: "text", text: "x" }], isError: false },
      { role: "assistant", content: [{ type: "text", text: "Step B" }] },
    ];
    expect(extractFinalPlan(turn)).toBe("Step A\n\nStep B");
    expect(extractFinalPlan([{ role: "assistant", content: [{ type: "toolCall", id: "1", name: "ls", arguments: {} }] }])).toBe("");
  });

  it("OUT-4 a plan spoken in two segments becomes one card, the second segment emptied", () => {
    const projector = createAgentOutputProjector({ runId: "r", sessionKey: "s", answerItemId: null });
    const acc = createOutputStreamAccumulator();
    acc.pushAll([...projector.text("Before.", "0"), ...projector.toolCall({ id: "c", name: "ls", arguments: {} }), ...projector.toolResult("c", { isError: false, text: "ok" })]);
    acc.pushAll([...projector.text("Step A", "1"), ...projector.endBlock(), ...projector.text("Step B", "2"), ...projector.finalPlan("Step A\n\nStep B"), ...projector.finish()]);
    const items = acc.items();
    expect(items.map((item) => [item.metadata.kind, item.metadata.partType ?? null, item.metadata.plan ?? false, item.content])).toEqual([
      ["agent-part", "text", false, "Before."],
      ["agent-part", "tool", false, { tool: "ls", toolCallId: "c", arguments: {}, status: "completed", result: "ok" }],
      ["agent-notice", null, true, "Step A\n\nStep B"],
      ["agent-part", "text", false, ""],
    ]);
    expect(items.every((item) => item.done)).toBe(true);
  });

  it("history: tool calls without results get an error result right after their message", () => {
    const messages: ModelMessage[] = [
      { role: "user", content: "p" },
      { role: "assistant", content: [{ type: "toolCall", id: "a", name: "ls", arguments: {} }, { type: "toolCall", id: "b", name: "ls", arguments: {} }] },
      { role: "toolResult", toolCallId: "a", toolName: "ls", content: [{ type: "text", text: "ok" }], isError: false },
      { role: "user", content: "next" },
    ];
    const fixed = completeToolResults(messages);
    expect(fixed.map((message) => (message.role === "toolResult" ? `result:${message.toolCallId}` : message.role))).toEqual(["user", "assistant", "result:a", "result:b", "user"]);
    expect(fixed[3]).toMatchObject({ isError: true, content: [{ text: MISSING_RESULT_TEXT }] });
  });

  it("AG-7 stableHash (16-bit limbs) gives FNV-1a 64's BigInt output for every string, any UTF-16 unit included", () => {
    expect(stableHash("")).toBe("cbf29ce484222325");
    expect(stableHash("session 会话")).toBe(fnv1a64("session 会话"));
    const unit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
    const text = fc.oneof(fc.string({ unit, maxLength: 64 }), fc.string({ unit: "grapheme", maxLength: 32 }), fc.string({ maxLength: 200 }));
    fc.assert(fc.property(text, (value) => stableHash(value) === fnv1a64(value)), { numRuns: 2000 });
  });

  it("GOV-7 canonicalJson (concatenated in place) gives its first written form for any JSON value, undefined members and any key included, so ids and audit hashes written before stay the same", () => {
    expect(canonicalJson({ b: 1, a: [2, { d: undefined, c: null }], "é": "x" })).toBe('{"a":[2,{"c":null}],"b":1,"é":"x"}');
    const key = fc.oneof(fc.string({ maxLength: 8 }), fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)), maxLength: 4 }));
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined), fc.array(tie("value"), { maxLength: 4 }), fc.dictionary(key, tie("value"), { maxKeys: 5 })),
    }));
    fc.assert(fc.property(value, (item) => canonicalJson(item) === canonicalJsonFirst(item)), { numRuns: 2000 });
  });

  it("AG-7 occupancy is the last usage plus an estimate of what came after", () => {
    const meter = createContextMeter(1000);
    meter.add("x".repeat(40));
    expect(meter.usage()).toEqual({ used: 10, total: 1000, unit: "tokens", source: "estimate" });
    meter.recordUsage({ input: 300, output: 20, cacheRead: 80, cacheWrite: 0, total: 400 });
    meter.add("y".repeat(8));
    expect(meter.usage()).toEqual({ used: 402, total: 1000, unit: "tokens", source: "usage" });
    meter.recordUsage({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 });
    expect(meter.usage().used).toBe(402);
    expect(estimateTokens("hello world")).toBe(3);
  });
});
