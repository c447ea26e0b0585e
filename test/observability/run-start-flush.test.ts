import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createOpenTelemetry } from "../../src/adapters/driven/opentelemetry/open-telemetry.js";
import { startOtlpReceiver, type OtlpReceiver } from "../fixtures/otlp-receiver.js";
import { startTestSdk } from "../fixtures/otel-sdk.js";

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await receiver.close();
});

describe("OBS-4 the run-start flush", () => {
  it("OBS-4 runs that start together share the run-start flush: every root is exported at once, in two exports rather than one per run", async () => {
    // The batch schedule is far away: only the run-start flush exports before the shutdown.
    const sdk = startTestSdk(receiver.url, "run-start-flush", { scheduledDelayMillis: 60_000 });
    const telemetry = createOpenTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider, env: {} });
    const before = receiver.requests;
    const runs = Array.from({ length: 12 }, (_, i) => telemetry.run({ runId: `run-${i}`, agentName: "agent", conversationId: `c-${i}`, provider: "offline", model: "m" }));
    const roots = () => receiver.spans.filter((span) => span.service === "run-start-flush" && span.name === "steamharness.run");
    await receiver.waitFor(() => roots().length === runs.length, 10_000);
    // Nothing else may arrive late: give a straggling export time to land before counting.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(new Set(roots().map((span) => span.attributes["steamharness.run.id"]))).toEqual(new Set(runs.map((_, i) => `run-${i}`)));
    expect(receiver.requests - before).toBeLessThanOrEqual(2);
    for (const run of runs) run.finish({ status: "completed" });
    await sdk.shutdown();
  });
});
