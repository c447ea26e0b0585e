import type { Telemetry, TelemetryRunInfo } from "../ports/telemetry.js";
import { defineContract, uniqueId, type ContractCases, type ContractFactory, type ContractOptions, type ContractTestApi } from "./contract-support.js";

/** One ended span as the fixture's backend received it (its exporter's view, not the adapter's). */
export interface TelemetrySpanRecord {
  name: string;
  traceId: string;
  spanId: string;
  /** The parent's span id; `null` for a root. */
  parentSpanId: string | null;
  attributes: Readonly<Record<string, unknown>>;
  events: ReadonlyArray<{ name: string; attributes: Readonly<Record<string, unknown>> }>;
}

/** Raw reads of what a telemetry adapter reported (the subject's `inspect`). */
export interface TelemetryInspect {
  /** Every span ended so far, once each time it was received, after the subject's `flush()`. */
  spans(): Promise<TelemetrySpanRecord[]>;
  /** The same adapter over a backend that fails on every call (throws, rejects); for "adapter-failure". */
  failing?(): Telemetry;
}

const W3C = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;
const runInfo = (extra: Partial<TelemetryRunInfo> = {}): TelemetryRunInfo => ({ runId: uniqueId("run"), agentName: "agent", conversationId: uniqueId("conversation"), provider: "contract", model: "contract-model", ...extra });
const usage = { input: 3, output: 2, cacheRead: 0, cacheWrite: 0, total: 5 };

/** Reports one complete run: a model call, a tool call, an approval wait, a compaction, a retry and a lease event. */
function reportRun(telemetry: Telemetry, info: TelemetryRunInfo): void {
  const run = telemetry.run(info);
  const call = run.modelCall({ step: 0, attempt: 0 });
  call.finish({ usage, finishReason: "toolUse", responseModel: "contract-model" });
  const tool = run.toolCall({ name: "lookup", callId: "call-1" });
  tool.end({ attributes: { "steamharness.note": "ok" } });
  run.approvalWait({ kind: "tool_approval", toolName: "lookup", callId: "call-1" }).end({ attributes: { "steamharness.approval.outcome": "approved" } });
  run.compaction({ step: 1, trigger: "threshold" }).end();
  run.retry({ kind: "dropped", attempt: 1, max: 3, message: "dropped" });
  run.lease({ event: "acquired", projectId: "contract", conversationId: info.conversationId, sessionKey: "agent", ownerId: info.runId });
  run.finish({ status: "completed", usage });
}

/** The fixture's spans; an enabled adapter must come with `inspect`. */
async function spansOf(telemetry: Telemetry, inspect: TelemetryInspect | undefined): Promise<TelemetrySpanRecord[]> {
  await telemetry.flush();
  if (!telemetry.enabled) return [];
  if (!inspect) throw new Error("[steamharness] the telemetry fixture of an enabled adapter must give inspect.spans");
  return inspect.spans();
}

const ofRun = (spans: TelemetrySpanRecord[], runId: string) => spans.filter((span) => span.attributes["steamharness.run.id"] === runId);

