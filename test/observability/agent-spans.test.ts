import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createOpenTelemetry } from "../../src/adapters/driven/opentelemetry/open-telemetry.js";
import { createHarnessRuntime } from "../../src/compose/runtime.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { createMemoryToolPermissions } from "../../src/adapters/driven/memory/memory-tool-permissions.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { UserInputRequiredError } from "../../src/domain/errors.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../fixtures/otlp-receiver.js";
import { startTestSdk } from "../fixtures/otel-sdk.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { runNode } from "../agent/helpers.js";
import { defaultSessionId } from "../../src/domain/agent/ids.js";

const SECRET = "sk-obs-secret-0123456789";

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(() => receiver.close());

/**
 * A run with a retry (a 529 on the first request), a tool call that waits for approval (the run
 * pauses), and the resumed part that runs the tool and answers — with the real SDK exporting
 * OTLP/HTTP JSON to the loopback receiver.
 */
async function tracedRun(runId: string, captureContent: boolean, prompt: string): Promise<ReceivedSpan[]> {
  const sdk = startTestSdk(receiver.url);
  const telemetry = createOpenTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider, captureContent, env: { OBS_API_KEY: SECRET } });
  const runtime = { ...createHarnessRuntime(), telemetry };
  const storage = new MemoryStorage();
  const permissions = createMemoryToolPermissions();
  const workdir = tempDirRemovedAfterAll("obs-agent-");
  const model = createOfflineModel({
    provider: "openai",
    model: "gpt-obs",
    steps: [
      { error: { message: "overloaded", kind: "recovery", status: 529 }, text: `Writing it (${SECRET}).`, toolCalls: [{ id: "call-w", name: "write", arguments: { path: "out.txt", content: `key ${SECRET}` } }], usage: { input: 120, output: 30, cacheRead: 100 } },
      { text: "Written.", usage: { input: 160, output: 5 } },
    ],
  });
  const node = createAgentNode({ models: model, workdir, retryDelayMs: 0, permissionPolicy: "ask" });
  const context = () => createNodeContext({ projectId: "obs", conversationId: "conv-1", storage, runId, toolPermissions: permissions, runtime });
  const first = await runNode(node, { prompt }, context());
  expect(first.error).toBeInstanceOf(UserInputRequiredError);
  permissions.resolve((first.error as UserInputRequiredError).requestId, { outcome: "approved" });
  const second = await runNode(node, { prompt }, context());
  expect(second.error).toBeUndefined();
  // Shutting down exports what is buffered, once (a flush before it would export the cumulative metrics twice).
  await sdk.shutdown();
  await storage.close();
  return receiver.spans.filter((span) => span.attributes["steamharness.run.id"] === runId);
}

