// CONV-3: `steamharness chat` on a project whose agent runs through a resident session host
// (`session: {}`) closes that host on /exit, end of input and Ctrl-C (SIGINT), and reopens it with
// `resume: true` on the next start, where the earlier turns are listed. Real chat processes.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "@jest/globals";
import { createSqliteSessionBackend } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-backend.js";
import { CLI_SOURCE, cleanEnv } from "../cli/helpers.js";

const PROJECT = "test/conversation/fixtures/host-assistant";
const PROJECT_ID = "5d2e7a41-3c8b-4f6e-9a10-b7c4d2e8f931";
const dirs: string[] = [];

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

interface ChatRun {
  code: number | null;
  stdout: string;
}

/**
 * Runs `steamharness chat`, writing `lines`; then ends the input (`"eof"`), leaves it to the
 * lines (`"lines"`, e.g. `/exit`), or sends SIGINT once the prompt is back (`"sigint"`).
 */
function chat(args: string[], lines: string[], end: "eof" | "lines" | "sigint", env: Record<string, string>): Promise<ChatRun> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [...CLI_SOURCE, "chat", PROJECT, ...args], { env: cleanEnv(env), stdio: ["pipe", "pipe", "inherit"] });
    let stdout = "";
    let signalled = false;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`chat did not end; output:\n${stdout}`));
    }, 60_000);
    child.stdout.on("data", (data: Buffer) => {
      stdout += data.toString();
      // The prompt after the last typed line's answer: the chat waits at "you> " again.
      if (end === "sigint" && !signalled && stdout.split("you> ").length - 1 > lines.length) {
        signalled = true;
        child.kill("SIGINT");
      }
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout });
    });
    child.stdin.write(lines.map((line) => `${line}\n`).join(""));
    if (end !== "sigint") child.stdin.end();
  });
}

describe("CONV-3 chat closes the session hosts it opened and resumes them", () => {
  it("CONV-3 /exit, end of input and SIGINT close the host; each start reopens it with resume: true and lists the earlier turns; no lease is left", async () => {
    const dir = await mkdtemp(join(tmpdir(), "chat-host-"));
    dirs.push(dir);
    const agents = join(dir, "agents");
    const log = join(dir, "host.log");
    const args = ["--data-dir", join(dir, "data"), "--agent-store-dir", agents, "--conversation", "conv-3"];
    const env = { HOST_TEST_LOG: log };

    const first = await chat([...args, "--new"], ["hello", "/exit"], "lines", env);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("Echo: hello (0 earlier messages)");
    expect(first.stdout).not.toContain("session host resumed");
    // The host's tools were built when it opened and closed when the chat ended (/exit).
    expect(await readFile(log, "utf8")).toBe("tools opened\ntools closed\n");

    const second = await chat(args, ["again"], "eof", env);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('↺ session host resumed: 1 earlier turn (last: "hello", 1 item)\nyou> ');
    expect(second.stdout).toContain("Echo: again (1 earlier messages)");
    expect(await readFile(log, "utf8")).toBe("tools opened\ntools closed\n".repeat(2));

    const third = await chat(args, [], "sigint", env);
    expect(third.code).toBe(0);
    expect(third.stdout).toContain('↺ session host resumed: 2 earlier turns (last: "again", 1 item)');
    expect(await readFile(log, "utf8")).toBe("tools opened\ntools closed\n".repeat(3));

    // Nothing left behind: the conversation's lease is free and every turn finished.
    const sessions = createSqliteSessionBackend({ agentStoreDir: agents });
    try {
      const lease = await sessions.leases.acquire({ projectId: PROJECT_ID, conversationId: "conv-3", sessionKey: "agent" }, { ownerId: "conv-3-test", onBusy: "throw" });
      await lease?.release();
      expect(lease).not.toBeNull();
      const store = (await sessions.openHostStore("conv-3", { create: false }))!;
      try {
        expect((await store.listTasks()).map((task) => [task.prompt, task.status])).toEqual([
          ["hello", "completed"],
          ["again", "completed"],
        ]);
      } finally {
        await store.close();
      }
    } finally {
      await sessions.close();
    }
  }, 180_000);
});
