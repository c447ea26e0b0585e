// VIEW-7: the timeline from a run's events — the events' own times where they carry them, and a
// log written before they did (no `timing`, no `startedAt`) still drawn, its bars estimated from
// commit times. Events as the agent writes them, with the commit times a store gives them; and
// a real agent run (offline model, an inline approval) whose events carry those times.
import { describe, expect, it } from "@jest/globals";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { runStreamNode } from "../../src/domain/stream-node.js";
import { createOfflineModel, type OfflineStep } from "../../src/testing/offline-model.js";
import { buildRunTimeline, formatDuration } from "../../src/adapters/driving/viewer/run-timeline.js";
import { Type } from "@sinclair/typebox";
import type { SessionEvent, SessionEventInput } from "../../src/domain/agent/session-events.js";

const R = "run-1";
let seq = 0;
const at = (time: number, event: SessionEventInput): SessionEvent => ({ ...event, seq: ++seq, at: time }) as SessionEvent;
const start = (time: number, startedAt?: number) => at(time, { eventId: `${R}/start`, runId: R, type: "run_started", payload: { prompt: "p", mode: "build", workdir: "/w", effort: "medium", provider: "offline", model: "m", modelSource: {}, configuration: null, answerItemId: null, ...(startedAt === undefined ? {} : { startedAt }) } });
const answer = (time: number, step: number, timing?: { startedAt: number; endedAt: number }, call = false) =>
  at(time, { eventId: `${R}/model/${step}`, runId: R, type: "assistant_message", payload: { message: { role: "assistant", content: call ? [{ type: "toolCall", id: "c1", name: "read", arguments: {} }] : [{ type: "text", text: "ok" }] }, stopReason: call ? "toolUse" : "stop", step, attempt: 0, ...(timing ? { timing } : {}) } });
const intent = (time: number) => at(time, { eventId: `${R}/tool/c1/intent`, runId: R, type: "tool_intent", payload: { toolCallId: "c1", toolName: "read", arguments: {}, replay: "never" } });
const result = (time: number, timing?: { startedAt: number; endedAt: number }) =>
  at(time, { eventId: `${R}/tool/c1/result`, runId: R, type: "tool_result", payload: { message: { role: "toolResult", toolCallId: "c1", toolName: "read", content: [{ type: "text", text: "x" }], isError: false }, details: null, ...(timing ? { timing } : {}) } });

describe("VIEW-7 run timeline", () => {
  it("VIEW-7 uses the events' timing and startedAt: the start before its commit, a deferred tool result at its real time, an open wait until now", () => {
    const events = [
      start(1_400, 1_000),
      answer(1_400, 0, { startedAt: 1_050, endedAt: 1_390 }, true),
      intent(1_400),
      at(1_500, { eventId: `${R}/tool/c1/wait`, runId: R, type: "approval_wait", payload: { requestId: "q1", kind: "tool_approval", toolCallId: "c1" } }),
    ];
    const waiting = buildRunTimeline(events, { now: 9_500 });
    expect(waiting.bars.map((bar) => [bar.kind, bar.label, bar.startedAt, bar.endedAt])).toEqual([["model", "step 1", 1_050, 1_390], ["wait", "approval · read", 1_500, null]]);
    expect(waiting.endedAt).toBe(9_500);
    expect(waiting.totals.wait).toBe(8_000);
    const done = buildRunTimeline([
      ...events,
      at(4_000, { eventId: `${R}/tool/c1/decision`, runId: R, type: "approval_decision", payload: { requestId: "q1", outcome: "approved" } }),
      // A safe tool's result is committed with the next step: its timing says when it ran.
      result(6_000, { startedAt: 4_010, endedAt: 4_600 }),
      answer(6_000, 1, { startedAt: 4_700, endedAt: 5_990 }),
    ]);
    expect(done.bars.map((bar) => [bar.kind, bar.startedAt, bar.endedAt, bar.estimated])).toEqual([["model", 1_050, 1_390, false], ["wait", 1_500, 4_000, false], ["tool", 4_010, 4_600, false], ["model", 4_700, 5_990, false]]);
    expect([done.startedAt, done.endedAt]).toEqual([1_000, 6_000]);
    expect(done.totals).toEqual({ model: 340 + 1_290, tool: 590, wait: 2_500 });
  });

  it("VIEW-7 a log older than the timing fields still draws, its bars estimated from commit times", () => {
    const timeline = buildRunTimeline([start(1_000), answer(1_000, 0, undefined, true), intent(1_000), result(1_800), answer(2_500, 1)]);
    expect(timeline.bars.map((bar) => [bar.kind, bar.startedAt, bar.endedAt, bar.estimated])).toEqual([["model", 1_000, 1_000, true], ["tool", 1_000, 1_800, true], ["model", 1_800, 2_500, true]]);
  });

  it("VIEW-7 a decision given in the run's process (a terminal prompt) is a wait of its own timing", () => {
    const timeline = buildRunTimeline([start(2_000, 1_000), answer(2_000, 0, { startedAt: 1_000, endedAt: 1_900 }, true), intent(2_000), at(5_000, { eventId: `${R}/tool/c1/decision`, runId: R, type: "approval_decision", payload: { requestId: "q1", outcome: "approved", timing: { startedAt: 2_010, endedAt: 4_990 } } }), result(5_200, { startedAt: 5_000, endedAt: 5_200 })]);
    expect(timeline.bars.map((bar) => [bar.kind, bar.label, bar.startedAt, bar.endedAt])).toEqual([["model", "step 1", 1_000, 1_900], ["wait", "approval · read", 2_010, 4_990], ["tool", "read", 5_000, 5_200]]);
  });

  it("VIEW-7 durations read as a person reads them", () => {
    expect([340, 1_234, 65_000, 3_725_000].map(formatDuration)).toEqual(["340 ms", "1.2 s", "1 min 05 s", "1 h 02 min"]);
  });
});

