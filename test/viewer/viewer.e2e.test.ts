/// <reference lib="dom" />
import { beforeAll, describe, expect, it } from "@jest/globals";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import type { ViewerServer } from "../../src/adapters/driving/viewer/viewer-server.js";
import { createAgentSessionHost } from "../../src/compose/session-host.js";
import { createProjectCapabilityTools } from "../../src/app/capabilities/project-capabilities.js";
import { planRequestId } from "../../src/domain/agent/ids.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import type { SqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { viewerE2e } from "./e2e-harness.js";
import { CONVERSATION, decisionsFor, PLAN_STEPS, PROJECT, runAgent, writeLargeSession } from "./fixtures.js";

// Screenshots for docs/images are written only when asked (UPDATE_SCREENSHOTS=1), never by CI.
const SHOTS = process.env.UPDATE_SCREENSHOTS === "1" ? join(process.cwd(), "docs", "images") : null;
const shot = async (page: Page, name: string) => {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, name), fullPage: true });
};

let storage: SqliteStorage;
let viewer: ViewerServer;
let browser: Browser;
const e2e = viewerE2e("viewer-");

beforeAll(async () => {
  ({ storage, viewer, browser } = await e2e.start(async (opened) => {
    // The plan run pauses at its plan decision (nothing decided yet).
    expect((await runAgent(opened, { runId: "run-plan", prompt: "Prepare the 1.0 release", steps: PLAN_STEPS, mode: "plan" })).status).toBe("paused");
  }));
}, 180_000);

const rowsOf = (page: Page) => page.$$eval("[data-testid=rows] > [data-testid=row]", (rows) => rows.map((row) => `${row.getAttribute("data-row")}${row.getAttribute("data-tool") ? `:${row.getAttribute("data-tool")}` : ""}`));

async function openRun(page: Page, sessionKey: string, runId: string, conversationId = CONVERSATION): Promise<void> {
  await page.goto(viewer.url);
  await page.locator("[data-testid=conversation]", { hasText: conversationId }).locator("[data-testid=session-link]", { hasText: sessionKey }).click();
  await page.locator("[data-testid=run-link]", { hasText: runId }).click();
  await page.waitForSelector("[data-testid=run]");
}

