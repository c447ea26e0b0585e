// Issue 28 item 6 ("visible"; titled BUD-2 visible): the `invoke_agent` span of a run with budgets
// carries per budget what was spent, held, the limit and what remains (tokens and USD), exported
// by the real OpenTelemetry SDK over OTLP/HTTP JSON to a loopback receiver.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createOpenTelemetry } from "../../src/adapters/driven/opentelemetry/open-telemetry.js";
import { createHarnessRuntime } from "../../src/compose/runtime.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import type { AgentBudgetOptions } from "../../src/domain/budget/budget-options.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../fixtures/otlp-receiver.js";
import { startTestSdk } from "../fixtures/otel-sdk.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { runNode } from "../agent/helpers.js";

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(() => receiver.close());

// Every call: 20 input and 30 output tokens; at $1/$2 per million, 80 micro-dollars.
const usage = { input: 20, output: 30 };

async function budgetedRun(runId: string, budget: AgentBudgetOptions): Promise<ReceivedSpan> {
  const sdk = startTestSdk(receiver.url);
  const telemetry = createOpenTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider });
  const runtime = { ...createHarnessRuntime(), telemetry };
  const storage = createSqliteStorage({ directory: tempDirRemovedAfterAll("obs-budget-") });
  const model = createOfflineModel({ provider: "openai", model: "gpt-obs", steps: [{ text: "Reading.", toolCalls: [{ id: "call-r", name: "read", arguments: { path: "a.txt" } }], usage }, { text: "Read.", usage }] });
  const workdir = tempDirRemovedAfterAll("obs-budget-work-");
  const node = createAgentNode({ models: model, workdir, retryDelayMs: 0, permissionPolicy: "read-only", budget });
  await runNode(node, { prompt: "read a.txt" }, createNodeContext({ projectId: "obs", conversationId: "conv-b", storage, runId, runtime }));
  await sdk.shutdown();
  await storage.close();
  return receiver.spans.find((span) => span.attributes["steamharness.run.id"] === runId && span.name === "invoke_agent agent")!;
}

describe("BUD-2 visible: budget attributes on the invoke_agent span (issue 28 item 6)", () => {
  it("BUD-2 visible the invoke_agent span carries spent, reserved, limit and remaining per budget, tokens and USD", async () => {
    const span = await budgetedRun("run-obs-budget", { limits: [{ scope: "run", tokens: 5000 }, { scope: "tenant", period: "month", costUsd: 2 }], tenantId: "acme", price: { input: 1, output: 2 }, maxOutputTokens: 100 });
    expect(span.attributes).toMatchObject({
      "steamharness.run.status": "completed",
      "steamharness.budget.run.spent_tokens": 100,
      "steamharness.budget.run.spent_usd": 0.00016,
      "steamharness.budget.run.reserved_tokens": 0,
      "steamharness.budget.run.limit_tokens": 5000,
      "steamharness.budget.run.remaining_tokens": 4900,
      "steamharness.budget.tenant.month.spent_tokens": 100,
      "steamharness.budget.tenant.month.spent_usd": 0.00016,
      "steamharness.budget.tenant.month.limit_usd": 2,
      "steamharness.budget.tenant.month.remaining_usd": 1.99984,
    });
    // A unit a budget does not limit has no limit or remaining attribute.
    expect(Object.keys(span.attributes).filter((key) => /^steamharness\.budget\.run\.(limit|remaining)_usd$|^steamharness\.budget\.tenant\.month\.(limit|remaining)_tokens$/.test(key))).toEqual([]);
  }, 60_000);

  it("BUD-2 visible a run stopped by its budget reports what it spent on its failed invoke_agent span", async () => {
    const span = await budgetedRun("run-obs-capped", { limits: [{ scope: "run", tokens: 4000 }], maxOutputTokens: 100, maxToolCalls: 0 });
    expect(span.attributes).toMatchObject({ "steamharness.run.status": "failed", "error.type": "budget_exceeded", "steamharness.budget.run.spent_tokens": 50, "steamharness.budget.run.remaining_tokens": 3950 });
  }, 60_000);
});