const cases: ContractCases<Telemetry, TelemetryInspect> = {
  "OBS-1 enabled and captureContent are booleans; flush resolves, also concurrently and with nothing to export": async ({ store: telemetry, expect }) => {
    expect(typeof telemetry.enabled).toBe("boolean");
    expect(typeof telemetry.captureContent).toBe("boolean");
    await expect(Promise.all([telemetry.flush(), telemetry.flush()])).resolves.toBeDefined();
  },
  "OBS-1 every span ends once: end and finish are idempotent, calls after the end do nothing": async ({ store: telemetry, inspect, expect }) => {
    const info = runInfo();
    const run = telemetry.run(info);
    const call = run.modelCall({ step: 0, attempt: 0 });
    call.finish({ usage, finishReason: "stop" });
    call.finish({ usage, finishReason: "stop" });
    call.end({ error: "late" });
    call.event("late", {});
    call.set({ late: true });
    const tool = run.toolCall({ name: "lookup", callId: "call-1" });
    tool.end();
    tool.end({ error: "twice" });
    run.finish({ status: "completed" });
    run.finish({ status: "failed", error: "twice" });
    run.end();
    const spans = ofRun(await spansOf(telemetry, inspect), info.runId);
    const ids = spans.map((span) => span.spanId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const span of spans) {
      expect(span.attributes["error.type"]).toBeUndefined();
      expect(span.events.map((event) => event.name)).not.toContain("late");
      expect(span.attributes.late).toBeUndefined();
    }
    if (telemetry.enabled) expect(spans.length).toBeGreaterThanOrEqual(3);
  },
  "OBS-4 a run is one trace: every span of it shares the root's trace id and has its parent reported; the carrier is W3C text": async ({ store: telemetry, inspect, expect }) => {
    const info = runInfo();
    const run = telemetry.run(info);
    const root = run.root();
    run.finish({ status: "completed" });
    reportRun(telemetry, { ...info, stored: root, resumedAfter: "interrupted" });
    const spans = ofRun(await spansOf(telemetry, inspect), info.runId);
    if (!telemetry.enabled) {
      expect(root).toBeNull();
      expect(run.carrier()).toBeNull();
      return;
    }
    const traceId = W3C.exec(root?.traceparent ?? "")?.[1];
    expect(traceId).toBeDefined();
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([traceId]));
    const ids = new Set(spans.map((span) => span.spanId));
    expect(spans.filter((span) => span.parentSpanId !== null && !ids.has(span.parentSpanId)).map((span) => span.name)).toEqual([]);
    expect(spans.filter((span) => span.parentSpanId === null)).toHaveLength(1);
  },
  "OBS-3 a parent carrier makes the request and the run its children; a malformed one never throws": async ({ store: telemetry, inspect, expect }) => {
    const parent = { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" };
    const request = telemetry.mcpRequest({ method: "tools/call", target: "ask", requestId: 7, parent });
    const info = runInfo({ parent: request.carrier() });
    telemetry.run(info).finish({ status: "completed" });
    request.end();
    const bad = telemetry.gatewayRequest({ method: "POST", target: "/v1/runs", parent: { traceparent: "not-a-traceparent" } });
    bad.end();
    const spans = await spansOf(telemetry, inspect);
    if (!telemetry.enabled) return;
    const server = spans.find((span) => span.attributes["mcp.method.name"] === "tools/call" && span.parentSpanId === "b7ad6b7169203331");
    expect(server?.traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    const runSpans = ofRun(spans, info.runId);
    expect(runSpans.length).toBeGreaterThan(0);
    for (const span of runSpans) expect(span.traceId).toBe("0af7651916cd43dd8448eb211c80319c");
  },
  "OBS-2 attribute values are strings, finite numbers or booleans; undefined entries are left out": async ({ store: telemetry, inspect, expect }) => {
    const info = runInfo();
    const run = telemetry.run(info);
    run.set({ "contract.left_out": undefined, "contract.kept": "yes" });
    run.event("contract.event", { "contract.left_out": undefined, "contract.count": 2 });
    reportRun(telemetry, { ...info, stored: run.root() });
    run.finish({ status: "completed" });
    const spans = ofRun(await spansOf(telemetry, inspect), info.runId);
    for (const span of spans) {
      for (const value of [...Object.values(span.attributes), ...span.events.flatMap((event) => Object.values(event.attributes))]) {
        expect(["string", "number", "boolean"]).toContain(typeof value);
        if (typeof value === "number") expect(Number.isFinite(value)).toBe(true);
      }
      expect("contract.left_out" in span.attributes).toBe(false);
      for (const event of span.events) expect("contract.left_out" in event.attributes).toBe(false);
    }
    if (telemetry.enabled) expect(spans.some((span) => span.attributes["contract.kept"] === "yes")).toBe(true);
  },
  "OBS-2 content is reported only with captureContent": async ({ store: telemetry, inspect, expect }) => {
    const marker = uniqueId("content-marker");
    const info = runInfo();
    const run = telemetry.run(info);
    expect(run.captureContent).toBe(telemetry.captureContent);
    run.modelCall({ step: 0, attempt: 0, input: [{ role: "user", content: marker }] }).finish({ usage, finishReason: "stop", output: marker });
    run.toolCall({ name: "lookup", callId: "call-1", arguments: { q: marker } }).end({ attributes: { result: marker } });
    run.finish({ status: "completed" });
    const text = JSON.stringify(ofRun(await spansOf(telemetry, inspect), info.runId));
    expect(text.includes(marker)).toBe(telemetry.enabled && telemetry.captureContent);
  },
  "OBS-2 lease events: a run's is an event of its span, one outside a run a span of its own with the owner ids": async ({ store: telemetry, inspect, expect }) => {
    const info = runInfo();
    reportRun(telemetry, info);
    const conversationId = uniqueId("conversation");
    telemetry.lease({ event: "takeover", projectId: "contract", conversationId, sessionKey: "agent", ownerId: "host-b", previousOwnerId: "host-a", startedAt: Date.now() - 5 });
    const spans = await spansOf(telemetry, inspect);
    if (!telemetry.enabled) return;
    const events = ofRun(spans, info.runId).flatMap((span) => span.events).filter((event) => event.attributes["steamharness.lease.event"] === "acquired");
    expect(events).toHaveLength(1);
    expect(events[0]!.attributes["steamharness.lease.owner"]).toBe(info.runId);
    const own = spans.filter((span) => span.attributes["steamharness.session.conversation_id"] === conversationId);
    expect(own).toHaveLength(1);
    expect(own[0]!.attributes).toEqual(expect.objectContaining({ "steamharness.lease.event": "takeover", "steamharness.lease.owner": "host-b", "steamharness.lease.previous_owner": "host-a" }));
  },
  "OBS-1 a failing backend never throws into the app; flush still resolves": async ({ inspect, expect }) => {
    if (!inspect?.failing) throw new Error("[steamharness] the telemetry fixture must give inspect.failing (or skip adapter-failure with a reason)");
    const telemetry = inspect.failing();
    const info = runInfo();
    expect(() => {
      reportRun(telemetry, info);
      const run = telemetry.run({ ...info, stored: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" }, resumedAfter: "paused" });
      run.root();
      run.carrier();
      run.finish({ status: "failed", error: "boom" });
      telemetry.lease({ event: "lost", projectId: "contract", sessionKey: "agent", ownerId: "host-a" });
      telemetry.mcpRequest({ method: "tools/call", target: "ask" }).end();
      telemetry.gatewayRequest({ method: "POST" }).end({ error: "boom" });
    }).not.toThrow();
    await expect(telemetry.flush()).resolves.toBeUndefined();
  },
};

/** The case names, for `skip`. */
export type TelemetryContractCase = keyof typeof cases & string;

/**
 * The telemetry port contract (OBS-1 … OBS-4): what any adapter does with the application's
 * calls — spans end once (idempotent `end`/`finish`, nothing after the end), one trace per run
 * (a stored root continued, a parent carrier followed, malformed carriers ignored), attribute
 * values typed and `undefined` left out, content only with `captureContent`, lease events, and no
 * throw into the app when the backend fails. A disabled adapter (the no-op) must report nothing
 * and give `null` carriers. `inspect.spans` reads what the backend received.
 *
 * @example
 * runTelemetryContract({ describe, it, expect }, () => ({ store: createNoopTelemetry() }), { skip: ["OBS-1 a failing backend never throws into the app; flush still resolves"] });
 */
export function runTelemetryContract(api: ContractTestApi, factory: ContractFactory<Telemetry, TelemetryInspect>, options: ContractOptions<TelemetryContractCase> = {}): void {
  defineContract(api, "Telemetry", factory, cases, options);
}
