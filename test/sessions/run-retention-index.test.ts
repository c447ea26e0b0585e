// SES-12: the run-retention index of a SQLite session folder, against real session files and
// their real leases: due runs go oldest first in bounded batches, a run whose session a live
// owner holds is put off (never deleted under it), paused runs are never due.
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { createSqliteRunRetention, type SqliteRunRetention } from "../../src/adapters/driven/sqlite/run-retention/sqlite-run-retention.js";
import { conversationSessionsDirectory } from "../../src/adapters/driven/sqlite/sessions/session-database-path.js";
import { createSqliteSessionBackend, type SqliteSessionBackend } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-backend.js";

const PROJECT = "p-ses12";
let dir: string;
let sessions: SqliteSessionBackend;
let retention: SqliteRunRetention;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "sh-ses12-index-"));
  sessions = createSqliteSessionBackend({ agentStoreDir: dir, maxIdleSessions: 0 });
  retention = await createSqliteRunRetention({ agentStoreDir: dir });
});
afterEach(async () => {
  retention.close();
  await sessions.close();
  await rm(dir, { recursive: true, force: true });
});

/** Writes one event to the run's `agent` session (creating its file) and closes it, unless `keep`. */
async function writeSession(runId: string, keep = false) {
  const store = await sessions.open({ address: { projectId: PROJECT, conversationId: runId, sessionKey: "agent" }, ownerId: runId });
  await store.append([{ eventId: `${runId}/plan`, runId, type: "plan", payload: { planIndex: 0, text: "step" } }]);
  if (!keep) await store.close();
  return store;
}
const folderOf = (runId: string) => conversationSessionsDirectory({ agentStoreDir: dir, conversationId: runId });

describe("SES-12 the run-retention index of a SQLite session folder", () => {
  it("SES-12 due runs are removed oldest first in bounded batches; paused and not-yet-due runs stay", async () => {
    for (const [i, runId] of ["r1", "r2", "r3"].entries()) {
      await writeSession(runId);
      await retention.mark({ projectId: PROJECT, runId, state: "finished", at: 10 + i, expiresAt: 100 + i });
    }
    await writeSession("waiting");
    await retention.mark({ projectId: PROJECT, runId: "waiting", state: "paused", at: 5, expiresAt: null });
    await writeSession("fresh");
    await retention.mark({ projectId: PROJECT, runId: "fresh", state: "finished", at: 50, expiresAt: 10_000 });

    const first = await retention.prune({ projectId: PROJECT, now: 1000, limit: 2 });
    expect(first).toEqual({ removed: ["r1", "r2"], deferred: [], more: true });
    expect(["r1", "r2", "r3"].map((id) => existsSync(folderOf(id)))).toEqual([false, false, true]);
    const second = await retention.prune({ projectId: PROJECT, now: 1000, limit: 2 });
    expect(second).toEqual({ removed: ["r3"], deferred: [], more: false });
    // `finishedBefore` (runs prune --older-than) reaches finished runs not yet due, never paused ones.
    expect(await retention.prune({ projectId: PROJECT, now: 1000, limit: 10, finishedBefore: 1000 })).toEqual({ removed: ["fresh"], deferred: [], more: false });
    expect([existsSync(folderOf("waiting")), (await retention.get(PROJECT, "waiting"))?.state]).toEqual([true, "paused"]);
    // Another project's runs are not this prune's.
    await retention.mark({ projectId: "other", runId: "theirs", state: "finished", at: 1, expiresAt: 2 });
    expect((await retention.prune({ projectId: PROJECT, now: 1000, limit: 10 })).removed).toEqual([]);
    expect(await retention.get("other", "theirs")).not.toBeNull();
  });

  it("SES-12 a due run whose session a live owner holds is put off, and removed once the lease is released", async () => {
    const held = await writeSession("busy", true);
    await retention.mark({ projectId: PROJECT, runId: "busy", state: "running", at: 1, expiresAt: 2 });
    expect(await retention.prune({ projectId: PROJECT, now: 1000, limit: 10, deferMs: 500 })).toEqual({ removed: [], deferred: ["busy"], more: false });
    expect(existsSync(folderOf("busy"))).toBe(true);
    // Put off by deferMs: not due again before then.
    expect((await retention.get(PROJECT, "busy"))?.expiresAt).toBe(1500);
    expect((await held.head()).lastSeq).toBe(1);
    await held.close();
    expect(await retention.prune({ projectId: PROJECT, now: 1501, limit: 10 })).toEqual({ removed: ["busy"], deferred: [], more: false });
    expect(existsSync(folderOf("busy"))).toBe(false);
  });
});
