import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createOpenTelemetry } from "../../src/adapters/driven/opentelemetry/open-telemetry.js";
import { startOtlpReceiver, type OtlpReceiver } from "../fixtures/otlp-receiver.js";
import { startTestSdk } from "../fixtures/otel-sdk.js";
import { gatewayWith, MODEL, TOKEN } from "../gateway/helpers.js";

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(() => receiver.close());

describe("OBS-3 gateway trace continuation", () => {
  it("OBS-3: a request with a traceparent header is a server span of the caller's trace, and the run it starts continues it", async () => {
    const sdk = startTestSdk(receiver.url, "gateway");
    const telemetry = createOpenTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider });
    const { gateway } = await gatewayWith([{ text: "Hi there." }], { telemetry });
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const callerSpan = "00f067aa0ba902b7";
    const response = await fetch(`${gateway.url}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", traceparent: `00-${traceId}-${callerSpan}-01`, tracestate: "vendor=1" },
      body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hello" }] }),
    });
    expect(response.status).toBe(200);
    await response.json();
    // A request without the header starts a trace of its own.
    const plain = await fetch(`${gateway.url}/models`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(plain.status).toBe(200);
    await plain.text();
    await gateway.close();
    await sdk.shutdown();
    const spans = receiver.spans.filter((span) => span.traceId === traceId);
    const server = spans.find((span) => span.name === "POST /v1/chat/completions")!;
    expect(server).toBeDefined();
    expect(server.kind).toBe(2);
    expect(server.parentSpanId).toBe(callerSpan);
    expect(server.attributes).toMatchObject({ "http.request.method": "POST", "http.route": "/v1/chat/completions", "http.response.status_code": 200 });
    const root = spans.find((span) => span.name === "steamharness.run")!;
    expect(root.parentSpanId).toBe(server.spanId);
    expect(spans.map((span) => span.name).sort()).toEqual(["POST /v1/chat/completions", "chat offline-scripted", "invoke_agent agent", "steamharness.run"].sort());
    const models = receiver.spans.find((span) => span.name === "GET /v1/models")!;
    expect(models.traceId).not.toBe(traceId);
    expect(models.parentSpanId).toBe("");
  });
});
