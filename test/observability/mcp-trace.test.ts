import { writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { SpanKind, trace } from "@opentelemetry/api";
import { cleanEnv, cleanup, startMcp, tempDir } from "../cli/helpers.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";
import { startOtlpReceiver, type OtlpReceiver } from "../fixtures/otlp-receiver.js";
import { startTestSdk } from "../fixtures/otel-sdk.js";
import { CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { connectHttp, startHttpMcp } from "../mcp-http/helpers.js";
import { taskResult } from "../mcp-http/task-helpers.js";

const PROJECT_ID = "5b0e7c2a-3f41-4d8e-9a6b-0c1d2e3f4a5b";

/**
 * A workflow project whose entrypoint runs an agent (offline model) on the run's node context. It
 * imports the bundled workflow kit (plain JavaScript), so the built CLI serves it when dist/ is
 * fresh, not the sources through tsx.
 */
const WORKFLOW = `import { createAgentNode, createOfflineModel, runStreamNode } from ${JSON.stringify(bundledFixture("test/fixtures/workflow-kit.ts"))};
export default {
  entrypoints: {
    ask: {
      title: "Ask", description: "Runs an agent", params: [],
      async run(params, context) {
        const node = createAgentNode({ models: createOfflineModel({ provider: "openai", model: "gpt-obs", steps: [{ text: "Hello from the agent." }] }), workdir: context.fileCreateDir });
        await runStreamNode(node, { prompt: "hello" }, context.node);
        return { ok: true };
      },
    },
  },
};
`;

let receiver: OtlpReceiver;
let tmp: string;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  tmp = await tempDir("obs3-mcp-");
});
afterAll(async () => {
  await receiver.close();
  await cleanup(tmp);
});

/** The workflow project of these tests, in `dir`. */
async function writeProject(dir: string): Promise<string> {
  const project = join(tmp, dir);
  await mkdir(project, { recursive: true });
  await writeFile(join(project, "package.json"), JSON.stringify({ name: "obs-mcp", version: "1.0.0", type: "module", id: PROJECT_ID, projectType: "workflow", main: "workflow.mjs" }));
  await writeFile(join(project, "workflow.mjs"), WORKFLOW);
  return project;
}

const otelEnv = (service: string) =>
  cleanEnv({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_SERVICE_NAME: service,
    OTEL_BSP_SCHEDULE_DELAY: "50",
    OTEL_METRICS_EXPORTER: "none",
    OTEL_LOGS_EXPORTER: "none",
  });

describe("OBS-3 MCP task runs carry the client's trace", () => {
  it("OBS-3: a task-augmented tools/call with _meta.traceparent (Streamable HTTP) yields the task's run in the client's trace, under the server span of the call", async () => {
    const project = await writeProject("task-project");
    const server = await startHttpMcp(project, ["--data-dir", join(tmp, "task-data")], { env: otelEnv("steamharness-mcp-http") });
    const client = await connectHttp(server.url);
    const sdk = startTestSdk(receiver.url, "mcp-task-client");
    const caller = sdk.tracerProvider.getTracer("test-client").startSpan("tools/call ask", { kind: SpanKind.CLIENT });
    const { traceId, spanId } = caller.spanContext();
    let taskId: string;
    try {
      const created = await client.request({ method: "tools/call", params: { name: "ask", arguments: {}, task: { ttl: 60_000 }, _meta: { traceparent: `00-${traceId}-${spanId}-01` } } }, CreateTaskResultSchema);
      taskId = created.task.taskId;
      const result = await taskResult(client, taskId);
      expect(result.isError).toBeFalsy();
    } finally {
      caller.end();
      await sdk.shutdown();
      await client.close();
      await server.stop();
    }
    await receiver.waitFor((spans) => spans.some((span) => span.traceId === traceId && span.name === "chat gpt-obs") && spans.some((span) => span.traceId === traceId && span.service === "steamharness-mcp-http"));
    const spans = receiver.spans.filter((span) => span.traceId === traceId);
    const call = spans.find((span) => span.service === "steamharness-mcp-http" && span.name === "tools/call ask")!;
    expect(call.kind).toBe(2);
    expect(call.parentSpanId).toBe(spanId);
    expect(call.attributes).toMatchObject({ "mcp.method.name": "tools/call", "gen_ai.tool.name": "ask", "mcp.task.id": taskId, "steamharness.run.id": taskId });
    const root = spans.find((span) => span.name === "steamharness.run")!;
    expect(root.parentSpanId).toBe(call.spanId);
    expect(root.attributes["steamharness.run.id"]).toBe(taskId);
    const ids = new Set(spans.map((span) => span.spanId));
    expect(spans.filter((span) => span.parentSpanId !== "" && !ids.has(span.parentSpanId)).map((span) => span.name)).toEqual([]);
    expect(spans.map((span) => span.name).sort()).toEqual(["chat gpt-obs", "invoke_agent agent", "steamharness.run", "tools/call ask", "tools/call ask"].sort());
  }, 120_000);
});

