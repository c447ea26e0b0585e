/// <reference lib="dom" />
// VIEW-8 (the viewer's polish) and VIEW-7 (the run's timeline) in headless Chromium, on runs of
// the real agent with the offline model, a real tool that takes its time, and real approvals:
// one run paused on a tool approval and answered in the page (its host runs it again later), one
// run of a session host answered in the page while the host waits.
import { beforeAll, describe, expect, it } from "@jest/globals";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Type } from "@sinclair/typebox";
import type { Browser, Page } from "playwright-core";
import type { ViewerServer } from "../../src/adapters/driving/viewer/viewer-server.js";
import { createStoredDecisions, type StoredDecisions } from "../../src/adapters/driving/viewer/stored-decisions.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { createProjectCapabilityTools } from "../../src/app/capabilities/project-capabilities.js";
import { createAgentSessionHost } from "../../src/compose/session-host.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import type { SessionEvent } from "../../src/domain/agent/session-events.js";
import { runStreamNode } from "../../src/domain/stream-node.js";
import type { ModelProvider } from "../../src/ports/model-provider.js";
import type { SqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createOfflineModel, type OfflineStep } from "../../src/testing/offline-model.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { viewerE2e } from "./e2e-harness.js";

const PROJECT = "7d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const PROJECT_NAME = "Release desk";
const LOOKUP_MS = 450;
// A timer of 450 ms measured by two whole-millisecond wall-clock stamps can read 449 (the timer runs
// on the monotonic clock; each stamp is truncated): the recorded tool time is at least this.
const LOOKUP_RECORDED_MS = LOOKUP_MS - 1;
const MODEL_MS = 250;
const PROMPT = "Find the release notes for 1.0 and summarise them";

/** A real tool that takes its time (the release notes are "far away"). */
const lookup: AgentTool = {
  name: "release_lookup",
  label: "Release lookup",
  description: "Looks up release notes",
  parameters: Type.Object({ query: Type.String(), limit: Type.Number() }),
  replay: "safe",
  async execute() {
    await sleep(LOOKUP_MS);
    return { content: [{ type: "text", text: "1.0: the API is frozen, the changelog is written." }] };
  },
};

const STEPS: OfflineStep[] = [
  { text: "Looking it up.", toolCalls: [{ id: "call_lookup", name: "release_lookup", arguments: { query: "release notes 1.0", limit: 3 } }] },
  { text: "The API is frozen and the changelog is written." },
];

/** The offline model, each request taking `MODEL_MS` before its first byte (a model that thinks). */
function slowModel(): ModelProvider {
  const model = createOfflineModel({ steps: STEPS, chunkSize: 16 });
  return {
    descriptor: model.descriptor,
    async *stream(request, signal) {
      await sleep(MODEL_MS);
      yield* model.stream(request, signal);
    },
  };
}

// The timeline's screenshot for docs/images is written only when asked (UPDATE_SCREENSHOTS=1), never by CI.
const SHOTS = process.env.UPDATE_SCREENSHOTS === "1" ? join(process.cwd(), "docs", "images") : null;

let storage: SqliteStorage;
let viewer: ViewerServer;
let browser: Browser;
const e2e = viewerE2e("viewer-polish-");
let projectDir: string;
let decisions: StoredDecisions;

/** Runs (or re-runs, as its host does after a decision) a run in the project folder; never throws on a pause. */
async function runAgent(runId: string, conversationId: string, prompt = PROMPT): Promise<string> {
  const node = createAgentNode({ models: slowModel(), workdir: projectDir, retryDelayMs: 0, sessionKey: "agent", createTools: async (context) => [...(await createProjectCapabilityTools({ context })), lookup] });
  const context = createNodeContext({ projectId: PROJECT, storage, runId, conversationId, toolCatalog: [{ id: "release_lookup" }], toolPermissions: decisions.toolPermissions, userInput: decisions.userInput });
  try {
    await runStreamNode(node, { prompt, runId }, context);
    return "completed";
  } catch (error) {
    return (error as { code?: string }).code === "user_input_required" ? "paused" : `failed: ${String(error)}`;
  }
}