describe("VIEW-7 the agent records its times", () => {
  it("VIEW-7 a run with an inline approval (a person answering in the run's process) records the model's, the person's and the tool's times", async () => {
    const workdir = mkdtempSync(join(tmpdir(), "view7-inline-"));
    const storage = new MemoryStorage();
    try {
      const node = createAgentNode({ models: createOfflineModel({ steps: [{ toolCalls: [{ id: "w1", name: "write", arguments: { path: "a.txt", content: "x" } }] }, { text: "Written." }] }), workdir, retryDelayMs: 0, permissionPolicy: "ask" });
      // (A timer may fire up to a millisecond early by Date.now's clock: sleep past the bound asserted.)
      const toolPermissions = { request: async () => (await sleep(310), { outcome: "approved" as const }) };
      const context = createNodeContext({ projectId: "p", storage, runId: "run-inline", conversationId: "c", toolPermissions });
      await runStreamNode(node, { prompt: "Write a.txt", runId: "run-inline" }, context);
      const store = await storage.sessions!.openUnleased({ address: { projectId: "p", conversationId: "c", sessionKey: "agent" }, create: false });
      const events = await store!.readAfter(0);
      await store!.close();
      const timeline = buildRunTimeline(events);
      expect(timeline.bars.map((bar) => [bar.kind, bar.label, bar.estimated])).toEqual([["model", "step 1", false], ["wait", "approval · write", false], ["tool", "write", false], ["model", "step 2", false]]);
      const wait = timeline.bars[1]!;
      expect(wait.endedAt! - wait.startedAt).toBeGreaterThanOrEqual(300);
      const begun = events.find((event) => event.type === "run_started")!;
      expect(begun.type === "run_started" && begun.payload.startedAt).toBe(timeline.startedAt);
      expect(timeline.startedAt!).toBeLessThanOrEqual(timeline.bars[0]!.startedAt);
    } finally {
      await storage.close();
      rmSync(workdir, { recursive: true, force: true });
    }
  }, 30_000);

  it("VIEW-7 a catalog tool approved or denied in the run's process records its decision with the person's time (no 'other' gap)", async () => {
    const workdir = mkdtempSync(join(tmpdir(), "view7-catalog-"));
    const storage = new MemoryStorage();
    try {
      const deploy = { name: "deploy", label: "deploy", description: "deploys", parameters: Type.Object({}), async execute() { return { content: [{ type: "text" as const, text: "deployed" }] }; } };
      const steps: OfflineStep[] = [{ toolCalls: [{ id: "d1", name: "deploy", arguments: {} }, { id: "d2", name: "deploy", arguments: { again: true } }] }, { text: "Done." }];
      const node = createAgentNode({ models: createOfflineModel({ steps }), workdir, retryDelayMs: 0, extraTools: [deploy] });
      let asked = 0;
      // (A timer may fire up to a millisecond early by Date.now's clock: sleep past the bound asserted.)
      const toolPermissions = { request: async () => (await sleep(260), asked++ === 0 ? { outcome: "approved" as const } : { outcome: "denied" as const, reason: "not twice" }) };
      const context = createNodeContext({ projectId: "p", storage, runId: "run-catalog", conversationId: "c", toolPermissions, toolCatalog: [{ id: "deploy" }] });
      await runStreamNode(node, { prompt: "Deploy", runId: "run-catalog" }, context);
      const store = await storage.sessions!.openUnleased({ address: { projectId: "p", conversationId: "c", sessionKey: "agent" }, create: false });
      const events = await store!.readAfter(0);
      await store!.close();
      const decisions = events.filter((event) => event.type === "approval_decision").map((event) => event.type === "approval_decision" && event.payload.outcome);
      expect(decisions).toEqual(["approved", "denied"]);
      const waits = buildRunTimeline(events).bars.filter((bar) => bar.kind === "wait");
      expect(waits.map((bar) => bar.label)).toEqual(["approval · deploy", "approval · deploy"]);
      for (const wait of waits) expect(wait.endedAt! - wait.startedAt).toBeGreaterThanOrEqual(250);
    } finally {
      await storage.close();
      rmSync(workdir, { recursive: true, force: true });
    }
  }, 30_000);
});
