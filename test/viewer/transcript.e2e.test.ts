/// <reference lib="dom" />
// UI-7 (issue 45 item 7) in headless Chromium: from the session list, a conversation opens as a
// transcript — the messages, the tool calls, the approval with who answered and the wait, the
// compaction's summary — and a prompt holding markup shows as text.
import { beforeAll, describe, expect, it } from "@jest/globals";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import type { ViewerServer } from "../../src/adapters/driving/viewer/viewer-server.js";
import { viewerE2e } from "./e2e-harness.js";
import { decisionsFor } from "./fixtures.js";
import { HOSTILE_PROMPT, SUMMARY, TRANSCRIPT_CONVERSATION, WAIT_MS, writeTranscriptConversation } from "./transcript-fixture.js";

// UPDATE_SCREENSHOTS=1 writes the docs' picture of the page (as the other viewer tests do).
const SHOTS = process.env.UPDATE_SCREENSHOTS === "1" ? join(process.cwd(), "docs", "images") : null;
let viewer: ViewerServer;
let browser: Browser;
const e2e = viewerE2e("viewer-transcript-");

beforeAll(async () => {
  ({ viewer, browser } = await e2e.start(async (storage) => {
    // Answered as the viewer's page records it: through the stored-decision port, by the viewer.
    const statuses = await writeTranscriptConversation(storage, (_runId, requestId) => decisionsFor(storage).record(requestId, { kind: "tool_approval", decision: { outcome: "approved", answeredBy: { surface: "viewer", at: Date.now() } } }));
    expect(statuses).toEqual(["completed", "user_input_required", "completed"]);
  }));
}, 180_000);

describe("UI-7 the viewer shows a conversation as a transcript (Chromium)", () => {
  it("UI-7 the session list links to the transcript, which shows messages, tool calls, the approval with who answered and the wait, and the compaction summary", async () => {
    const page = await browser.newPage();
    try {
      await page.goto(viewer.url);
      await page.locator("[data-testid=conversation]", { hasText: TRANSCRIPT_CONVERSATION }).locator("[data-testid=transcript-link]").click();
      await page.waitForSelector("[data-testid=transcript] [data-testid=t-decision]");
      const texts = await page.locator("[data-testid=t-message] [data-testid=t-text]").allTextContents();
      expect(texts).toEqual(["Note the goal: ship 1.0", "I'll note the goal.", "Noted: ship 1.0.", HOSTILE_PROMPT, "Deleting it.", "The goal is deleted."]);
      expect(await page.locator("[data-testid=t-run]").count()).toBe(2);
      expect(await page.locator("[data-testid=t-tool]").count()).toBe(2);
      expect(await page.locator("[data-testid=t-result]").first().textContent()).toContain(`"stored":true`);
      expect(await page.locator("[data-testid=t-summary]").textContent()).toBe(SUMMARY);
      const decision = page.locator("[data-testid=t-decision]");
      expect(await decision.getAttribute("data-outcome")).toBe("approved");
      expect(await decision.locator("[data-testid=t-answered-by]").textContent()).toBe("viewer");
      expect(Number(await decision.locator("[data-testid=t-wait]").getAttribute("data-ms"))).toBeGreaterThanOrEqual(WAIT_MS);
      // The hostile prompt stayed text: no element from it, no script run.
      expect(await page.locator("[data-testid=transcript] img").count()).toBe(0);
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      if (SHOTS) await page.locator("[data-testid=transcript]").screenshot({ path: join(SHOTS, "viewer-transcript.png") });
    } finally {
      await page.close();
    }
  }, 60_000);
});
