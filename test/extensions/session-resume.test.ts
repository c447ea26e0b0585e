/**
 * EXT-7: a node with `session: {}` opens the conversation's session host itself; a run it paused
 * for an approval must resume when its run id is re-sent after a restart — in a fresh process
 * whose host did not queue the task — and a run that cannot proceed errors instead of waiting.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "@jest/globals";
import { Type } from "@sinclair/typebox";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createStoredDecisions } from "../../src/adapters/driving/viewer/stored-decisions.js";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { harness, offlineNode, runNode } from "../agent/helpers.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { conversation } from "../session-host/helpers.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";

const CHILD = path.join("test", "extensions", "fixtures", "session-resume-child.ts");
// A fresh process starts in seconds on a loaded machine; a resume that hangs never prints its outcome.
const CHILD_LIMIT_MS = 60_000;

/** Runs the child once, in its own node process; kills it when it has not exited within the limit. */
function runChild(config: { dir: string; session: boolean }): Promise<{ events: Array<Record<string, unknown>>; code: number | null; timedOut: boolean; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [bundledFixture(CHILD), JSON.stringify(config)], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    proc.stdout.on("data", (data: Buffer) => (stdout += data.toString()));
    proc.stderr.on("data", (data: Buffer) => (stderr += data.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      proc.kill("SIGKILL");
    }, CHILD_LIMIT_MS);
    proc.on("exit", (code) => {
      clearTimeout(timer);
      const events = stdout.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Record<string, unknown>);
      resolve({ events, code, timedOut, stderr });
    });
  });
}

const deployed = (dir: string): string[] => (existsSync(path.join(dir, "deployed.txt")) ? readFileSync(path.join(dir, "deployed.txt"), "utf8").trim().split("\n") : []);

describe("EXT-7 a session node resumes a paused run after a restart", () => {
  for (const session of [true, false]) {
    it(`EXT-7 ${session ? "a node with session: {} (its own host)" : "the same node without session"}: paused in one process, approved, re-run by run id in a fresh process, completes with the tool run exactly once`, async () => {
      const dir = tempDirRemovedAfterAll("ext7-");
      const first = await runChild({ dir, session });
      expect({ timedOut: first.timedOut, events: first.events }).toMatchObject({ timedOut: false, events: [{ event: "failed", code: "user_input_required" }] });
      expect(deployed(dir)).toEqual([]);
      const requestId = first.events[0]!.requestId as string;
      expect(requestId).toMatch(/^approval:/);

      // The approval is recorded by a third party (this process), as the viewer would.
      const storage = createSqliteStorage({ directory: path.join(dir, "store") });
      try {
        await createStoredDecisions({ values: storage.values, projectId: "p1" }).record(requestId, { kind: "tool_approval", decision: { outcome: "approved" } });
      } finally {
        storage.close();
      }

      const second = await runChild({ dir, session });
      expect({ timedOut: second.timedOut, code: second.code, events: second.events, stderr: second.code === 0 ? "" : second.stderr }).toEqual({
        timedOut: false,
        code: 0,
        events: [{ event: "completed", toolCallCount: 1 }],
        stderr: "",
      });
      expect(deployed(dir)).toHaveLength(1);

      // Re-sending the finished run id replays it from the log: the tool does not run again.
      const third = await runChild({ dir, session });
      expect(third.events).toEqual([{ event: "completed", toolCallCount: 1 }]);
      expect(deployed(dir)).toHaveLength(1);
    }, 3 * CHILD_LIMIT_MS + 10_000);
  }

  it("EXT-7 a run sent while another run of the session waits for input is refused with session_busy instead of queueing behind the pause forever", async () => {
    const h = harness();
    const conv = conversation("ext7-busy");
    const effects: string[] = [];
    const deploy: AgentTool = {
      name: "deploy",
      label: "Deploy",
      description: "Deploy",
      parameters: Type.Object({}),
      execute: async (id) => (effects.push(id), { content: [{ type: "text", text: "deployed" }] }),
    };
    const { node } = offlineNode([{ toolCalls: [{ name: "deploy", arguments: {} }] }, { text: "Deployed." }, { text: "Second answer." }], {
      h,
      session: {},
      extraTools: [deploy],
      permissionPolicy: "ask",
    });
    const tools = [{ id: "deploy" }];
    try {
      const paused = await runNode(node, { prompt: "deploy" }, h.context("run-a", { conversationId: conv, tools }));
      expect(isSteamharnessError(paused.error, "user_input_required")).toBe(true);
      const other = await runNode(node, { prompt: "something else" }, h.context("run-b", { conversationId: conv, tools }));
      expect(isSteamharnessError(other.error, "session_busy")).toBe(true);
      expect((other.error as Error).message).toContain("run-a");
      // The paused run still resumes, and then the other run goes through.
      h.permissions.resolve((paused.error as { requestId: string }).requestId, { outcome: "approved" });
      expect((await runNode(node, { prompt: "deploy" }, h.context("run-a", { conversationId: conv, tools }))).error).toBeUndefined();
      expect(effects).toHaveLength(1);
      expect((await runNode(node, { prompt: "something else" }, h.context("run-b", { conversationId: conv, tools }))).error).toBeUndefined();
    } finally {
      await node.close();
    }
  }, 30_000);
});