describe("OBS-2 GenAI spans of an agent run", () => {
  it("OBS-2: names, kinds, parentage and convention attributes for a run with a retry, an approval pause and a tool call; conversation id on every span; no content by default", async () => {
    const spans = await tracedRun("run-obs-2", false, `please write (${SECRET})`);
    const named = (name: string) => spans.filter((span) => span.name === name);
    expect(spans.map((span) => span.name).sort()).toEqual(
      ["chat gpt-obs", "chat gpt-obs", "chat gpt-obs", "execute_tool write", "invoke_agent agent", "invoke_agent agent", "steamharness.approval.wait", "steamharness.approval.wait", "steamharness.run"].sort(),
    );
    // One trace; the root has no parent; every other span hangs off the root.
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    const [root] = named("steamharness.run");
    expect(root!.parentSpanId).toBe("");
    for (const span of spans.filter((s) => s !== root)) expect(span.parentSpanId).toBe(root!.spanId);
    for (const span of spans) {
      expect(span.attributes["gen_ai.conversation.id"]).toBe(defaultSessionId("obs", "conv-1", "agent"));
      expect(span.attributes["gen_ai.agent.name"]).toBe("agent");
    }
    // Kinds: model calls are CLIENT (3), the rest INTERNAL (1).
    for (const span of spans) expect(span.kind).toBe(span.name.startsWith("chat ") ? 3 : 1);

    const agents = named("invoke_agent agent").sort((a, b) => Number(a.startNs - b.startNs));
    expect(agents[0]!.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-obs", "steamharness.run.status": "waiting" });
    expect(agents[0]!.events.find((event) => event.name === "steamharness.model.retry")!.attributes).toMatchObject({ "steamharness.retry.kind": "recovery", "steamharness.attempt": 1, "http.response.status_code": 529 });
    expect(agents[1]!.attributes["steamharness.run.status"]).toBe("completed");
    // OBS-2 lease events: each part took the session's lease; a part resumed after a pause (a stop record) acquires, it takes nothing over.
    expect(agents[0]!.events.filter((event) => event.name.startsWith("steamharness.lease.")).map((event) => event.attributes)).toEqual([
      { "steamharness.lease.event": "acquired", "steamharness.project.id": "obs", "steamharness.session.conversation_id": "conv-1", "steamharness.session.key": "agent", "steamharness.lease.owner": expect.any(String) },
    ]);
    expect(agents[1]!.events.map((event) => event.name)).toEqual(["steamharness.run.resumed", "steamharness.lease.acquired"]);
    expect(agents[1]!.events[0]!.attributes["steamharness.run.resumed_after"]).toBe("paused");

    const chats = named("chat gpt-obs").sort((a, b) => Number(a.startNs - b.startNs));
    expect(chats[0]!.attributes["error.type"]).toBe("recovery");
    expect(chats[0]!.status.code).toBe(2);
    expect(chats[1]!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-obs",
      "gen_ai.response.model": "gpt-obs",
      "gen_ai.usage.input_tokens": 120,
      "gen_ai.usage.output_tokens": 30,
      "gen_ai.usage.cache_read.input_tokens": 100,
      "gen_ai.response.finish_reasons": "toolUse",
    });
    expect(chats[1]!.attributes["error.type"]).toBeUndefined();
    expect(chats[2]!.attributes["gen_ai.usage.input_tokens"]).toBe(160);

    const [tool] = named("execute_tool write");
    expect(tool!.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "write", "gen_ai.tool.call.id": "call-w" });
    const waits = named("steamharness.approval.wait").sort((a, b) => Number(a.startNs - b.startNs));
    expect(waits.map((wait) => wait.attributes["steamharness.approval.outcome"])).toEqual(["pending", "approved"]);
    // The resumed wait starts where the paused part recorded the wait.
    expect(waits[1]!.startNs).toBeLessThanOrEqual(agents[1]!.startNs);

    // Content is opt-in: none of it, and the secret nowhere.
    const dump = JSON.stringify(spans, (_key, value) => (typeof value === "bigint" ? String(value) : value));
    for (const key of ["gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"]) expect(dump).not.toContain(key);
    expect(dump).not.toContain(SECRET);
  });

  it("OBS-2: with captureContent the messages, arguments and results are on the spans, secrets redacted", async () => {
    const spans = await tracedRun("run-obs-2-content", true, `please write (${SECRET})`);
    const chat = spans.find((span) => span.name === "chat gpt-obs" && span.attributes["gen_ai.usage.input_tokens"] === 120)!;
    expect(String(chat.attributes["gen_ai.input.messages"])).toContain("please write ([redacted])");
    expect(String(chat.attributes["gen_ai.output.messages"])).toContain("Writing it ([redacted]).");
    const tool = spans.find((span) => span.name === "execute_tool write")!;
    expect(String(tool.attributes["gen_ai.tool.call.arguments"])).toContain("key [redacted]");
    expect(typeof tool.attributes["gen_ai.tool.call.result"]).toBe("string");
    const dump = JSON.stringify(spans, (_key, value) => (typeof value === "bigint" ? String(value) : value));
    expect(dump).not.toContain(SECRET);
  });
});

describe("OBS-5 metrics", () => {
  it("OBS-5: gen_ai.client.token.usage and gen_ai.client.operation.duration histograms with convention attributes, run duration and approval wait time", async () => {
    receiver.points.length = 0;
    await tracedRun("run-obs-5", false, "write it");
    const points = (metric: string) => receiver.points.filter((point) => point.metric === metric);
    const usage = points("gen_ai.client.token.usage");
    expect(usage.every((point) => point.unit === "{token}")).toBe(true);
    const input = usage.find((point) => point.attributes["gen_ai.token.type"] === "input")!;
    expect(input.attributes).toMatchObject({ "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-obs", "gen_ai.response.model": "gpt-obs" });
    // The successful requests' input: 120 + 160 (the failed attempt reported none).
    expect(input.sum).toBe(280);
    expect(usage.find((point) => point.attributes["gen_ai.token.type"] === "output")!.sum).toBe(35);
    const durations = points("gen_ai.client.operation.duration");
    expect(durations.every((point) => point.unit === "s")).toBe(true);
    expect(durations.reduce((sum, point) => sum + point.count, 0)).toBe(3);
    expect(durations.find((point) => point.attributes["error.type"] === "recovery")!.count).toBe(1);
    expect(points("steamharness.run.duration").map((point) => point.attributes["steamharness.run.status"]).sort()).toEqual(["completed", "waiting"]);
    const waits = points("steamharness.approval.wait.duration");
    expect(waits.map((point) => point.attributes["steamharness.approval.outcome"]).sort()).toEqual(["approved", "pending"]);
  });
});
