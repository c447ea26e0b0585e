/// <reference lib="dom" />
// Issue 28 item 6 ("visible"; titled BUD-2 visible): the run page shows per budget what was spent,
// the limit and what remains, in headless Chromium, for runs of the real agent (offline model,
// real KV tool) with budgets on a real SQLite storage — a run that completed and one that stopped
// at its budget. The figures come from the runs' own stop and end events.
import { beforeAll, describe, expect, it } from "@jest/globals";
import type { Browser, Page } from "playwright-core";
import type { ViewerServer } from "../../src/adapters/driving/viewer/viewer-server.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { createProjectCapabilityTools } from "../../src/app/capabilities/project-capabilities.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import type { AgentBudgetOptions } from "../../src/domain/budget/budget-options.js";
import { runStreamNode } from "../../src/domain/stream-node.js";
import type { SqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createOfflineModel, type OfflineStep } from "../../src/testing/offline-model.js";
import { viewerE2e } from "./e2e-harness.js";
import { CATALOG, PROJECT } from "./fixtures.js";

// Every call reports 20 input and 30 output tokens: 50 tokens, at $1/$2 per million 80 micro-dollars.
const usage = { input: 20, output: 30, cacheRead: 0, cacheWrite: 0, total: 50 };
const STEPS: OfflineStep[] = [
  { text: "Noting it.", toolCalls: [{ id: "call_kv", name: "workflow-kv_kv_store", arguments: { action: "set", key: "goal", value: "ship" } }], usage },
  { text: "Noted.", usage },
];

let storage: SqliteStorage;
let viewer: ViewerServer;
let browser: Browser;
const e2e = viewerE2e("viewer-budget-");

async function run(runId: string, conversationId: string, budget: AgentBudgetOptions): Promise<string> {
  const node = createAgentNode({ models: createOfflineModel({ steps: STEPS, chunkSize: 64 }), workdir: process.cwd(), retryDelayMs: 0, budget, createTools: (context) => createProjectCapabilityTools({ context }) });
  const context = createNodeContext({ projectId: PROJECT, storage, runId, conversationId, toolCatalog: CATALOG });
  try {
    await runStreamNode(node, { prompt: `Run ${runId}`, runId }, context);
    return "completed";
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

beforeAll(async () => {
  ({ storage, viewer, browser } = await e2e.start(async (opened) => {
    storage = opened;
    const price = { input: 1, output: 2 };
    expect(await run("run-budgeted", "conv-budgeted", { limits: [{ scope: "run", tokens: 5000 }, { scope: "tenant", period: "month", costUsd: 1 }], tenantId: "acme", price, maxOutputTokens: 100 })).toBe("completed");
    // No tool call allowed: the run stops at the first one, after its first model call was settled.
    expect(await run("run-capped", "conv-capped", { limits: [{ scope: "run", tokens: 3000 }], maxOutputTokens: 200, maxToolCalls: 0, price })).toBe("budget_exceeded");
  }));
}, 180_000);

async function openRun(page: Page, conversation: string, runId: string): Promise<void> {
  await page.goto(viewer.url);
  await page.locator("[data-testid=conversation]", { hasText: conversation }).locator("[data-testid=session-link]").click();
  await page.locator("[data-testid=run-link]", { hasText: runId }).click();
  await page.waitForSelector("[data-testid=run]");
}

const cells = (page: Page, scope: string) =>
  page.locator(`[data-testid=budget-row][data-scope=${scope}]`).evaluate((row) => ["budget-spent", "budget-limit", "budget-remaining"].map((id) => row.querySelector(`[data-testid=${id}]`)!.textContent));

describe("BUD-2 visible: spend and remaining budget in the run viewer (issue 28 item 6)", () => {
  it("BUD-2 visible spend, limit and remaining per budget on the page of a completed run", async () => {
    const page = await browser.newPage();
    try {
      await openRun(page, "Run run-budgeted", "run-budgeted");
      await page.waitForSelector("[data-testid=budget]");
      // Two calls settled: 100 tokens, 160 micro-dollars; nothing held after the run.
      expect(await cells(page, "run")).toEqual(["100 tokens · $0.000160", "5,000 tokens", "4,900 tokens"]);
      expect(await cells(page, "tenant")).toEqual(["100 tokens · $0.000160", "$1.00", "$0.999840"]);
      await expect(page.locator("[data-testid=budget-row][data-scope=tenant]").textContent()).resolves.toContain("acme");
    } finally {
      await page.close();
    }
  }, 60_000);

  it("BUD-2 visible a run stopped at its budget shows what it spent and what remained at the stop", async () => {
    const page = await browser.newPage();
    try {
      await openRun(page, "Run run-capped", "run-capped");
      await page.waitForSelector("[data-testid=budget]");
      await expect(page.locator("[data-testid=run]").getAttribute("data-status")).resolves.toBe("failed");
      expect(await cells(page, "run")).toEqual(["50 tokens · $0.000080", "3,000 tokens", "2,950 tokens"]);
      await expect(page.locator("[data-testid=budget]").textContent()).resolves.toContain("at most 0 tool calls");
    } finally {
      await page.close();
    }
  }, 60_000);
});
