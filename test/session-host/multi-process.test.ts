import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "@jest/globals";
import { createSqliteSessionStore } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-store.js";
import { resolveSessionDatabasePath } from "../../src/adapters/driven/sqlite/sessions/session-database-path.js";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { cancelAgentConversation, controlAgentSession, createAgentSessionHost } from "../../src/agent.js";
import { startHostChild } from "./child-process.js";
import { conversation, tempDir } from "./helpers.js";

async function sessionEvents(dir: string, conv: string) {
  const store = createSqliteSessionStore({ path: resolveSessionDatabasePath({ agentStoreDir: dir, conversationId: conv, sessionKey: "agent" }), address: { projectId: "p1", conversationId: conv, sessionKey: "agent" } });
  const events = await store.readAfter(0);
  await store.close();
  return events;
}

type Finished = { tasks: Array<{ status: string; cancelRequested: boolean }>; modelCalls: number; toolRuns: number; text: string; snapshot: { turns: Array<{ usage: { total: number } }> } };

describe("session host across processes", () => {
  it("HOST-2 HOST-3 suspend keeps the task without a cancel mark; a new process with resume: true continues it without resubmitting", async () => {
    const dir = tempDir();
    const conv = conversation("suspend");
    const first = startHostChild({ dir, conv, mode: "suspend" });
    const suspended = (await first.waitFor("suspended")) as { tasks: Array<{ taskId: string; status: string; cancelRequested: boolean }> };
    expect(await first.exited).toBe(0);
    expect(suspended.tasks).toEqual([expect.objectContaining({ taskId: "t1", status: "running", cancelRequested: false })]);
    writeFileSync(path.join(dir, "slow_step.release"), "");

    const second = startHostChild({ dir, conv, mode: "resume" });
    const finished = (await second.waitFor("finished")) as unknown as Finished;
    expect(await second.exited).toBe(0);
    expect(finished.tasks.map((task) => task.status)).toEqual(["completed"]);
    // Only the step after the committed one ran: one model call, the interrupted tool redone (replay: "safe").
    expect(finished.modelCalls).toBe(1);
    expect(finished.toolRuns).toBe(1);
    // Committed text stays; the initial message is in the log once.
    expect(finished.text).toContain("Starting the job.");
    expect(finished.text).toContain("All done.");
    const events = await sessionEvents(dir, conv);
    expect(events.filter((event) => event.type === "user_message")).toHaveLength(1);
    expect(events.filter((event) => event.type === "run_finished")).toHaveLength(1);
    expect(finished.snapshot.turns[0]!.usage.total).toBeGreaterThan(0);
  }, 60_000);

  it("HOST-2 SES-2 a SIGKILLed host leaves checkpoints that a new host recovers", async () => {
    const dir = tempDir();
    const conv = conversation("kill");
    const first = startHostChild({ dir, conv, mode: "run", replay: "never" });
    await first.waitFor("started");
    first.proc.kill("SIGKILL");
    await first.exited;
    const second = startHostChild({ dir, conv, mode: "resume", replay: "never" });
    const finished = (await second.waitFor("finished")) as unknown as Finished;
    expect(await second.exited).toBe(0);
    expect(finished.tasks.map((task) => task.status)).toEqual(["completed"]);
    // The killed tool's outcome is unknown and it is not replay-safe: not redone, the model is told (SES-4).
    expect(finished.toolRuns).toBe(0);
    expect(finished.modelCalls).toBe(1);
    const events = await sessionEvents(dir, conv);
    const result = events.find((event) => event.type === "tool_result");
    expect(JSON.stringify(result?.payload)).toContain("unknown");
    expect(events.filter((event) => event.type === "user_message")).toHaveLength(1);
  }, 60_000);

  it("HOST-4 one process per session: another process is refused, its reject submit leaves the running task alone, queued input arrives through the inbox", async () => {
    const dir = tempDir();
    const conv = conversation("busy-mp");
    const child = startHostChild({ dir, conv, mode: "run" });
    await child.waitFor("started");
    await expect(createAgentSessionHost(conv, { projectId: "p1", agentStoreDir: dir })).rejects.toMatchObject({ code: "session_busy" });
    const refused = await controlAgentSession(conv, { type: "submit", prompt: "interrupt", mode: "reject" }, { agentStoreDir: dir }).catch((error: unknown) => error);
    expect(isSteamharnessError(refused, "session_busy")).toBe(true);
    const queued = await controlAgentSession(conv, { type: "submit", prompt: "follow-up", taskId: "t2" }, { agentStoreDir: dir });
    expect(queued).toMatchObject({ type: "submit", taskId: "t2", created: true });
    writeFileSync(path.join(dir, "slow_step.release"), "");
    const finished = (await child.waitFor("finished")) as unknown as Finished;
    expect(await child.exited).toBe(0);
    expect(finished.tasks.map((task) => task.status)).toEqual(["completed", "completed"]);
    const prompts = (await sessionEvents(dir, conv)).filter((event) => event.type === "user_message").map((event) => JSON.stringify(event.payload));
    expect(prompts).toHaveLength(2);
    expect(prompts.join()).not.toContain("interrupt");
  }, 60_000);

  it("UI-5 a steer sent from another process reaches the running turn through the inbox: the turn's next model call takes it and its task completes as delivered", async () => {
    const dir = tempDir();
    const conv = conversation("steer-mp");
    const child = startHostChild({ dir, conv, mode: "run" });
    await child.waitFor("started");
    // No host of this conversation lives in this process: the command goes through the durable inbox.
    expect(await controlAgentSession(conv, { type: "steer", prompt: "also check b", taskId: "s1" }, { agentStoreDir: dir })).toMatchObject({ type: "steer", taskId: "s1", created: true, into: "run-t1" });
    writeFileSync(path.join(dir, "slow_step.release"), "");
    const finished = (await child.waitFor("finished")) as unknown as Finished & { tasks: Array<{ taskId: string; detail: unknown }> };
    expect(await child.exited).toBe(0);
    expect(finished.tasks).toEqual([expect.objectContaining({ taskId: "t1", status: "completed" }), expect.objectContaining({ taskId: "s1", status: "completed", detail: { steeredInto: "run-t1" } })]);
    expect(finished.modelCalls).toBe(2);
    const steered = (await sessionEvents(dir, conv)).filter((event) => event.type === "user_message" && event.runId === "run-t1").map((event) => JSON.stringify(event.payload));
    expect(steered).toHaveLength(2);
    expect(steered[1]).toContain("also check b");
  }, 60_000);

  it("HOST-5 after a kill, cancelAgentConversation clears the task so a restarted host does not revive it", async () => {
    const dir = tempDir();
    const conv = conversation("cancel-mp");
    const first = startHostChild({ dir, conv, mode: "run" });
    await first.waitFor("started");
    first.proc.kill("SIGKILL");
    await first.exited;
    expect(await cancelAgentConversation({ agentStoreDir: dir, conversationId: conv })).toEqual({ cancelled: ["t1"] });
    expect(await cancelAgentConversation({ agentStoreDir: dir, conversationId: conv })).toEqual({ cancelled: [] });
    writeFileSync(path.join(dir, "slow_step.release"), "");
    const second = startHostChild({ dir, conv, mode: "resume" });
    const finished = (await second.waitFor("finished")) as unknown as Finished;
    expect(finished.tasks.map((task) => task.status)).toEqual(["cancelled"]);
    expect(finished.modelCalls).toBe(0);
    expect(finished.toolRuns).toBe(0);
  }, 60_000);

  it("HOST-5 a cancel command reaches a host in another process through the inbox and stops its worker", async () => {
    const dir = tempDir();
    const conv = conversation("cancel-inbox");
    const child = startHostChild({ dir, conv, mode: "run" });
    await child.waitFor("started");
    expect(await controlAgentSession(conv, { type: "cancel" }, { agentStoreDir: dir })).toEqual({ type: "cancel", cancelled: ["t1"] });
    const finished = (await child.waitFor("finished")) as unknown as Finished;
    expect(finished.tasks).toEqual([expect.objectContaining({ status: "cancelled", cancelRequested: true })]);
    expect(finished.toolRuns).toBe(1);
    expect(await child.exited).toBe(0);
  }, 60_000);
});
