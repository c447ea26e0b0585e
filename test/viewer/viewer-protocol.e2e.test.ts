/// <reference lib="dom" />
import { beforeAll, describe, expect, it } from "@jest/globals";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import type { ViewerServer } from "../../src/adapters/driving/viewer/viewer-server.js";
import { createRunReplay } from "../../src/adapters/driving/viewer/run-replay.js";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import type { OutputItem, OutputItemStreamChunk } from "../../src/domain/output-items.js";
import { createOutputStreamAccumulator } from "../../src/domain/output-stream.js";
import { runStreamNode } from "../../src/domain/stream-node.js";
import type { SqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createOfflineModel, type OfflineStep } from "../../src/testing/offline-model.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { viewerE2e } from "./e2e-harness.js";
import { PROJECT } from "./fixtures.js";

const CONVERSATION = "conv-protocol";
const RUN = "run-protocol";

// One run with every kind of retry record and an edit and a write: an answer cut at the output
// limit (length, continued silently), a 503 (recovery, silent), the tool calls, a dropped
// response (the one visible retry row), the final answer.
const SCRIPT: OfflineStep[] = [
  { text: "我先更新笔记", stop: "length" },
  { error: { message: "upstream returned 503", kind: "recovery", status: 503 } },
  { text: "，再写一份摘要。", toolCalls: [{ id: "call_edit", name: "edit", arguments: { path: "notes.md", oldText: "old line", newText: "new line" } }, { id: "call_write", name: "write", arguments: { path: "out/summary.md", content: "Summary" } }] },
  { error: { message: "connection dropped", kind: "dropped" } },
  { text: "完成。" },
];

let storage: SqliteStorage;
let viewer: ViewerServer;
let browser: Browser;
const e2e = viewerE2e("viewer-");
let live: OutputItem[] = [];

beforeAll(async () => {
  ({ storage, viewer, browser } = await e2e.start(async (opened) => {
    const workdir = tempDirRemovedAfterAll("viewer-workdir-");
    writeFileSync(join(workdir, "notes.md"), "# Notes\nold line\n");
    let call = 0;
    const node = createAgentNode({ models: createOfflineModel({ steps: () => SCRIPT[Math.min(call++, SCRIPT.length - 1)]!, chunkSize: 64 }), workdir, permissionPolicy: "workspace", retryDelayMs: 0 });
    const context = createNodeContext({ projectId: PROJECT, storage: opened, runId: RUN, conversationId: CONVERSATION, toolCatalog: [] });
    const accumulator = createOutputStreamAccumulator();
    await runStreamNode(node, { prompt: "更新笔记并写摘要", runId: RUN }, context, { onChunk: (chunk) => accumulator.push(chunk as OutputItemStreamChunk) });
    live = accumulator.items();
  }));
}, 180_000);

const rowsOf = (page: Page) => page.$$eval("[data-testid=rows] > [data-testid=row]", (rows) => rows.map((row) => `${row.getAttribute("data-row")}${row.getAttribute("data-tool") ? `:${row.getAttribute("data-tool")}` : ""}`));

describe("steamharness view follows the output protocol", () => {
  it("VIEW-6 the viewer's replay of the run's events rebuilds the items the run streamed live, hidden continuations and joined text included", async () => {
    const store = (await storage.sessions.openUnleased({ address: { projectId: PROJECT, conversationId: CONVERSATION, sessionKey: "agent" }, create: false }))!;
    const events = await store.readRun(RUN);
    await store.close();
    const replay = createRunReplay({ runId: RUN, sessionKey: "agent", projectId: PROJECT });
    replay.push(events);
    expect(replay.view().items).toEqual(live.filter((item) => item.metadata.kind !== "agent-session" && item.display?.type !== "ring"));
  });

  it("VIEW-6 only a dropped retry is a row (recovery and length stay silent, as live); an edit is drawn as a diff and a write as a file row", async () => {
    // What the run streamed: silent continuations are hidden items, the dropped one a visible row.
    const retries = live.filter((item) => item.metadata.partType === "retry");
    expect(retries.map((item) => [(item.content as { kind: string }).kind, item.display?.type])).toEqual([["length", "hidden"], ["recovery", "hidden"], ["dropped", "markdown"]]);
    const shown = live.filter((item) => item.metadata.kind !== "agent-session" && item.display?.type !== "ring" && item.display?.type !== "hidden");
    expect(shown.map((item) => String(item.metadata.partType ?? item.metadata.kind))).toEqual(["text", "patch", "file", "retry", "text"]);

    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    await page.goto(viewer.url);
    await page.locator("[data-testid=conversation]", { hasText: CONVERSATION }).locator("[data-testid=session-link]", { hasText: "agent" }).click();
    await page.locator("[data-testid=run-link]", { hasText: RUN }).click();
    await page.waitForSelector("[data-testid=run][data-status=completed]");
    // The rows the host streamed, in its order: no row for the silent continuations.
    expect(await rowsOf(page)).toEqual(["text", "patch:edit", "file:write", "retry", "text"]);
    expect(await page.locator("[data-row=retry]").count()).toBe(1);
    expect(await page.locator("[data-row=retry]").textContent()).toContain("connection dropped");
    // The continuation after the cut joins the text it continues, as live.
    expect(await page.locator("[data-row=text]").first().textContent()).toBe(shown[0]!.content);
    expect(shown[0]!.content).toBe("我先更新笔记，再写一份摘要。");
    // The edit: a diff, line by line, not JSON.
    const patch = page.locator("[data-row=patch]");
    expect(await patch.locator("[data-testid=file-path]").textContent()).toBe("notes.md");
    expect(await patch.locator("[data-testid=diff] > div").evaluateAll((lines) => lines.map((line) => `${line.getAttribute("data-line")} ${line.textContent}`))).toEqual([
      "meta --- a/notes.md",
      "meta +++ b/notes.md",
      "hunk @@ -1,2 +1,2 @@",
      "ctx  # Notes",
      "del -old line",
      "add +new line",
    ]);
    // The write: a file row with its path, new, and its size.
    const file = page.locator("[data-row=file]");
    expect(await file.locator("[data-testid=file-path]").textContent()).toBe(join("out", "summary.md"));
    expect(await file.locator("[data-testid=file-facts]").textContent()).toBe("new file · 7 bytes");
    expect(await page.locator("[data-testid=rows] details.json").count()).toBe(0);
    await page.close();
  }, 120_000);
});
