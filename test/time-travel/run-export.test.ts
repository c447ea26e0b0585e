import { mkdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "@jest/globals";
import { createPostgresStorage } from "../../src/adapters/driven/postgres/postgres-storage.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { exportRun, importRun } from "../../src/app/time-travel/run-export.js";
import { replayRun } from "../../src/app/time-travel/replay.js";
import { describePostgres } from "../fixtures/postgres.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { effects, fixtureAgent, fixtureContext, recordRun } from "./replay-fixture.js";

const SECRET = "sk-live-0123456789abcdef";

async function exported() {
  const dir = tempDirRemovedAfterAll("export-");
  const { storage, source } = await recordRun(dir, "run-original", `Look up alpha, then charge card-1 with key ${SECRET}.`);
  const text = await exportRun(source, "run-original", { secrets: [SECRET] });
  await source.close();
  await storage.close();
  return { dir, text };
}

describe("export and import of runs", () => {
  it("EVAL-2 an exported run is redacted JSONL and imports into another SQLite store byte for byte", async () => {
    const { dir, text } = await exported();
    expect(text).not.toContain(SECRET);
    expect(text).toContain("[redacted]");
    const lines = text.trimEnd().split("\n").map((line) => JSON.parse(line) as { type?: string; format?: string });
    expect(lines[0]).toMatchObject({ format: "steamharness-run", version: 1, runId: "run-original" });
    expect(lines.slice(1).map((line) => line.type)).toContain("tool_intent");

    mkdirSync(path.join(dir, "other"));
    const other = createSqliteStorage({ directory: path.join(dir, "other", "store"), agentStoreDir: path.join(dir, "other", "agents") });
    try {
      const imported = await importRun(text, { sessions: other.sessions });
      expect(imported.appended).toBe(lines.length - 1);
      // Idempotent: a second import writes nothing.
      expect((await importRun(text, { sessions: other.sessions })).appended).toBe(0);
      const store = await other.sessions.openUnleased({ address: imported.address, create: false });
      expect(await exportRun(store!, "run-original")).toBe(text);
      await store!.close();
    } finally {
      await other.close();
    }
  });

  it("EVAL-2 a malformed file is refused with the line named, nothing written", async () => {
    const { dir, text } = await exported();
    const other = createSqliteStorage({ directory: path.join(dir, "bad", "store"), agentStoreDir: path.join(dir, "bad", "agents") });
    try {
      const lines = text.split("\n");
      await expect(importRun("", { sessions: other.sessions })).rejects.toMatchObject({ code: "input_validation" });
      await expect(importRun([lines[0], "{not json", ...lines.slice(2)].join("\n"), { sessions: other.sessions })).rejects.toMatchObject({ code: "input_validation", message: expect.stringContaining("line 2") });
      await expect(importRun(lines.slice(0, 3).join("\n"), { sessions: other.sessions })).rejects.toMatchObject({ code: "input_validation", message: expect.stringContaining("announces") });
      const header = JSON.parse(lines[0]!) as { address: { projectId: string; sessionKey: string } };
      expect(await other.sessions.openUnleased({ address: header.address, create: false })).toBeNull();
    } finally {
      await other.close();
    }
  });

  it("EVAL-2 an imported run replays like the original (recorded tools, zero live calls)", async () => {
    const { dir, text } = await exported();
    const other = createSqliteStorage({ directory: path.join(dir, "replay", "store"), agentStoreDir: path.join(dir, "replay", "agents") });
    try {
      const { address } = await importRun(text, { sessions: other.sessions });
      const source = (await other.sessions.openUnleased({ address, create: false }))!;
      const result = await replayRun("run-original", { source, sessions: other.sessions, agent: fixtureAgent(dir), context: fixtureContext(other, "x", false), tools: "recorded" });
      await source.close();
      expect({ error: result.error, status: result.status, answered: result.answered, live: result.live, same: result.diff.same }).toEqual({ error: undefined, status: "completed", answered: 2, live: 0, same: true });
      expect(effects(dir, "charge")).toEqual(["card-1"]);
    } finally {
      await other.close();
    }
  });
});

describePostgres("EVAL-2 export → import SQLite → PostgreSQL", (database) => {
  it("EVAL-2 a run exported from SQLite and imported into PostgreSQL exports the same bytes", async () => {
    const { text } = await exported();
    const storage = await createPostgresStorage({ connectionString: database.url, schema: database.schema });
    try {
      const imported = await importRun(text, { sessions: storage.sessions! });
      const store = await storage.sessions!.openUnleased({ address: imported.address, create: false });
      const again = await exportRun(store!, "run-original");
      await store!.close();
      expect(again).toBe(text);
      expect(again).not.toContain(SECRET);
    } finally {
      await storage.close();
    }
  });
});
