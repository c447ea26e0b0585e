/// <reference lib="dom" />
// Issue 47 (GOV-1, GOV-7): a tool approval answered in the viewer's page, in headless Chromium,
// goes through the governed decide(): the approver recorded in the audit chain is the viewer.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { Browser } from "playwright-core";
import type { ViewerServer } from "../../src/adapters/driving/viewer/viewer-server.js";
import { createSqliteApprovalStore } from "../../src/adapters/driven/sqlite/store/sqlite-approval-store.js";
import type { SqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createGovernedToolPermissions, type GovernedToolPermissions } from "../../src/app/approvals/governed-tool-permissions.js";
import { verifyAuditChain } from "../../src/domain/approvals/audit-chain.js";
import { createKeySecrets } from "../../src/adapters/driven/system/key-secrets.js";
import type { OfflineStep } from "../../src/testing/offline-model.js";
import type { ApprovalStore } from "../../src/ports/approval-store.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { viewerE2e } from "./e2e-harness.js";
import { decisionsFor, runAgent } from "./fixtures.js";

const STEPS: OfflineStep[] = [{ text: "Saving it.", toolCalls: [{ id: "call_save", name: "workflow-kv_kv_store", arguments: { action: "set", key: "answer", value: 42 } }] }, { text: "Saved." }];
const CATALOG = [{ id: "workflow-kv_kv_store" }];

let storage: SqliteStorage;
let viewer: ViewerServer;
let browser: Browser;
let store: ApprovalStore;
let governed: GovernedToolPermissions;
const e2e = viewerE2e("viewer-gov-");
const run = () => runAgent(storage, { runId: "run-gov", prompt: "Remember 42", steps: STEPS, conversationId: "conv-gov", catalog: CATALOG as never, decisions: { ...decisionsFor(storage), toolPermissions: governed } });

beforeAll(async () => {
  store = createSqliteApprovalStore({ directory: tempDirRemovedAfterAll("viewer-gov-approvals-") });
  governed = createGovernedToolPermissions({ policy: { rules: [] }, store, clock: { now: () => Date.now() } });
  ({ storage, viewer, browser } = await e2e.start(async (opened) => {
    storage = opened;
    expect((await run()).status).toBe("paused");
  }, { approvals: governed }));
}, 180_000);
afterAll(async () => {
  await store.close();
});

describe("issue 47: the viewer answers through the governed decide()", () => {
  it("GOV-1 GOV-7 a tool approved in the page (Chromium) is recorded with the viewer as approver; the run re-run on its id uses it once", async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
    await page.goto(viewer.url);
    await page.locator("[data-testid=conversation]", { hasText: "conv-gov" }).locator("[data-testid=session-link]", { hasText: "agent" }).click();
    await page.locator("[data-testid=run-link]", { hasText: "run-gov" }).click();
    await page.waitForSelector("[data-testid=pending][data-kind=tool_approval]");
    await page.locator("[data-testid=approve]").click();
    await page.waitForFunction(() => document.querySelector("[data-testid=answer-note]")?.textContent?.includes("when its host runs it again"));
    const decided = (await store.audit("local")).find((entry) => entry.kind === "decision");
    expect(decided?.data).toMatchObject({ outcome: "approved", scope: "once", approver: { surface: "viewer" } });
    expect((await store.decisionOf(decided!.requestId!))?.approver).toEqual({ surface: "viewer" });

    expect((await run()).status).toBe("completed");
    await page.waitForSelector("[data-testid=run][data-status=completed]");
    const chain = await store.audit("local");
    expect(chain.map((entry) => entry.kind)).toEqual(["request", "decision", "use"]);
    expect(verifyAuditChain(chain, createKeySecrets().digest)).toMatchObject({ ok: true });
    await page.close();
  }, 120_000);
});
