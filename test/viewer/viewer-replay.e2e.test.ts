/// <reference lib="dom" />
// REPLAY-2 (issue 46 item 5) in headless Chromium: from a recorded run's page a link opens its
// replay's page, which shows the replay's structured diff beside the original — final text, tool
// sequence, approvals, tokens, cost, latency, steps — and links back to the original run.
import { beforeAll, describe, expect, it } from "@jest/globals";
import type { Browser } from "playwright-core";
import type { ViewerServer } from "../../src/adapters/driving/viewer/viewer-server.js";
import { viewerSessionId } from "../../src/adapters/driving/viewer/viewer-sessions.js";
import { openAgent } from "../../src/app/agent/create-agent.js";
import { replayRun, type ReplayResult } from "../../src/app/time-travel/replay.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { effects, fixtureAgent, fixtureContext, PROJECT, RECORDED_STEPS, SESSION_KEY } from "../time-travel/replay-fixture.js";
import { viewerE2e } from "./e2e-harness.js";

const original = { projectId: PROJECT, sessionKey: SESSION_KEY };
let viewer: ViewerServer;
let browser: Browser;
let replay: ReplayResult;
const dir = tempDirRemovedAfterAll("viewer-replay-work-");
const e2e = viewerE2e("viewer-replay-");

beforeAll(async () => {
  ({ viewer, browser } = await e2e.start(async (storage) => {
    for await (const chunk of openAgent({ ...fixtureAgent(dir), sessionKey: SESSION_KEY, sessions: storage.sessions }).run({ prompt: "Look up alpha, then charge card-1.", runId: "run-original" }, fixtureContext(storage, "run-original"))) void chunk;
    const source = (await storage.sessions.openUnleased({ address: original, create: false }))!;
    // Another model's answer: it looks up alpha, then declines to charge.
    const steps = [RECORDED_STEPS[0]!, { text: "I will not charge.", usage: { input: 300, output: 30 } }];
    replay = await replayRun("run-original", { source, sessions: storage.sessions, agent: fixtureAgent(dir, steps), context: fixtureContext(storage, "x"), tools: "recorded", runId: "replay-1", price: { input: 1, output: 2 } });
    await source.close();
  }));
  expect({ status: replay.status, answered: replay.answered, live: replay.live }).toEqual({ status: "completed", answered: 1, live: 0 });
  expect(effects(dir, "charge")).toEqual(["card-1"]);
}, 180_000);

describe("REPLAY-2 the viewer shows a replay's diff beside the original (Chromium)", () => {
  it("REPLAY-2 the original run's page links its replay; the replay's page shows the diff side by side and links back", async () => {
    const page = await browser.newPage();
    try {
      const originalId = viewerSessionId(original);
      await page.goto(`${viewer.url}#/session/${originalId}/run/run-original`);
      const link = page.locator("[data-testid=replay-link]");
      await link.waitFor();
      expect(await link.textContent()).toBe("replay-1");
      // The original is no replay: no diff on its page.
      expect(await page.locator("[data-testid=replay-diff]").count()).toBe(0);

      await link.click();
      await page.waitForSelector("[data-testid=replay-diff]");
      expect(await page.evaluate(() => decodeURIComponent(location.hash))).toBe(`#/session/${viewerSessionId(replay.address)}/run/replay-1`);
      const rows = await page.locator("[data-testid=diff-row]").evaluateAll((elements) =>
        elements.map((row) => ({
          field: row.getAttribute("data-field"),
          equal: row.getAttribute("data-equal"),
          original: row.querySelector("[data-testid=diff-original]")!.textContent,
          replay: row.querySelector("[data-testid=diff-replay]")!.textContent,
        })),
      );
      const byField = Object.fromEntries(rows.map((row) => [row.field, row]));
      expect(rows.map((row) => row.field)).toEqual(["status", "finalText", "toolSequence", "approvals", "tokens", "costUsd", "latencyMs", "steps"]);
      // The same diff replayRun returned, drawn field by field.
      for (const row of rows) expect([row.field, row.equal]).toEqual([row.field, String((replay.diff as unknown as Record<string, { equal: boolean }>)[row.field!]!.equal)]);
      expect(byField.status).toMatchObject({ equal: "true", original: "completed", replay: "completed" });
      expect(byField.finalText).toMatchObject({ equal: "false", original: "Charged card-1 after looking up alpha.", replay: "I will not charge." });
      expect(byField.toolSequence).toMatchObject({ equal: "false", original: 'lookup({"key":"alpha"})charge({"key":"card-1"})', replay: 'lookup({"key":"alpha"})' });
      expect(byField.approvals).toMatchObject({ original: "approved", replay: "none" });
      expect(byField.tokens!.replay).toContain("440");
      expect(byField.tokens!.replay).toContain("(+50)");
      expect(byField.costUsd).toMatchObject({ original: `$${replay.diff.costUsd.original!.toFixed(6)}`, replay: `$${replay.diff.costUsd.replay!.toFixed(6)}` });
      expect(byField.steps).toMatchObject({ original: "3", replay: "2" });
      expect(await page.locator("[data-testid=replay-same]").textContent()).toContain("Differs");
      // The replay's own run is drawn below as any run is.
      expect(await page.locator("[data-testid=prompt]").textContent()).toBe("Look up alpha, then charge card-1.");

      await page.locator("[data-testid=replay-original]").click();
      await page.waitForSelector("[data-testid=replay-link]");
      expect(await page.evaluate(() => decodeURIComponent(location.hash))).toBe(`#/session/${originalId}/run/run-original`);
    } finally {
      await page.close();
    }
  }, 90_000);

  it("REPLAY-2 GET /api/replay: not_found for an unknown run, nothing for a run that is no replay and has none", async () => {
    const get = (s: string, runId: string) => fetch(`http://127.0.0.1:${viewer.port}/api/replay?${new URLSearchParams({ s, runId })}`, { headers: { "x-steamharness-token": viewer.token } });
    const unknown = await get(viewerSessionId(original), "nope");
    expect({ status: unknown.status, body: await unknown.json() }).toEqual({ status: 404, body: { error: expect.objectContaining({ code: "not_found" }) } });
    const plain = await get(viewerSessionId(replay.address), "replay-1");
    expect((await plain.json()).replays).toEqual([]);
    const none = await get(viewerSessionId({ ...original, sessionKey: "missing" }), "run-original");
    expect(none.status).toBe(404);
  }, 60_000);
});
