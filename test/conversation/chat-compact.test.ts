import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "@jest/globals";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { CLI_SOURCE } from "../cli/helpers.js";

const project = "test/conversation/fixtures/compact-assistant";
const projectId = "5b0c7e2a-3f41-4d8e-9a6b-1c2d3e4f5a6b";
const root = mkdtempSync(join(tmpdir(), "chat-compact-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Runs `steamharness chat` as a real process with the lines piped to its stdin. */
function chat(args: string[], lines: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("JEST") && key !== "NODE_OPTIONS"));
  return new Promise((resolveRun) => {
    const child = execFile(process.execPath, [...CLI_SOURCE, "chat", project, ...args], { env: { ...env, CHAT_TEST_WORKDIR: root }, timeout: 60_000 }, (error, stdout, stderr) =>
      resolveRun({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(lines.map((line) => `${line}\n`).join(""));
  });
}

async function sessionEvents(agentStoreDir: string, conversationId: string) {
  const storage = createSqliteStorage({ directory: join(root, "kv"), agentStoreDir });
  try {
    const store = (await storage.sessions!.openUnleased({ address: { projectId, conversationId, sessionKey: "agent" }, create: false }))!;
    try {
      return { events: await store.readAfter(0), head: await store.head() };
    } finally {
      await store.close();
    }
  } finally {
    await storage.close();
  }
}

describe("SES-11 /compact in steamharness chat", () => {
  it("SES-11 /compact [instructions] replaces the context with the model's summary; the next turn starts from it; the log keeps every turn", async () => {
    const store = join(root, "agents-1");
    const { code, stdout, stderr } = await chat(["--data-dir", join(root, "data"), "--agent-store-dir", store, "--conversation", "c1", "--new"], [
      "my colour is teal",
      "my city is Oslo",
      "/compact keep the colour",
      "what do you know?",
      "/exit",
    ]);
    expect(stderr).not.toContain("Error");
    expect(code).toBe(0);
    expect(stdout).toContain("Noted: my city is Oslo");
    expect(stdout).toMatch(/⋯ context compacted: summary written by the model \(\d+ → \d+ tokens\)/);
    expect(stdout).toContain("HISTORY-STARTS Summary of the earlier conversation (compacted; 4 messages): MODEL-SUMMARY user said [my colour is teal; my city is Oslo] (keep the colour) HISTORY-END");

    const { events, head } = await sessionEvents(store, "c1");
    // The log is kept: both earlier turns are still there; the compaction is one appended event.
    expect(events.filter((event) => event.type === "user_message").map((event) => (event.payload as { message: { content: string } }).message.content)).toEqual(["my colour is teal", "my city is Oslo", "what do you know?"]);
    const compaction = events.find((event) => event.type === "compaction")!;
    expect(compaction.payload).toMatchObject({ source: "model", manual: true, instructions: "keep the colour", summary: "MODEL-SUMMARY user said [my colour is teal; my city is Oslo] (keep the colour)" });
    expect(head.snapshot?.atSeq).toBe(compaction.seq);
  }, 90_000);

  it("SES-11 when the model fails, /compact folds mechanically and says so", async () => {
    const store = join(root, "agents-2");
    const { code, stdout } = await chat(["--data-dir", join(root, "data"), "--agent-store-dir", store, "--conversation", "c2", "--new"], ["remember 42", "/compact FAIL please", "/exit"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/⋯ context compacted mechanically \(\d+ → \d+ tokens\) — the model could not summarise: the summariser is down/);
    const { events } = await sessionEvents(store, "c2");
    expect(events.find((event) => event.type === "compaction")?.payload).toMatchObject({ source: "fallback", reason: "the summariser is down" });
  }, 90_000);
});
