/**
 * Durable session storage on its own (SES-1, SES-2): where a conversation's session file lives,
 * one execution owner at a time, an append-only event log that survives reopening, and a
 * snapshot so that resuming reads the snapshot plus the events after it.
 *
 *   node --import tsx examples/durable-session-store.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { isSteamharnessError } from "steamharness";
import { createSqliteSessionBackend, createSqliteSessionLeaseProvider, createSqliteSessionStore, resolveSessionDatabasePath } from "steamharness/sqlite";

const agentStoreDir = mkdtempSync(path.join(tmpdir(), "steamharness-sessions-"));
const address = { projectId: "demo", conversationId: "conv-1", sessionKey: "助手 agent" };
const databasePath = resolveSessionDatabasePath({ agentStoreDir, ...address });
console.log("session file:", path.relative(agentStoreDir, databasePath));

try {
  // One owner per session: a second owner is refused while the first holds the lease.
  const leases = createSqliteSessionLeaseProvider({ agentStoreDir });
  const lease = await leases.acquire(address, { ownerId: "run-1" });
  const busy = await leases.acquire(address, { ownerId: "run-2", onBusy: "throw" }).catch((e: unknown) => e);
  console.log("second owner refused:", isSteamharnessError(busy, "session_busy"));

  const store = createSqliteSessionStore({ path: databasePath, address });
  await store.append([
    { eventId: "run-1/user", runId: "run-1", type: "user_message", payload: { message: { role: "user", content: "Summarise the repo" } } },
    { eventId: "run-1/plan/0", runId: "run-1", type: "plan", payload: { planIndex: 0, text: "Read README, then list src/." } },
  ]);
  // Re-appending the same step (a resumed run) changes nothing (SES-3).
  const again = await store.append([{ eventId: "run-1/plan/0", runId: "run-1", type: "plan", payload: { planIndex: 0, text: "ignored" } }]);
  console.log("re-appended events stored:", again.appended);
  await store.putSnapshot({ atSeq: 2, state: { summary: "user asked for a summary; plan made" } });
  await store.close();
  await lease?.release();

  // Another run (or process) reopens the session: snapshot plus the events after it.
  const reopened = createSqliteSessionStore({ path: databasePath, address });
  const head = await reopened.head();
  const tail = await reopened.readAfter(head.snapshot?.atSeq ?? 0);
  console.log("head:", head.lastSeq, "snapshot at", head.snapshot?.atSeq, "events after it:", tail.length);
  await reopened.close();

  // What a storage does for its runs: its session backend keeps the session open between leases.
  const sessions = createSqliteSessionBackend({ agentStoreDir });
  for (const runId of ["run-2", "run-3"]) {
    const warm = await sessions.open({ address, ownerId: runId });
    const taken = await leases.acquire(address, { ownerId: "other" });
    await warm.append([{ eventId: `${runId}/user`, runId, type: "user_message", payload: { message: { role: "user", content: "And the tests?" } } }]);
    console.log(runId, "on a warm session: head", (await warm.head()).lastSeq, "other owner refused:", taken === null);
    await warm.close();
  }
  await sessions.close();
} finally {
  rmSync(agentStoreDir, { recursive: true, force: true });
}
