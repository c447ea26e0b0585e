// FORK-1 (issue 46): a parent's log outlives its forks on SQLite. Pruning a finished run keeps its
// session folder while a fork in another conversation reads through to one of its sessions (put
// off like a held run), and removes it once that fork is gone; a fork in the run's own
// conversation goes with it.
import { existsSync } from "node:fs";
import { describe, expect, it } from "@jest/globals";
import { createSqliteRunRetention } from "../../src/adapters/driven/sqlite/run-retention/sqlite-run-retention.js";
import { conversationSessionsDirectory } from "../../src/adapters/driven/sqlite/sessions/session-database-path.js";
import { createSqliteSessionBackend } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-backend.js";
import { forkSession } from "../../src/app/time-travel/fork-session.js";
import type { SessionAddress } from "../../src/ports/session-store.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";

describe("FORK-1 prune keeps a parent that has forks", () => {
  it("FORK-1 SQLite: runs prune puts off a run whose session a fork in another conversation reads through to, and removes it once that fork's own run is pruned", async () => {
    const agentStoreDir = tempDirRemovedAfterAll("fork-prune-");
    const sessions = createSqliteSessionBackend({ agentStoreDir });
    const retention = await createSqliteRunRetention({ agentStoreDir });
    try {
      const parent: SessionAddress = { projectId: "p", conversationId: "run-a", sessionKey: "agent" };
      const store = (await sessions.openUnleased({ address: parent, create: true }))!;
      await store.append(Array.from({ length: 4 }, (_, i) => ({ eventId: `run-a/plan/${i}`, runId: "run-a", type: "plan" as const, payload: { planIndex: i, text: `step ${i}` } })));
      await store.close();
      const beside = await forkSession({ sessions, from: parent, at: { seq: 2 } });
      const away = await forkSession({ sessions, from: parent, at: { seq: 3 }, to: { projectId: "p", conversationId: "run-b", sessionKey: "agent" } });
      const folder = (runId: string) => conversationSessionsDirectory({ agentStoreDir, conversationId: runId });
      const readable = async (address: SessionAddress) => {
        const opened = (await sessions.openUnleased({ address, create: false }))!;
        try {
          return (await opened.readAfter(0)).length;
        } finally {
          await opened.close();
        }
      };

      await retention.mark({ projectId: "p", runId: "run-a", state: "finished", at: 1, expiresAt: 2 });
      expect(await retention.prune({ projectId: "p", now: 10, limit: 10, deferMs: 100 })).toEqual({ removed: [], deferred: ["run-a"], more: false });
      expect(existsSync(folder("run-a"))).toBe(true);
      expect(await readable(away.address)).toBe(4);

      // The fork's own run goes (nothing reads through to it); then the parent's, with the fork beside it.
      await retention.mark({ projectId: "p", runId: "run-b", state: "finished", at: 1, expiresAt: 20 });
      expect(await retention.prune({ projectId: "p", now: 50, limit: 10 })).toEqual({ removed: ["run-b"], deferred: [], more: false });
      expect(await retention.prune({ projectId: "p", now: 200, limit: 10 })).toEqual({ removed: ["run-a"], deferred: [], more: false });
      expect([existsSync(folder("run-a")), existsSync(folder("run-b"))]).toEqual([false, false]);
      expect(await sessions.openUnleased({ address: beside.address, create: false })).toBeNull();
    } finally {
      retention.close();
      await sessions.close();
    }
  });
});
