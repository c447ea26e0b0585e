import { describe, expect, it } from "@jest/globals";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { viewerSessionId } from "../../src/adapters/driving/viewer/viewer-sessions.js";
import type { SessionEventInput } from "../../src/ports/session-store.js";
import { cleanup, runCli, tempDir } from "./helpers.js";

const address = { projectId: "p", conversationId: "c", sessionKey: "agent" };
const message = (toolCallId: string, text: string) => ({ role: "toolResult" as const, toolCallId, toolName: "charge", content: [{ type: "text" as const, text }], isError: false });
const EVENTS: SessionEventInput[] = [
  { eventId: "r1/prompt", runId: "r1", type: "user_message", payload: { message: { role: "user", content: "charge twice" } } },
  { eventId: "r1/tool/t1/intent", runId: "r1", type: "tool_intent", payload: { toolCallId: "t1", toolName: "charge", arguments: { amount: 5 }, replay: "never" } },
  { eventId: "r1/tool/t1/started", runId: "r1", type: "tool_started", payload: { toolCallId: "t1" } },
  { eventId: "r1/tool/t1/result", runId: "r1", type: "tool_result", payload: { message: message("t1", "charged 5"), details: null } },
  { eventId: "r1/tool/t2/intent", runId: "r1", type: "tool_intent", payload: { toolCallId: "t2", toolName: "lookup", arguments: { key: "a" }, replay: "safe" } },
  { eventId: "r1/tool/t2/result", runId: "r1", type: "tool_result", payload: { message: { ...message("t2", "value"), toolName: "lookup" }, details: null } },
];

describe("FORK-1 steamharness fork", () => {
  it("FORK-1 FORK-2 forks a session of a SQLite store at a seq, prints the fork's id and the hazard report; bad points and unknown sessions fail with their error", async () => {
    const dir = await tempDir("sh-cli-fork-");
    try {
      const storage = createSqliteStorage({ directory: dir });
      const store = (await storage.sessions!.openUnleased({ address, create: true }))!;
      await store.append(EVENTS);
      await store.close();
      await storage.close();
      const session = viewerSessionId(address);

      const forked = await runCli(["fork", session, "--at", "2", "--store", dir, "--json"]);
      expect(forked.stderr).toBe("");
      expect(forked.code).toBe(0);
      const result = JSON.parse(forked.stdout) as { session: string; atSeq: number; hazards: Array<{ toolName: string; replay: string; ran: boolean; summary: string }> };
      expect(result.atSeq).toBe(2);
      expect(result.hazards.map(({ toolName, replay, ran, summary }) => [toolName, replay, ran, summary])).toEqual([
        ["charge", "unsafe", true, "ok: charged 5"],
        ["lookup", "safe", false, "ok: value"],
      ]);
      // The fork is a session of the store: forking it again works (a fork of a fork; a log without runs has one turn point, its head).
      const again = await runCli(["fork", result.session, "--at", "turn:0", "--store", dir]);
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/^forked at seq 3: \S+\nno tool calls of the parent after this point\n$/);
      const text = await runCli(["fork", session, "--at", "1", "--store", dir]);
      expect(text.stdout).toContain('#2 charge {"amount":5} — unsafe, ran: ok: charged 5');

      const past = await runCli(["fork", session, "--at", "99", "--store", dir]);
      expect(past.code).not.toBe(0);
      expect(past.stderr).toContain("past the session's last event");
      const bad = await runCli(["fork", session, "--at", "soon", "--store", dir]);
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toContain("--at must be an event seq");
      const unknown = await runCli(["fork", viewerSessionId({ ...address, sessionKey: "missing" }), "--at", "0", "--store", dir]);
      expect(unknown.code).not.toBe(0);
      expect(unknown.stderr).toContain("does not exist");
    } finally {
      await cleanup(dir);
    }
  }, 120_000);
});
