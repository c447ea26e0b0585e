import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "@jest/globals";
import { resolveSessionDatabasePath } from "../../src/adapters/driven/sqlite/sessions/session-database-path.js";
import type { ChildConfig } from "./fixtures/protocol.js";
import { readSessionEvents } from "./support/checks.js";
import { childBundle, runChild } from "./support/processes.js";

// SES-1 / SES-6: where the agent keeps a session when it chooses the store itself. Each run is a
// real process on a SQLite storage whose agentStoreDir is <dir>/agents; a second process proves
// what was durable (a replay with every model and tool call forbidden only works from a file).
const files = (folder: string): string[] => (existsSync(folder) ? readdirSync(folder, { recursive: true }).map(String).filter((name) => name.endsWith(".sqlite")) : []);

describe("SES-1 SES-6 session location chosen by the agent", () => {
  const root = mkdtempSync(join(tmpdir(), "durable-location-"));
  const run = (dir: string, extra: Partial<ChildConfig>) => runChild({ dir, scenario: "plan", runId: "run-1", store: "agent", ...extra });
  beforeAll(async () => {
    await childBundle();
  }, 60_000);

  it("SES-1 a conversation run keeps one SQLite file per (agentStoreDir, conversationId, sessionKey), and a new process replays from it", async () => {
    const dir = join(root, "conversation");
    const first = await run(dir, { conversationId: "会话 1" });
    expect(first.done?.status).toBe("completed");
    const other = await run(dir, { conversationId: "会话 1", sessionKey: "reviewer" });
    expect(other.done?.status).toBe("completed");
    const path = resolveSessionDatabasePath({ agentStoreDir: join(dir, "agents"), conversationId: "会话 1", sessionKey: "agent" });
    const reviewer = resolveSessionDatabasePath({ agentStoreDir: join(dir, "agents"), conversationId: "会话 1", sessionKey: "reviewer" });
    expect(path).not.toBe(reviewer);
    expect((await readSessionEvents(dir, path)).filter((event) => event.runId === "run-1").length).toBeGreaterThan(10);
    expect((await readSessionEvents(dir, reviewer)).length).toBeGreaterThan(10);
    expect(files(join(dir, "agents")).sort()).toEqual([path, reviewer].map((file) => file.slice(join(dir, "agents").length + 1)).sort());
    const replay = await run(dir, { conversationId: "会话 1", forbidWork: true });
    expect(replay.done?.status).toBe("completed");
    expect(replay.done?.items).toEqual(first.done?.items);
  }, 90_000);

  it("SES-1 databasePath is honoured: the session lives in that file, nothing under agentStoreDir", async () => {
    const dir = join(root, "explicit");
    const databasePath = join(dir, "elsewhere", "my-session.sqlite");
    const first = await run(dir, { conversationId: "c1", databasePath });
    expect(first.done?.status).toBe("completed");
    expect(existsSync(databasePath)).toBe(true);
    expect(files(join(dir, "agents"))).toEqual([]);
    expect((await readSessionEvents(dir, databasePath)).at(-1)?.type).toBe("run_finished");
  }, 90_000);

  it("SES-6 runs outside a conversation and gateway runs with hostInput stay in memory: no file, and a new process cannot replay them", async () => {
    const dir = join(root, "memory");
    const plain = await run(dir, {});
    expect(plain.done?.status).toBe("completed");
    const gateway = await run(dir, { conversationId: "c1", hostInput: true, runId: "run-gw" });
    expect(gateway.done?.status).toBe("completed");
    expect(files(join(dir, "agents"))).toEqual([]);
    // A gateway run in a conversation that already has durable history writes nothing into it.
    const conversation = await run(dir, { conversationId: "c2", runId: "run-conv" });
    expect(conversation.done?.status).toBe("completed");
    const path = resolveSessionDatabasePath({ agentStoreDir: join(dir, "agents"), conversationId: "c2", sessionKey: "agent" });
    const before = await readSessionEvents(dir, path);
    expect((await run(dir, { conversationId: "c2", hostInput: true, runId: "run-gw-2" })).done?.status).toBe("completed");
    expect(await readSessionEvents(dir, path)).toEqual(before);
    expect(files(join(dir, "agents"))).toHaveLength(1);
    const again = await run(dir, { forbidWork: true });
    expect(again.done?.status).toBe("failed");
    expect(again.messages.some((message) => message.type === "model")).toBe(true);
  }, 90_000);

  it("SES-6 databasePath makes a run outside a conversation (or a gateway run) durable", async () => {
    const dir = join(root, "memory-explicit");
    const databasePath = join(dir, "gateway.sqlite");
    const gateway = await run(dir, { hostInput: true, databasePath });
    expect(gateway.done?.status).toBe("completed");
    expect(existsSync(databasePath)).toBe(true);
    const replay = await run(dir, { hostInput: true, databasePath, forbidWork: true });
    expect(replay.done?.status).toBe("completed");
  }, 90_000);
});