async function eventsOf(conversationId: string, runId: string): Promise<SessionEvent[]> {
  const store = (await storage.sessions.openUnleased({ address: { projectId: PROJECT, conversationId, sessionKey: "agent" }, create: false }))!;
  try {
    return (await store.readAfter(0)).filter((event) => event.runId === runId);
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  projectDir = tempDirRemovedAfterAll("viewer-polish-project-");
  mkdirSync(projectDir, { recursive: true });
  // The project folder the runs work in: its package.json names the project.
  writeFileSync(join(projectDir, "package.json"), JSON.stringify({ name: PROJECT_NAME, id: PROJECT, type: "module" }));
  ({ storage, viewer, browser } = await e2e.start(async (opened) => {
    storage = opened;
    decisions = createStoredDecisions({ values: storage.values, projectId: PROJECT });
    expect(await runAgent("run-approve", "conv-approve")).toBe("paused");
    expect(await runAgent("run-other", "conv-other", "Say hello")).toBe("paused");
    await decisions.record((await waitsOf("conv-other", "run-other"))[0]!, { kind: "tool_approval", decision: { outcome: "approved" } });
    expect(await runAgent("run-other", "conv-other", "Say hello")).toBe("completed");
  }));
}, 180_000);

async function waitsOf(conversationId: string, runId: string): Promise<string[]> {
  return (await eventsOf(conversationId, runId)).flatMap((event) => (event.type === "approval_wait" ? [event.payload.requestId] : []));
}

async function openRun(page: Page, conversationTitle: string, runId: string): Promise<void> {
  await page.goto(viewer.url);
  await page.locator("[data-testid=conversation]", { hasText: conversationTitle }).locator("[data-testid=session-link]").click();
  await page.locator("[data-testid=run-link]", { hasText: runId }).click();
  await page.waitForSelector("[data-testid=run]");
}

/** How often `text` occurs in the page's visible text. */
const occurrences = (page: Page, text: string) => page.evaluate((needle) => document.body.innerText.split(needle).length - 1, text);

