/// <reference lib="dom" />
// FORK-1 FORK-2 (issue 46 item 5) in headless Chromium: "fork from here" on a transcript entry
// before an unsafe tool call opens the fork's page with the parent's hazard list; a fork of that
// fork shows the tree parent → child → grandchild, built from the recorded pointers.
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "@jest/globals";
import { Type } from "@sinclair/typebox";
import type { Browser, Page } from "playwright-core";
import type { SqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import type { ViewerServer } from "../../src/adapters/driving/viewer/viewer-server.js";
import { viewerSessionId } from "../../src/adapters/driving/viewer/viewer-sessions.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { forkLineage } from "../../src/app/time-travel/fork-session.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import { runStreamNode } from "../../src/domain/stream-node.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { viewerE2e } from "./e2e-harness.js";
import { PROJECT } from "./fixtures.js";

const effectsFile = join(tempDirRemovedAfterAll("viewer-forks-effects-"), "effects.log");
const fired = (): string[] => (existsSync(effectsFile) ? readFileSync(effectsFile, "utf8").split("\n").filter(Boolean) : []);
/** Not declared replay-safe: every call is an effect, counted by the tool itself. */
const charge: AgentTool = {
  name: "charge", label: "charge", description: "Charges an amount", parameters: Type.Object({ amount: Type.Number() }),
  async execute(_id, args) {
    appendFileSync(effectsFile, `${String((args as { amount: number }).amount)}\n`);
    return { content: [{ type: "text", text: `charged ${String((args as { amount: number }).amount)}` }] };
  },
};
const parent = { projectId: PROJECT, conversationId: "conv-fork", sessionKey: "agent" };
let viewer: ViewerServer;
let browser: Browser;
let storage: SqliteStorage;
const e2e = viewerE2e("viewer-forks-");

beforeAll(async () => {
  ({ viewer, browser, storage } = await e2e.start(async (opened) => {
    const node = createAgentNode({ models: createOfflineModel({ steps: [{ text: "Charging.", toolCalls: [{ id: "c5", name: "charge", arguments: { amount: 5 } }] }, { text: "Charged 5." }] }), workdir: process.cwd(), retryDelayMs: 0, sessionKey: parent.sessionKey, extraTools: [charge] });
    const context = createNodeContext({ projectId: PROJECT, conversationId: parent.conversationId, storage: opened, runId: "run-charge", toolCatalog: [{ id: "charge", autoApprove: true }] });
    await runStreamNode(node, { prompt: "Charge 5 please", runId: "run-charge" }, context);
  }));
  expect(fired()).toEqual(["5"]);
}, 180_000);

/** Opens `s`'s transcript and clicks "fork from here" on its user message; resolves the fork's viewer id. */
async function forkAtPrompt(page: Page, s: string): Promise<string> {
  await page.goto(`${viewer.url}#/session/${s}/transcript`);
  const entry = page.locator("[data-testid=t-entry]", { has: page.locator("[data-testid=t-message][data-role=user]") });
  await entry.locator("[data-testid=fork-here]").click();
  await page.waitForFunction((from) => /^#\/session\/[^/]+$/.test(location.hash) && !location.hash.includes(from), s);
  await page.waitForSelector("[data-testid=fork-parent]");
  return /^#\/session\/([^/]+)$/.exec(await page.evaluate(() => location.hash))![1]!;
}

describe("FORK-1 FORK-2 the viewer forks a session and draws the fork tree (Chromium)", () => {
  it("FORK-1 FORK-2 fork from here at the prompt before an unsafe call: the fork's page lists the hazard; a fork of it shows parent → child → grandchild", async () => {
    const page = await browser.newPage();
    try {
      const child = await forkAtPrompt(page, viewerSessionId(parent));
      expect(await page.locator("[data-testid=fork-parent] a").textContent()).toBe("agent");
      const hazards = page.locator("[data-testid=hazard]");
      expect(await hazards.count()).toBe(1);
      expect(await hazards.first().getAttribute("data-replay")).toBe("unsafe");
      expect(await hazards.first().textContent()).toContain('charge {"amount":5} unsafe ran');
      // The fork holds the parent's prefix through the prompt, and records its parent: nothing ran again.
      expect(fired()).toEqual(["5"]);

      const grandchild = await forkAtPrompt(page, child);
      const tree = page.locator("[data-testid=fork-tree]");
      await tree.locator("[data-testid=fork-current]").waitFor();
      const path = await tree.evaluate((root) => {
        const chain: string[] = [];
        let node = root.querySelector(":scope > [data-testid=fork-node]");
        while (node) {
          chain.push(`${node.getAttribute("data-session")}${node.querySelector(":scope > [data-testid=fork-current]") ? " (here)" : ""}`);
          node = node.querySelector(":scope > ul > [data-testid=fork-node]");
        }
        return chain;
      });
      const [childKey, grandchildKey] = await Promise.all([child, grandchild].map(async (id) => JSON.parse(Buffer.from(id, "base64url").toString("utf8"))[2] as string));
      expect(path).toEqual(["agent", childKey, `${grandchildKey} (here)`]);
      expect(grandchildKey.startsWith(`${childKey}#fork-`)).toBe(true);
      // The grandchild's lineage keeps its grandparent's guards (the recorded pointers the tree was drawn from).
      const lineage = await forkLineage(storage.sessions, { ...parent, sessionKey: grandchildKey });
      expect(lineage.map((record) => [record.parent.sessionKey, record.hazards.map((hazard) => hazard.toolName)])).toEqual([["agent", ["charge"]], [childKey, []]]);

      // The parent's page draws the same tree, itself as the root.
      await page.goto(`${viewer.url}#/session/${viewerSessionId(parent)}`);
      await page.waitForSelector("[data-testid=fork-tree] [data-testid=fork-current]");
      expect(await page.locator("[data-testid=fork-tree] [data-testid=fork-node]").evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-session")))).toEqual(["agent", childKey, grandchildKey]);
      expect(await page.locator("[data-testid=fork-parent]").count()).toBe(0);
    } finally {
      await page.close();
    }
  }, 90_000);

  it("FORK-1 a fork point past the session's head is refused with 400 and nothing is written", async () => {
    const page = await browser.newPage();
    try {
      await page.goto(viewer.url);
      const before = (await (await fetch(`http://127.0.0.1:${viewer.port}/api/projects`, { headers: { "x-steamharness-token": viewer.token } })).json()) as { projects: Array<{ conversations: Array<{ sessions: unknown[] }> }> };
      const answer = await page.evaluate(async ([s, token]) => {
        const response = await fetch("/api/fork", { method: "POST", headers: { "content-type": "application/json", "x-steamharness-token": token! }, body: JSON.stringify({ s, seq: 10_000 }) });
        return { status: response.status, body: await response.json() };
      }, [viewerSessionId(parent), viewer.token]);
      expect(answer).toEqual({ status: 400, body: { error: expect.objectContaining({ code: "input_validation", field: "at" }) } });
      const after = (await (await fetch(`http://127.0.0.1:${viewer.port}/api/projects`, { headers: { "x-steamharness-token": viewer.token } })).json()) as typeof before;
      const count = (body: typeof before) => body.projects.flatMap((project) => project.conversations.flatMap((conversation) => conversation.sessions)).length;
      expect(count(after)).toBe(count(before));
    } finally {
      await page.close();
    }
  }, 60_000);
});
