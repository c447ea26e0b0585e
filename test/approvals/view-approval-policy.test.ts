// Issue 47 (GOV-1, GOV-4, GOV-7): `steamharness view --approval-policy <file>`, a real viewer
// process on the store a paused run's host governs: an answer posted to the viewer is decided
// through the governed store (the viewer recorded as approver, `audit export`), and the host's
// re-run uses it once. A bad policy file is exit 2 with one line, before anything is opened.
import { spawn, type ChildProcess } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createSqliteApprovalStore } from "../../src/adapters/driven/sqlite/store/sqlite-approval-store.js";
import type { SqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { viewerSessionId } from "../../src/adapters/driving/viewer/viewer-sessions.js";
import { createGovernedToolPermissions, loadApprovalPolicy } from "../../src/app/approvals/governed-tool-permissions.js";
import type { ApprovalStore } from "../../src/ports/approval-store.js";
import type { OfflineStep } from "../../src/testing/offline-model.js";
import { cleanEnv, cleanup, CLI_SOURCE, ensureViewerBuilt, runCli, tempDir } from "../cli/helpers.js";
import { decisionsFor, openStorage, PROJECT, runAgent } from "../viewer/fixtures.js";

const STEPS: OfflineStep[] = [{ text: "Saving it.", toolCalls: [{ id: "call_save", name: "workflow-kv_kv_store", arguments: { action: "set", key: "answer", value: 42 } }] }, { text: "Saved." }];
const POLICY = JSON.stringify({ default: "ask", approverGroups: { desk: [{ surface: "viewer" }] }, approvers: "desk", rules: [] });

let tmp: string;
let storage: SqliteStorage;
let store: ApprovalStore;
let viewer: ChildProcess | undefined;

beforeAll(async () => {
  await ensureViewerBuilt();
  tmp = await tempDir("sh-gov-view-");
  await writeFile(join(tmp, "policy.json"), POLICY);
  await writeFile(join(tmp, "bad-policy.json"), JSON.stringify({ rules: [{ tool: "*", action: "maybe" }] }));
  storage = openStorage(join(tmp, "store"));
  store = createSqliteApprovalStore({ directory: join(tmp, "store") });
}, 120_000);
afterAll(async () => {
  if (viewer?.exitCode === null) viewer.kill("SIGKILL");
  await store.close();
  await storage.close();
  await cleanup(tmp);
});

/** Starts `view …` and resolves its URL once printed. */
function startView(args: string[]): Promise<{ child: ChildProcess; url: URL; stdout: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI_SOURCE, "view", ...args], { env: cleanEnv({ HOME: tmp }), stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const found = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/.exec(output);
      if (found && output.includes("approvals:")) resolve({ child, url: new URL(found[1]!), stdout: () => output });
    });
    child.once("exit", (code) => reject(new Error(`view exited (${code}): ${output}`)));
  });
}

describe("issue 47: steamharness view --approval-policy", () => {
  it("GOV-1 GOV-7 an approval answered at `view --approval-policy` is decided through the governed store with the viewer as approver, then used once by the host's re-run", async () => {
    const governed = createGovernedToolPermissions({ policy: loadApprovalPolicy(POLICY), store, clock: { now: () => Date.now() } });
    const run = () => runAgent(storage, { runId: "run-view-gov", prompt: "Remember 42", steps: STEPS, conversationId: "conv-view-gov", catalog: [{ id: "workflow-kv_kv_store" }] as never, decisions: { ...decisionsFor(storage), toolPermissions: governed } });
    expect((await run()).status).toBe("paused");
    const requestId = (await store.audit("local")).find((entry) => entry.kind === "request")!.requestId!;

    const started = await startView(["--store", join(tmp, "store"), "--approval-policy", join(tmp, "policy.json")]);
    viewer = started.child;
    expect(started.stdout()).toContain(`approvals: governed by ${join(tmp, "policy.json")} (audit: steamharness audit export --store ${join(tmp, "store")})`);
    const answer = await fetch(new URL("/api/answer", started.url.origin), {
      method: "POST",
      headers: { "content-type": "application/json", "x-steamharness-token": started.url.searchParams.get("token")! },
      body: JSON.stringify({ s: viewerSessionId({ projectId: PROJECT, conversationId: "conv-view-gov", sessionKey: "agent" }), runId: "run-view-gov", requestId, outcome: "approved" }),
    });
    expect([answer.status, await answer.json()]).toEqual([200, { recorded: true, resumed: "rerun" }]);

    const exported = await runCli(["audit", "export", "--store", join(tmp, "store")]);
    expect([exported.code, exported.stderr]).toEqual([0, ""]);
    const decision = exported.stdout.trim().split("\n").map((line) => JSON.parse(line) as { kind: string; data: Record<string, unknown> }).find((entry) => entry.kind === "decision");
    expect(decision?.data).toMatchObject({ outcome: "approved", scope: "once", approver: { surface: "viewer" } });

    expect((await run()).status).toBe("completed");
    expect((await store.audit("local")).map((entry) => entry.kind)).toEqual(["request", "decision", "use"]);
    const exited = new Promise((resolve) => viewer!.once("exit", resolve));
    viewer.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 180_000);

  it("GOV-6 `view --approval-policy` with a bad policy file or a missing one is exit 2 with one line naming the flag", async () => {
    for (const file of ["bad-policy.json", "missing.json"]) {
      const result = await runCli(["view", "--store", join(tmp, "store"), "--approval-policy", join(tmp, file)]);
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split("\n")).toEqual([expect.stringContaining("--approval-policy")]);
      expect(result.stdout).toBe("");
    }
  }, 120_000);
});