describe("VIEW-8 viewer polish in headless Chromium", () => {
  it("VIEW-8 the list names projects (package.json) and conversations (first prompt), ids beside them, and badges the waiting session", async () => {
    const page = await browser.newPage();
    await page.goto(viewer.url);
    const project = page.locator("[data-testid=project]");
    await expect(project.locator("[data-testid=project-name]").textContent()).resolves.toBe(PROJECT_NAME);
    await expect(project.locator("[data-testid=project-name-id]").textContent()).resolves.toBe(PROJECT);
    const waiting = page.locator("[data-testid=conversation]", { hasText: "conv-approve" });
    await expect(waiting.locator("[data-testid=conversation-title]").textContent()).resolves.toBe(PROMPT);
    await expect(waiting.locator("[data-testid=conversation-title-id]").textContent()).resolves.toBe("conv-approve");
    await expect(waiting.locator("[data-testid=session-waiting]").count()).resolves.toBe(1);
    await expect(waiting.locator("[data-testid=session-waiting]").textContent()).resolves.toContain("waiting");
    const done = page.locator("[data-testid=conversation]", { hasText: "conv-other" });
    await expect(done.locator("[data-testid=conversation-title]").textContent()).resolves.toBe("Say hello");
    await expect(done.locator("[data-testid=session-waiting]").count()).resolves.toBe(0);
    // The session page's path reads the same names.
    await waiting.locator("[data-testid=session-link]").click();
    await page.waitForSelector("[data-testid=run-row]");
    const crumbs = await page.locator("[data-testid=crumbs]").textContent();
    expect(crumbs).toContain(PROJECT_NAME);
    expect(crumbs).toContain(PROMPT);
    expect(crumbs).not.toContain(PROJECT);
    await page.close();
  }, 60_000);

  it("VIEW-8 a tool approval shows its arguments unfolded; approving shows the decision once and no buttons, also after a reload", async () => {
    const page = await browser.newPage();
    await openRun(page, "conv-approve", "run-approve");
    await page.waitForSelector("[data-testid=pending][data-kind=tool_approval]");
    const args = page.locator("[data-testid=pending] [data-testid=pending-arguments]");
    expect(await args.isVisible()).toBe(true);
    expect(JSON.parse((await args.textContent())!)).toEqual({ query: "release notes 1.0", limit: 3 });
    await page.locator("[data-testid=approve]").click();
    await page.waitForSelector("[data-testid=answer-note]");
    const note = "the run resumes when its host runs it again";
    expect(await page.locator("[data-testid=answer-note]").textContent()).toBe(`Approved: ${note}`);
    expect(await occurrences(page, note)).toBe(1);
    expect(await page.locator("[data-testid=approve]").count()).toBe(0);
    expect(await page.locator("[data-testid=deny]").count()).toBe(0);
    expect(await page.locator("[data-testid=pending]").count()).toBe(0);
    // The run still waits (its host has not run it again): a reload shows the recorded answer, no buttons.
    expect(await page.locator("[data-testid=run]").getAttribute("data-status")).toBe("waiting");
    await page.reload();
    await page.waitForSelector("[data-testid=answer-note]");
    expect(await page.locator("[data-testid=answer-note]").textContent()).toContain("Approved (recorded)");
    expect(await occurrences(page, note)).toBe(1);
    expect(await page.locator("[data-testid=approve]").count()).toBe(0);
    await page.close();
  }, 60_000);

  it("VIEW-8 durations of runs, the run and its tool; \"1 tool call\" in the singular", async () => {
    // The run approved before the viewer opened and run again to its end.
    const page = await browser.newPage();
    await page.goto(viewer.url);
    await page.locator("[data-testid=conversation]", { hasText: "conv-other" }).locator("[data-testid=session-link]").click();
    const cell = page.locator("[data-testid=run-row]", { hasText: "run-other" }).locator("[data-testid=run-duration]");
    await cell.waitFor();
    const events = await eventsOf("conv-other", "run-other");
    const started = events.find((event) => event.type === "run_started")!;
    const startedAt = started.type === "run_started" ? started.payload.startedAt! : 0;
    const runMs = events.at(-1)!.at - startedAt;
    expect(Number(await cell.getAttribute("data-ms"))).toBe(runMs);
    expect(await cell.textContent()).toMatch(/^\d+(\.\d)? (ms|s|min \d\d s)$/);
    await page.locator("[data-testid=run-link]", { hasText: "run-other" }).click();
    await page.waitForSelector("[data-testid=run][data-status=completed]");
    const tool = page.locator("[data-row=tool][data-tool=release_lookup] [data-testid=tool-duration]");
    expect(Number(await tool.getAttribute("data-ms"))).toBeGreaterThanOrEqual(LOOKUP_RECORDED_MS);
    const toolMs = Number(await tool.getAttribute("data-ms"));
    expect(await tool.textContent()).toBe(toolMs < 1000 ? `${toolMs} ms` : `${(toolMs / 1000).toFixed(1)} s`);
    expect(await page.locator("[data-testid=run-took]").textContent()).toMatch(/^took \d/);
    expect(Number(await page.locator("[data-testid=run-took]").getAttribute("data-ms"))).toBe(runMs);
    const usage = await page.locator("[data-testid=usage]").textContent();
    expect(usage).toContain("· 1 tool call");
    expect(usage).not.toContain("1 tool calls");
    await page.close();
  }, 60_000);
});