describe("OBS-3 MCP trace continuation", () => {
  it("OBS-3: a tools/call whose client sends traceparent in _meta yields one trace from the client's span through the server span to the agent run in the worker", async () => {
    const project = join(tmp, "project");
    await mkdir(project, { recursive: true });
    await writeFile(join(project, "package.json"), JSON.stringify({ name: "obs-mcp", version: "1.0.0", type: "module", id: PROJECT_ID, projectType: "workflow", main: "workflow.mjs" }));
    await writeFile(join(project, "workflow.mjs"), WORKFLOW);
    const env = cleanEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_SERVICE_NAME: "steamharness-mcp",
      OTEL_BSP_SCHEDULE_DELAY: "50",
      OTEL_METRICS_EXPORTER: "none",
      OTEL_LOGS_EXPORTER: "none",
    });
    const session = await startMcp(project, ["--data-dir", join(tmp, "data")], { env });
    const sdk = startTestSdk(receiver.url, "mcp-client");
    const client = sdk.tracerProvider.getTracer("test-client").startSpan("tools/call ask", { kind: SpanKind.CLIENT });
    const { traceId, spanId } = client.spanContext();
    try {
      const result = await session.client.callTool({ name: "ask", arguments: {}, _meta: { traceparent: `00-${traceId}-${spanId}-01`, tracestate: "obs=1" } });
      expect(result.isError).toBeFalsy();
    } finally {
      client.end();
      await sdk.shutdown();
      await session.close();
    }
    await receiver.waitFor((spans) => spans.some((span) => span.traceId === traceId && span.name === "chat gpt-obs") && spans.some((span) => span.traceId === traceId && span.name === "tools/call ask" && span.service === "steamharness-mcp"));
    const spans = receiver.spans.filter((span) => span.traceId === traceId);
    const server = spans.find((span) => span.service === "steamharness-mcp" && span.name === "tools/call ask")!;
    expect(server.kind).toBe(2);
    expect(server.parentSpanId).toBe(spanId);
    expect(server.attributes).toMatchObject({ "mcp.method.name": "tools/call", "gen_ai.tool.name": "ask", "jsonrpc.request.id": expect.any(String) });
    const root = spans.find((span) => span.name === "steamharness.run")!;
    expect(root.parentSpanId).toBe(server.spanId);
    // Every span of the trace has its parent in the trace (the client's own span included).
    const ids = new Set(spans.map((span) => span.spanId));
    expect(spans.filter((span) => span.parentSpanId !== "" && !ids.has(span.parentSpanId)).map((span) => span.name)).toEqual([]);
    expect(spans.map((span) => span.name).sort()).toEqual(["chat gpt-obs", "invoke_agent agent", "steamharness.run", "tools/call ask", "tools/call ask"].sort());
    expect(trace.getActiveSpan()).toBeUndefined();
  }, 120_000);
});