describe("steamharness view in headless Chromium", () => {
  it("VIEW-1 lists projects → conversations → sessions → runs and draws the run as a host would", async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    await page.goto(viewer.url);
    await expect(page.locator("[data-testid=project]").first().textContent()).resolves.toContain(PROJECT);
    await shot(page, "viewer-sessions.png");
    await page.locator("[data-testid=session-link]", { hasText: "agent" }).first().click();
    await page.waitForSelector("[data-testid=run-row]");
    expect(await page.locator("[data-testid=run-row]").first().textContent()).toContain("waiting");
    await page.locator("[data-testid=run-link]", { hasText: "run-plan" }).click();
    await page.waitForSelector("[data-testid=pending]");
    // Text before a tool stands above it; the retry has its own row; the plan is a card (OUT-2 … OUT-4).
    expect(await rowsOf(page)).toEqual(["reasoning", "text", "tool:workflow-kv_kv_store", "retry", "text", "tool:workflow-ui_present_card", "plan"]);
    expect(await page.locator("[data-row=reasoning]").evaluate((node) => (node as HTMLDetailsElement).open)).toBe(false);
    expect(await page.locator("[data-row=retry]").textContent()).toContain("connection dropped");
    expect(await page.locator("[data-testid=plan-decision]").textContent()).toBe("pending");
    expect(await page.locator("[data-testid=pending]").getAttribute("data-kind")).toBe("plan");
    // Cards: the KV write's resource card in its row, the present_card command pinned on top.
    expect(await page.locator("[data-testid=rows] [data-testid=card-title]").allTextContents()).toEqual(["goal"]);
    expect(await page.locator("[data-testid=pinned-cards] [data-testid=card-title]").allTextContents()).toEqual(["Team board"]);
    // The gauge is the context ring: the last model usage (nothing was added after it).
    const store = (await storage.sessions.openUnleased({ address: { projectId: PROJECT, conversationId: CONVERSATION, sessionKey: "agent" }, create: false }))!;
    const usages = await store.readAfter(0, { types: ["usage"] });
    await store.close();
    const last = usages.at(-1)!;
    const entry = last.type === "usage" ? last.payload.entry : null;
    expect(Number(await page.locator("[data-testid=gauge]").getAttribute("data-value"))).toBe(entry!.input + entry!.output + entry!.cacheRead + entry!.cacheWrite);
    expect(Number(await page.locator("[data-testid=gauge]").getAttribute("data-total"))).toBe(128_000);
    // Per-turn usage is the sum of the run's usage events.
    const total = usages.reduce((sum, event) => sum + (event.type === "usage" ? event.payload.entry.total : 0), 0);
    expect(await page.locator("[data-testid=turn-usage]").textContent()).toContain(total.toLocaleString("en-US"));
    // Raw durable events on demand.
    await page.locator("[data-testid=raw-toggle]").click();
    expect(await page.locator("[data-testid=raw-events] li").count()).toBeGreaterThan(10);
    await page.locator("[data-testid=raw-toggle]").click();
    await shot(page, "viewer-run.png");
    await page.close();
  }, 120_000);

  it("VIEW-3 approves the waiting plan in the page; re-run on its run id, the run finishes and the page follows live", async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    await openRun(page, "agent", "run-plan");
    await page.waitForSelector("[data-testid=pending]");
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    await page.locator("[data-testid=approve]").click();
    await page.waitForFunction(() => document.querySelector("[data-testid=answer-note]")?.textContent?.includes("when its host runs it again"));
    // Recorded through the userInput port a host wires in (stored decisions), bound to the request id.
    expect(await decisionsFor(storage).get(planRequestId("run-plan", 0))).toEqual({ kind: "plan", response: { outcome: "answered", values: { approved: true }, answeredBy: { surface: "viewer", at: expect.any(Number) } } });
    // The host runs the run again on its run id: the decision is found, the run builds and ends.
    expect((await runAgent(storage, { runId: "run-plan", prompt: "Prepare the 1.0 release", steps: PLAN_STEPS, mode: "plan" })).status).toBe("completed");
    await page.waitForSelector("[data-testid=run][data-status=completed]");
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
    expect(await page.locator("[data-testid=plan-decision]").textContent()).toBe("approved");
    expect(await page.locator("[data-testid=pending]").count()).toBe(0);
    expect((await rowsOf(page)).slice(-3)).toEqual(["plan", "notice", "text"]);
    expect(await page.locator("[data-row=text]").last().textContent()).toContain("Done: the release is prepared.");
    await shot(page, "viewer-run-finished.png");
    await page.close();
  }, 120_000);

  it("VIEW-2 a run being written updates in the open page without a reload", async () => {
    const address = { projectId: PROJECT, conversationId: "conv-live", sessionKey: "live" };
    const store = await storage.sessions.open({ address, ownerId: "live-writer" });
    const runId = "run-live";
    await store.append([
      { eventId: `${runId}/start`, runId, type: "run_started", payload: { prompt: "Count the files", mode: "build", workdir: "/tmp", effort: "medium", provider: "offline", model: "offline-scripted", modelSource: {}, configuration: null, answerItemId: null } },
      { eventId: `${runId}/prompt`, runId, type: "user_message", payload: { message: { role: "user", content: "Count the files" } } },
      { eventId: `${runId}/model/0`, runId, type: "assistant_message", payload: { message: { role: "assistant", content: [{ type: "text", text: "Listing the folder." }, { type: "toolCall", id: "c1", name: "ls", arguments: { path: "." } }] }, stopReason: "toolUse", step: 0, attempt: 0 } },
    ]);
    const page = await browser.newPage();
    await openRun(page, "live", runId, "conv-live");
    await page.waitForSelector("[data-row=tool]");
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 7));
    expect(await rowsOf(page)).toEqual(["text", "tool:ls"]);
    expect(await page.locator("[data-testid=run]").getAttribute("data-status")).toBe("running");
    await store.append([
      { eventId: `${runId}/tool/c1/result`, runId, type: "tool_result", payload: { message: { role: "toolResult", toolCallId: "c1", toolName: "ls", content: [{ type: "text", text: "a.txt\nb.txt" }], isError: false }, details: null } },
      { eventId: `${runId}/model/1`, runId, type: "assistant_message", payload: { message: { role: "assistant", content: [{ type: "text", text: "There are 2 files." }] }, stopReason: "stop", step: 1, attempt: 0 } },
      { eventId: `${runId}/end`, runId, type: "run_finished", payload: { status: "completed", toolCallCount: 1 } },
    ]);
    await store.close();
    await page.waitForSelector("[data-testid=run][data-status=completed]");
    expect(await rowsOf(page)).toEqual(["text", "tool:ls", "text"]);
    expect(await page.locator("[data-row=tool] .badge").textContent()).toBe("completed");
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(7);
    await page.close();
  }, 120_000);

  it("VIEW-3 with a session host: approving a tool in the page resumes the task at once", async () => {
    const decisions = decisionsFor(storage);
    const host = await createAgentSessionHost("conv-host", {
      projectId: PROJECT,
      storage,
      models: createOfflineModel({ steps: [{ text: "Saving it.", toolCalls: [{ id: "call_save", name: "workflow-kv_kv_store", arguments: { action: "set", key: "answer", value: 42 } }] }, { text: "Saved." }] }),
      toolCatalog: [{ id: "workflow-kv_kv_store" }],
      toolPermissions: decisions.toolPermissions,
      userInput: decisions.userInput,
      createTools: (context) => createProjectCapabilityTools({ context }),
      retryDelayMs: 0,
    });
    try {
      const { taskId, runId } = (await host.control({ type: "submit", prompt: "Remember 42" })) as { taskId: string; runId: string };
      expect((await host.waitForTask(taskId)).status).toBe("waiting");
      const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
      await openRun(page, "agent", runId, "conv-host");
      await page.waitForSelector("[data-testid=pending][data-kind=tool_approval]");
      expect(await page.locator("[data-row=tool] .badge").textContent()).toBe("awaiting approval");
      await shot(page, "viewer-approval.png");
      await page.locator("[data-testid=approve]").click();
      await page.waitForFunction(() => document.querySelector("[data-testid=answer-note]")?.textContent?.includes("session host resumes"));
      await page.waitForSelector("[data-testid=run][data-status=completed]");
      expect((await host.waitForTask(taskId)).status).toBe("completed");
      expect((await storage.kv.get({ projectId: PROJECT }, "answer"))?.value).toBe(42);
      expect(await rowsOf(page)).toEqual(["text", "tool:workflow-kv_kv_store", "text"]);
      await page.close();
    } finally {
      await host.close();
    }
  }, 120_000);

  it("VIEW-1 a 10 000-event session opens in pages of readAfter(afterSeq, { limit })", async () => {
    await writeLargeSession(storage, { sessionKey: "big", runId: "run-big", events: 10_000 });
    const page = await browser.newPage();
    const pages: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/api/events")) pages.push(new URL(request.url()).searchParams.get("limit")!);
    });
    await openRun(page, "big", "run-big", "conv-large");
    // Loading all pages on this shared, loaded machine may take a while; no timing is asserted.
    await page.waitForSelector("[data-testid=run][data-status=completed]", { timeout: 150_000 });
    await page.waitForFunction(() => !document.querySelector("[data-testid=loading]"), undefined, { timeout: 150_000 });
    expect(pages.length).toBeGreaterThanOrEqual(20);
    expect(new Set(pages)).toEqual(new Set(["500"]));
    const rows = await rowsOf(page);
    expect(rows.filter((row) => row === "tool:read").length).toBe(2_500);
    expect(rows[0]).toBe("text");
    await page.close();
  }, 300_000);
});