describe("VIEW-7 the run's timeline in headless Chromium", () => {
  it("VIEW-7 a run with a real tool call and an approval wait: one bar per model request, tool and wait, widths proportional to their durations", async () => {
    const host = await createAgentSessionHost("conv-host", {
      projectId: PROJECT,
      storage,
      models: slowModel(),
      workdir: projectDir,
      toolCatalog: [{ id: "release_lookup" }],
      toolPermissions: decisions.toolPermissions,
      userInput: decisions.userInput,
      createTools: async (context) => [...(await createProjectCapabilityTools({ context })), lookup],
      retryDelayMs: 0,
    });
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    try {
      const { taskId, runId } = (await host.control({ type: "submit", prompt: "Check the notes" })) as { taskId: string; runId: string };
      expect((await host.waitForTask(taskId)).status).toBe("waiting");
      await openRun(page, "Check the notes", runId);
      await page.waitForSelector("[data-testid=pending][data-kind=tool_approval]");
      // While it waits, the wait's bar is open and runs to the end of the timeline.
      const open = page.locator("[data-testid=timeline-row][data-kind=wait]");
      expect(await open.getAttribute("data-open")).toBe("true");
      // A person takes a while to decide.
      await sleep(900);
      await page.locator("[data-testid=approve]").click();
      await page.waitForSelector("[data-testid=run][data-status=completed]");
      expect((await host.waitForTask(taskId)).status).toBe("completed");
      await page.waitForFunction(() => document.querySelectorAll("[data-testid=timeline-row]").length === 4);

      // What the log says, independently of the page: the events' own times.
      const events = await eventsOf("conv-host", runId);
      const expected: Array<{ kind: string; ms: number }> = [];
      const waitAt = new Map<string, number>();
      for (const event of events) {
        if (event.type === "assistant_message") expected.push({ kind: "model", ms: event.payload.timing!.endedAt - event.payload.timing!.startedAt });
        if (event.type === "approval_wait") waitAt.set(event.payload.requestId, event.at);
        if (event.type === "approval_decision") expected.push({ kind: "wait", ms: event.at - waitAt.get(event.payload.requestId)! });
        if (event.type === "tool_result") expected.push({ kind: "tool", ms: event.payload.timing!.endedAt - event.payload.timing!.startedAt });
      }
      const start = events.find((event) => event.type === "run_started")!;
      const startedAt = start.type === "run_started" ? start.payload.startedAt! : 0;
      const span = Math.max(...events.map((event) => event.at)) - startedAt;

      const rows = await page.$$eval("[data-testid=timeline-row]", (nodes) =>
        nodes.map((node) => {
          const track = node.querySelector(".tl-track")!.getBoundingClientRect();
          const bar = node.querySelector("[data-testid=timeline-bar]")!.getBoundingClientRect();
          return { kind: node.getAttribute("data-kind")!, ms: Number(node.getAttribute("data-duration")), open: node.getAttribute("data-open"), track: track.width, width: bar.width, left: bar.left - track.left };
        }),
      );
      expect(rows.map((row) => row.kind)).toEqual(["model", "wait", "tool", "model"]);
      expect(Number(await page.locator("[data-testid=timeline]").getAttribute("data-span"))).toBe(span);
      // Each bar is as long as what it stands for: the model's think time, the tool's sleep, the person's pause.
      const byKind = (kind: string) => expected.filter((entry) => entry.kind === kind).map((entry) => entry.ms);
      expect(rows.filter((row) => row.kind === "model").map((row) => row.ms)).toEqual(byKind("model"));
      expect(rows.filter((row) => row.kind === "tool").map((row) => row.ms)).toEqual(byKind("tool"));
      expect(rows.filter((row) => row.kind === "wait").map((row) => row.ms)).toEqual(byKind("wait"));
      for (const ms of byKind("model")) expect(ms).toBeGreaterThanOrEqual(MODEL_MS);
      expect(byKind("tool")[0]).toBeGreaterThanOrEqual(LOOKUP_RECORDED_MS);
      expect(byKind("wait")[0]).toBeGreaterThanOrEqual(900);
      expect(rows.every((row) => row.open === "false")).toBe(true);
      // Widths in proportion to durations (within 1 % of the track), and placed in time order.
      for (const row of rows) expect(Math.abs(row.width / row.track - row.ms / span)).toBeLessThan(0.01);
      const wait = rows[1]!;
      const tool = rows[2]!;
      expect(wait.width / tool.width).toBeCloseTo(wait.ms / tool.ms, 1);
      for (let i = 1; i < rows.length; i++) expect(rows[i]!.left).toBeGreaterThanOrEqual(rows[i - 1]!.left + rows[i - 1]!.width - 1);
      const totals = await page.locator("[data-testid=timeline-totals]").textContent();
      expect(totals).toMatch(/in all · model .+ · tools .+ · waiting .+/);
      if (SHOTS) await page.locator("[data-testid=run]").screenshot({ path: join(SHOTS, "viewer-timeline.png") });
    } finally {
      await page.close();
      await host.close();
    }
  }, 120_000);
});
