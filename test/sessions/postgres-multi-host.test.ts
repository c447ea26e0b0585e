import { randomUUID } from "node:crypto";
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "@jest/globals";
import { createPostgresStorage } from "../../src/adapters/driven/postgres/postgres-storage.js";
import { controlAgentSession } from "../../src/agent.js";
import { startHostChild, type HostChild } from "../session-host/child-process.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { describePostgres } from "../fixtures/postgres.js";

const CHILD = path.join("test", "sessions", "fixtures", "postgres-host-child.ts");
/** Sanity limit only: the measured takeover is reported by bench/postgres.bench.ts (c). */
const TAKEOVER_SANITY_LIMIT_MS = 10_000;

type Finished = { tasks: Array<{ taskId: string; status: string }>; toolRuns: number; modelCalls: number };
const effects = (dir: string) => (existsSync(path.join(dir, "effects.log")) ? readFileSync(path.join(dir, "effects.log"), "utf8").split("\n").filter(Boolean) : []);

describePostgres("PG-2 PostgreSQL sessions shared by host processes", (database) => {
  const start = (dir: string, conv: string, mode: string, extra: Record<string, unknown> = {}): HostChild =>
    startHostChild({ url: database.url, schema: database.schema, dir, conv, mode, ...extra }, CHILD);

  it("PG-2 the same conversation submitted from two host processes: exactly one runs, the other gets session_busy", async () => {
    const dir = tempDirRemovedAfterAll("pg-race-");
    const conv = `race-${randomUUID()}`;
    writeFileSync(path.join(dir, "release"), "");
    const children = [start(dir, conv, "race"), start(dir, conv, "race")];
    // Both processes are up (storage open, migrations applied) before they race for the session.
    await Promise.all(children.map((child) => child.waitFor("ready", 60_000)));
    writeFileSync(path.join(dir, "go"), "");
    const codes = await Promise.all(children.map((child) => child.exited));
    expect(codes).toEqual([0, 0]);
    const outcomes = children.map((child) => (child.events.some((event) => event.event === "busy") ? "busy" : child.events.some((event) => event.event === "finished") ? "ran" : "none"));
    expect(outcomes.sort()).toEqual(["busy", "ran"]);
    const busy = children.flatMap((child) => child.events.filter((event) => event.event === "busy"));
    expect(busy[0]!.code).toBe("session_busy");
    const ran = children.find((child) => child.events.some((event) => event.event === "finished"))!;
    const finished = (await ran.waitFor("finished")) as unknown as Finished;
    expect(finished.tasks.map((task) => task.status)).toEqual(["completed"]);
    expect(effects(dir)).toHaveLength(1);
  }, 120_000);

  it("PG-2 SIGKILL the owner mid-tool: the other host takes over within the bound and finishes without re-running the unsafe tool", async () => {
    const dir = tempDirRemovedAfterAll("pg-takeover-");
    const conv = `takeover-${randomUUID()}`;
    const owner = start(dir, conv, "run");
    await owner.waitFor("tool", 60_000);
    const standby = start(dir, conv, "standby");
    await standby.waitFor("waiting", 60_000);
    // The standby is polling; give it a few refused attempts so it is warm.
    await new Promise((resolve) => setTimeout(resolve, 300));
    writeFileSync(path.join(dir, "release"), "");
    const killedAt = Date.now();
    owner.proc.kill("SIGKILL");
    await owner.exited;
    const acquired = await standby.waitFor("acquired", 30_000);
    const takeoverMs = (acquired.at as number) - killedAt;
    expect(takeoverMs).toBeLessThan(TAKEOVER_SANITY_LIMIT_MS);
    const finished = (await standby.waitFor("finished", 60_000)) as unknown as Finished;
    expect(await standby.exited).toBe(0);
    expect(finished.tasks.map((task) => task.status)).toEqual(["completed"]);
    // SES-4: the unsafe tool's outcome is unknown after the kill; it is not run again.
    expect(finished.toolRuns).toBe(0);
    expect(effects(dir)).toHaveLength(1);
    expect(finished.modelCalls).toBe(1);
    const storage = await createPostgresStorage({ pool: database.pool, schema: database.schema });
    try {
      const store = (await storage.sessions!.openUnleased({ address: { projectId: "pg-2", conversationId: conv, sessionKey: "agent" }, create: false }))!;
      const events = await store.readAfter(0);
      await store.close();
      expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i + 1));
      expect(JSON.stringify(events.find((event) => event.type === "tool_result")?.payload)).toContain("unknown");
      expect(events.filter((event) => event.type === "run_finished")).toHaveLength(1);
    } finally {
      await storage.close();
    }
  }, 180_000);

  it("PG-2 controlAgentSession from one host reaches a session owned by the other", async () => {
    const dir = tempDirRemovedAfterAll("pg-control-");
    const conv = `control-${randomUUID()}`;
    const owner = start(dir, conv, "run", { expectTasks: 2 });
    await owner.waitFor("tool", 60_000);
    // This test process is the other host process: its own storage on the same database, no live host here.
    const storage = await createPostgresStorage({ pool: database.pool, schema: database.schema });
    try {
      await expect(controlAgentSession(conv, { type: "submit", prompt: "interrupt", mode: "reject" }, { storage })).rejects.toMatchObject({ code: "session_busy" });
      const queued = await controlAgentSession(conv, { type: "submit", prompt: "follow-up", taskId: "t2" }, { storage, timeoutMs: 20_000 });
      expect(queued).toMatchObject({ type: "submit", taskId: "t2", created: true });
      writeFileSync(path.join(dir, "release"), "");
      const finished = (await owner.waitFor("finished", 60_000)) as unknown as Finished;
      expect(await owner.exited).toBe(0);
      expect(finished.tasks.map((task) => [task.taskId, task.status])).toEqual([["t1", "completed"], ["t2", "completed"]]);
      const store = (await storage.sessions!.openUnleased({ address: { projectId: "pg-2", conversationId: conv, sessionKey: "agent" }, create: false }))!;
      const prompts = (await store.readAfter(0, { types: ["user_message"] })).map((event) => JSON.stringify(event.payload));
      await store.close();
      expect(prompts).toHaveLength(2);
      expect(prompts.join()).not.toContain("interrupt");
    } finally {
      await storage.close();
    }
  }, 180_000);
});
