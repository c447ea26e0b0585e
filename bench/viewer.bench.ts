/**
 * VIEW-1 benchmark: opening a run in the viewer, measured in headless Chromium, from navigation
 * to the page's `viewer:first-paint` mark (the first page of events drawn), for a 100-event and
 * a 10 000-event session. Goal: the large one within 2× of the small one (paged reads).
 * Writes bench/results/viewer.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createViewerServer } from "../src/compose/viewer.js";
import { viewerSessionId } from "../src/adapters/driving/viewer/viewer-sessions.js";
import { buildViewerAssets } from "../ui/build.js";
import { launchChromium } from "../test/viewer/browser.js";
import { openStorage, PROJECT, writeLargeSession } from "../test/viewer/fixtures.js";

const ROUNDS = 7;
const root = mkdtempSync(join(tmpdir(), "viewer-bench-"));
const assets = join(root, "assets");
await buildViewerAssets(assets);
const storage = openStorage(join(root, "store"));
await writeLargeSession(storage, { sessionKey: "small", runId: "run-small", events: 100 });
await writeLargeSession(storage, { sessionKey: "large", runId: "run-large", events: 10_000 });
const viewer = await createViewerServer({ storage, assetsDirectory: assets });
const { browser, close } = await launchChromium();

async function open(sessionKey: string, runId: string): Promise<{ firstPaint: number; loaded: number }> {
  const page = await browser.newPage();
  const s = viewerSessionId({ projectId: PROJECT, conversationId: "conv-large", sessionKey });
  await page.goto(`${viewer.url}#/session/${s}/run/${runId}`);
  await page.waitForFunction(() => performance.getEntriesByName("viewer:loaded").length > 0, undefined, { timeout: 300_000 });
  const marks = await page.evaluate(() => ({ firstPaint: performance.getEntriesByName("viewer:first-paint")[0]!.startTime, loaded: performance.getEntriesByName("viewer:loaded")[0]!.startTime }));
  await page.close();
  return marks;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const runs: Record<string, Array<{ firstPaint: number; loaded: number }>> = { small: [], large: [] };
await open("small", "run-small"); // warm-up: compile caches, open stores
await open("large", "run-large");
for (let round = 0; round < ROUNDS; round++) {
  // Alternate so a load spike on this shared machine hits both sides alike.
  runs.small!.push(await open("small", "run-small"));
  runs.large!.push(await open("large", "run-large"));
}
const small = median(runs.small!.map((run) => run.firstPaint));
const large = median(runs.large!.map((run) => run.firstPaint));
const result = {
  benchmark: "viewer",
  what: "navigation → first paint of a run (first page of events drawn), median of 7 in headless Chromium",
  sessions: { small: 100, large: 10_000 },
  firstPaintMs: { small: Math.round(small), large: Math.round(large) },
  ratio: Math.round((large / small) * 100) / 100,
  goal: "ratio ≤ 2",
  fullyLoadedMs: { small: Math.round(median(runs.small!.map((run) => run.loaded))), large: Math.round(median(runs.large!.map((run) => run.loaded))) },
  at: new Date().toISOString(),
};
mkdirSync("bench/results", { recursive: true });
writeFileSync("bench/results/viewer.json", `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
await close();
await viewer.close();
await storage.close();
rmSync(root, { recursive: true, force: true });
