import { afterAll, describe, expect, it } from "@jest/globals";
import Database from "better-sqlite3";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteSessionBackend } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-backend.js";
import { resolveSessionDatabasePath } from "../../src/adapters/driven/sqlite/sessions/session-database-path.js";
import { readySeeds } from "../../src/adapters/driven/sqlite/shared/seed-pool.js";
import { sessionHostDatabasePath } from "../../src/adapters/driven/sqlite/session-host/sqlite-session-host-store.js";

const root = mkdtempSync(join(tmpdir(), "sh-seed-pool-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const until = async (ready: () => boolean, what: string) => {
  for (let waited = 0; !ready(); waited += 10) {
    if (waited > 20_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};
const address = (conversationId: string) => ({ projectId: "p", conversationId, sessionKey: "agent" });

describe("SQLite seed pool (issue 45 item 1)", () => {
  it("UI-1 a session folder's new host records and session logs are links to seeds made ahead: each seed claimed once, the log gets its own meta row, the pool goes with the backend", async () => {
    const agentStoreDir = join(root, "claims");
    const sessions = createSqliteSessionBackend({ agentStoreDir });
    const seeds = join(agentStoreDir, ".seeds");
    const open = async (conversationId: string, before: () => void = () => {}) => {
      const host = (await sessions.openHostStore(conversationId, { create: true }))!;
      const log = (await sessions.openUnleased({ address: address(conversationId), create: true }))!;
      await log.append([{ eventId: "r1/plan/0", runId: "r1", type: "plan", payload: { planIndex: 0, text: "plan" } }]);
      // Closing checkpoints the WAL into the file and removes it.
      before();
      await host.close();
      await log.close();
    };
    // The first new file of a kind is seeded on the spot; the second starts the pool.
    await open("c0");
    expect(existsSync(seeds)).toBe(false);
    await open("c1");
    // Ready by the pool's own count: a seed's files appear on disk before they are written.
    await until(() => readySeeds(agentStoreDir) === 8, "4 seeds of each kind ready");
    expect(readdirSync(seeds)).toHaveLength(16);
    const ready = new Map(readdirSync(seeds).map((name) => [statSync(join(seeds, name)).ino, name]));
    const host = sessionHostDatabasePath(agentStoreDir, "c2");
    const log = resolveSessionDatabasePath({ agentStoreDir, ...address("c2") });
    let claimed: Array<string | undefined> = [];
    await open("c2", () => (claimed = [host, log, `${host}-wal`, `${log}-wal`].map((path) => ready.get(statSync(path).ino))));
    expect(claimed.every((name) => name !== undefined)).toBe(true);
    // Claimed once: the seeds left the pool (which refills with new ones).
    for (const name of claimed) expect(existsSync(join(seeds, name!))).toBe(false);
    const raw = new Database(log, { readonly: true });
    try {
      expect(raw.prepare("SELECT conversation_id, session_key, last_seq FROM session_meta").all()).toEqual([{ conversation_id: "c2", session_key: "agent", last_seq: 1 }]);
      expect(raw.pragma("integrity_check", { simple: true })).toBe("ok");
    } finally {
      raw.close();
    }
    await sessions.close();
    await until(() => !existsSync(seeds), "the pool folder removed with the backend");
  });

  it("UI-1 seeds a killed process left in the pool folder are removed by the next process pooling there; a live process's are kept", async () => {
    const agentStoreDir = join(root, "leftovers");
    const seeds = join(agentStoreDir, ".seeds");
    mkdirSync(seeds, { recursive: true });
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    for (const name of [`${dead}.a.seed`, `${dead}.a.seed-wal`, `${process.ppid}.b.seed`]) writeFileSync(join(seeds, name), "");
    const sessions = createSqliteSessionBackend({ agentStoreDir });
    await (await sessions.openHostStore("c0", { create: true }))!.close();
    expect(readdirSync(seeds)).toEqual([`${process.ppid}.b.seed`]);
    await sessions.close();
  });
});
