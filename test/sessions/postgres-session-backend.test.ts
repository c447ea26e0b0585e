import { randomUUID } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { createPostgresSessionBackend } from "../../src/adapters/driven/postgres/sessions/postgres-session-backend.js";
import { postgresSessionLockKey } from "../../src/adapters/driven/postgres/sessions/postgres-session-lease.js";
import { createPostgresStorage } from "../../src/adapters/driven/postgres/postgres-storage.js";
import { requireMigrationsFolder } from "../../src/adapters/driven/system/migrations-folder.js";
import { isSteamharnessError } from "../../src/domain/errors.js";
import type { SessionEventInput } from "../../src/ports/session-store.js";
import { runSessionBackendContract } from "../../src/testing/session-backend.contract.js";
import { runSessionStoreContract } from "../../src/testing/session-store.contract.js";
import { describePostgres, quoteIdentifier, type PostgresTestDatabase } from "../fixtures/postgres.js";

const api = { describe, it, expect };
const address = (conversationId: string) => ({ projectId: "pg-1", conversationId, sessionKey: "agent" });
const plan = (runId: string, i: number): SessionEventInput => ({ eventId: `${runId}/plan/${i}`, runId, type: "plan", payload: { planIndex: i, text: `step ${i}` } });

/** The server pid holding a session's lease, read from pg_locks (raw, not through the adapter). */
async function leaseHolderPid(database: PostgresTestDatabase, schema: string, conversationId: string): Promise<number | null> {
  const { classid, objid } = postgresSessionLockKey(schema, address(conversationId));
  const { rows } = await database.raw.query<{ pid: number }>(
    "select pid from pg_locks where locktype = 'advisory' and objsubid = 1 and granted and classid::bigint = $1 and objid::bigint = $2",
    [classid, objid],
  );
  return rows[0]?.pid ?? null;
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describePostgres("PG-1 PostgreSQL session backend", (database) => {
  describe("PG-1 the session backend contract on PostgreSQL", () => {
    runSessionBackendContract(
      api,
      () => ({
        store: createPostgresSessionBackend({ pool: database.pool, schema: database.schema }),
        // Another host process's view: its own backend object (own lease connections) on the same database.
        inspect: { peer: () => createPostgresSessionBackend({ pool: database.pool, schema: database.schema }) },
      }),
      { databasePaths: false, shared: true },
    );
  });

  describe("PG-1 the session store contract on PostgreSQL sessions", () => {
    runSessionStoreContract(api, async () => {
      const backend = createPostgresSessionBackend({ pool: database.pool, schema: database.schema });
      const where = address(randomUUID());
      return {
        store: await backend.open({ address: where, ownerId: "run-contract" }),
        reopen: () => backend.open({ address: where, ownerId: "run-contract-2" }),
        dispose: () => backend.close(),
      };
    });
  });

  describe("PG-1 the session store contract on unleased PostgreSQL sessions", () => {
    runSessionStoreContract(api, async () => {
      const backend = createPostgresSessionBackend({ pool: database.pool, schema: database.schema });
      const where = address(randomUUID());
      return {
        store: (await backend.openUnleased({ address: where, create: true }))!,
        reopen: async () => (await backend.openUnleased({ address: where, create: false }))!,
        dispose: () => backend.close(),
      };
    });
  });

  it("PG-1 SES-2 fencing: a store whose lease connection was killed is no longer held, cannot append, and the session is free for another owner", async () => {
    const backend = createPostgresSessionBackend({ pool: database.pool, schema: database.schema });
    const other = createPostgresSessionBackend({ pool: database.pool, schema: database.schema });
    try {
      const c = randomUUID();
      const store = await backend.open({ address: address(c), ownerId: "run-1" });
      await store.append([plan("run-1", 0)]);
      expect(store.isHeld()).toBe(true);
      const pid = await leaseHolderPid(database, database.schema, c);
      expect(pid).not.toBeNull();
      await database.raw.query("select pg_terminate_backend($1)", [pid]);
      await until(() => !store.isHeld());
      const refused = await store.append([plan("run-1", 1)]).catch((error: unknown) => error);
      expect(isSteamharnessError(refused, "unavailable") || isSteamharnessError(refused, "storage_failure")).toBe(true);
      // Nothing of the refused append reached the log; the lock went with the server session.
      const { rows } = await database.raw.query(`select e.event_id from ${quoteIdentifier(database.schema)}.agent_session_events e join ${quoteIdentifier(database.schema)}.agent_sessions s on s.id = e.session_id where s.conversation_id = $1`, [c]);
      expect(rows.map((row: { event_id: string }) => row.event_id)).toEqual(["run-1/plan/0"]);
      expect(await leaseHolderPid(database, database.schema, c)).toBeNull();
      const taken = await other.open({ address: address(c), ownerId: "run-2" });
      expect((await taken.head()).lastSeq).toBe(1);
      expect((await taken.append([plan("run-2", 0)])).events[0]!.seq).toBe(2);
      await taken.close();
      await store.close();
    } finally {
      await backend.close();
      await other.close();
    }
  });

  it("PG-1 SES-2 fencing: a lease holder's unleased store writes on the lease connection and refuses once that connection died", async () => {
    const backend = createPostgresSessionBackend({ pool: database.pool, schema: database.schema });
    try {
      const c = randomUUID();
      const lease = (await backend.leases.acquire(address(c), { ownerId: "host-1" }))!;
      const store = (await backend.openUnleased({ address: address(c), create: true }))!;
      await store.append([plan("task-1", 0)]);
      await database.raw.query("select pg_terminate_backend($1)", [await leaseHolderPid(database, database.schema, c)]);
      await until(() => !lease.isHeld());
      const refused = await store.append([plan("task-1", 1)]).catch((error: unknown) => error);
      expect(isSteamharnessError(refused, "unavailable")).toBe(true);
      expect((await store.head()).lastSeq).toBe(1);
      await lease.release();
      await store.close();
    } finally {
      await backend.close();
    }
  });

  it("PG-1 SES-3 concurrent appenders of one session get gapless, unique seqs and each event id once", async () => {
    const backend = createPostgresSessionBackend({ pool: database.pool, schema: database.schema });
    const peer = createPostgresSessionBackend({ pool: database.pool, schema: database.schema });
    try {
      const where = address(randomUUID());
      const a = (await backend.openUnleased({ address: where, create: true }))!;
      const b = (await peer.openUnleased({ address: where, create: true }))!;
      // Overlapping batches: ids 0..39 written by both sides, in different groupings.
      await Promise.all([
        ...Array.from({ length: 10 }, (_, i) => a.append([plan("r", 4 * i), plan("r", 4 * i + 1), plan("r", 4 * i + 2), plan("r", 4 * i + 3)])),
        ...Array.from({ length: 20 }, (_, i) => b.append([plan("r", 2 * i + 1), plan("r", 2 * i)])),
      ]);
      const events = await a.readAfter(0);
      expect(events.map((event) => event.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      expect(new Set(events.map((event) => event.eventId)).size).toBe(40);
      expect((await b.head()).lastSeq).toBe(40);
    } finally {
      await backend.close();
      await peer.close();
    }
  });

  it("PG-1 the lease connection budget is bounded: past maxLeaseConnections acquire fails with storage_failure and holds nothing", async () => {
    const backend = createPostgresSessionBackend({ pool: database.pool, schema: database.schema, maxLeaseConnections: 2 });
    try {
      const held = [await backend.leases.acquire(address(randomUUID()), { ownerId: "a" }), await backend.leases.acquire(address(randomUUID()), { ownerId: "b" })];
      const c = randomUUID();
      const refused = await backend.leases.acquire(address(c), { ownerId: "c" }).catch((error: unknown) => error);
      expect(isSteamharnessError(refused, "storage_failure")).toBe(true);
      await held[0]!.release();
      const third = await backend.leases.acquire(address(c), { ownerId: "c" });
      expect(third?.isHeld()).toBe(true);
      await third!.release();
      await held[1]!.release();
    } finally {
      await backend.close();
    }
  });

  it("PG-1 createPostgresStorage gives a PostgreSQL session backend on its schema; close() releases it", async () => {
    const schema = database.freshSchema();
    const storage = await createPostgresStorage({ pool: database.pool, schema });
    expect(storage.sessions?.kind).toBe("postgres");
    expect(storage.sessions?.durable).toBe(true);
    const c = randomUUID();
    const store = await storage.sessions!.open({ address: address(c), ownerId: "run-1" });
    await store.append([plan("run-1", 0)]);
    const host = (await storage.sessions!.openHostStore(c, { create: true }))!;
    await host.setSetting("activeTargetId", "0");
    await host.close();
    await storage.close();
    expect(await leaseHolderPid(database, schema, c)).toBeNull();
    const again = await createPostgresStorage({ pool: database.pool, schema });
    const reopened = await again.sessions!.open({ address: address(c), ownerId: "run-2" });
    expect((await reopened.head()).lastSeq).toBe(1);
    await reopened.close();
    await again.close();
  });

  it("ARCH-8 FORK-1 PostgreSQL sessions from before migrations 0005/0006 keep their forks: a fork written with base_session_id reads through its parent after the upgrade, and forks on", async () => {
    const directory = mkdtempSync(join(tmpdir(), "sh-pg-sessions-0004-"));
    const schema = database.freshSchema();
    const q = (table: string) => `${quoteIdentifier(schema)}.${table}`;
    try {
      // The session tables as migrations 0000–0004 left them: a fork names its parent by row id (base_session_id).
      const folder = requireMigrationsFolder("postgres-sessions", "postgres");
      const old = join(directory, "postgres-sessions-0004");
      cpSync(folder, old, { recursive: true });
      const journalFile = join(old, "meta", "_journal.json");
      const journal = JSON.parse(readFileSync(journalFile, "utf8")) as { entries: Array<{ tag: string }> };
      writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.filter((entry) => entry.tag <= "0004") }));
      const before = createPostgresSessionBackend({ pool: database.pool, schema, migrationsFolder: old });
      expect(await before.openHostStore("none", { create: false })).toBeNull(); // migrates to 0004
      await before.close();
      const columns = async () => (await database.raw.query<{ column_name: string }>("select column_name from information_schema.columns where table_schema = $1 and table_name = 'agent_sessions' and column_name like 'base%' order by column_name", [schema])).rows.map((row) => row.column_name);
      expect(await columns()).toEqual(["base_seq", "base_session_id"]);

      // Rows as the old code wrote them: a parent with 4 events; a fork of it through seq 3 with one event of its
      // own (base_session_id = the parent's id, base_seq = 3); and a fork of that fork through seq 4.
      const [parent, fork, grandchild] = [randomUUID(), randomUUID(), randomUUID()];
      const session = async (conversationId: string, lastSeq: number, lastRunId: string, base: { id: number; seq: number } | null) =>
        (await database.raw.query<{ id: string }>(`insert into ${q("agent_sessions")} (project_id, scope, conversation_id, session_key, last_seq, last_run_id, created_at, base_session_id, base_seq) values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning id`,
          ["pg-1", `c:${conversationId}`, conversationId, "agent", lastSeq, lastRunId, 1000, base?.id ?? null, base?.seq ?? null])).rows[0]!.id;
      const event = (sessionId: string, seq: number, eventId: string, runId: string, type: string, payload: unknown) =>
        database.raw.query(`insert into ${q("agent_session_events")} (session_id, seq, event_id, run_id, type, payload, at) values ($1, $2, $3, $4, $5, $6, $7)`, [sessionId, seq, eventId, runId, type, JSON.stringify(payload), 1000 + seq]);
      const parentId = await session(parent, 4, "run-1", null);
      await event(parentId, 1, "run-1/start", "run-1", "run_started", { input: "hi" });
      await event(parentId, 2, "run-1/plan/0", "run-1", "plan", { planIndex: 0, text: "step 0" });
      await event(parentId, 3, "run-1/plan/1", "run-1", "plan", { planIndex: 1, text: "step 1" });
      await event(parentId, 4, "run-1/plan/2", "run-1", "plan", { planIndex: 2, text: "parent only" });
      const forkId = await session(fork, 4, "run-2", { id: Number(parentId), seq: 3 });
      await event(forkId, 4, "run-2/start", "run-2", "run_started", { input: "forked" });
      await session(grandchild, 4, "run-2", { id: Number(forkId), seq: 4 });

      // The current storage migrates the schema to 0006 on its first session call.
      const storage = await createPostgresStorage({ pool: database.pool, schema });
      try {
        const sessions = storage.sessions!;
        const forked = (await sessions.openUnleased({ address: address(fork), create: false }))!;
        expect(forked).not.toBeNull();
        expect(await columns()).toEqual(["base_conversation_id", "base_project_id", "base_seq", "base_session_key"]);
        const { rows: pointers } = await database.raw.query(`select conversation_id, base_project_id, base_conversation_id, base_session_key, base_seq::int from ${q("agent_sessions")} order by id`);
        expect(pointers).toEqual([
          { conversation_id: parent, base_project_id: null, base_conversation_id: null, base_session_key: null, base_seq: null },
          { conversation_id: fork, base_project_id: "pg-1", base_conversation_id: parent, base_session_key: "agent", base_seq: 3 },
          { conversation_id: grandchild, base_project_id: "pg-1", base_conversation_id: fork, base_session_key: "agent", base_seq: 4 },
        ]);
        // The fork reads the parent's seq 1..3 through its pointer, then its own event; not the parent's seq 4.
        const forkLog = ["run-1/start", "run-1/plan/0", "run-1/plan/1", "run-2/start"];
        expect((await forked.readAfter(0)).map((e) => [e.seq, e.eventId])).toEqual(forkLog.map((id, i) => [i + 1, id]));
        expect(await forked.get("run-1/plan/1")).toEqual(expect.objectContaining({ seq: 3, runId: "run-1", type: "plan", payload: { planIndex: 1, text: "step 1" }, at: 1003 }));
        expect(await forked.get("run-1/plan/2")).toBeNull();
        expect((await forked.readRun("run-1")).map((e) => e.seq)).toEqual([1, 2, 3]);
        expect(await forked.head()).toEqual({ lastSeq: 4, snapshot: null, lastRunId: "run-2" });
        await forked.close();
        // The fork of the fork reads on through both pointers.
        const deeper = (await sessions.openUnleased({ address: address(grandchild), create: false }))!;
        expect((await deeper.readAfter(0)).map((e) => e.eventId)).toEqual(forkLog);
        await deeper.close();
        // The old fork is held and appended to: ids its prefix holds are skipped, new ones go on at seq 5.
        const held = await sessions.open({ address: address(fork), ownerId: "run-3" });
        const appended = await held.append([plan("run-1", 0), plan("run-3", 0)]);
        expect(appended.events.map((e) => [e.seq, e.eventId])).toEqual([[2, "run-1/plan/0"], [5, "run-3/plan/0"]]);
        await held.close();
        // A new fork of the old fork, written by the current code, reads through the old fork to the parent.
        const next = randomUUID();
        await sessions.forkLog!({ from: address(fork), to: address(next), throughSeq: 5, append: [plan("run-4", 0)] });
        const fresh = (await sessions.openUnleased({ address: address(next), create: false }))!;
        expect((await fresh.readAfter(0)).map((e) => [e.seq, e.eventId])).toEqual([...forkLog, "run-3/plan/0", "run-4/plan/0"].map((id, i) => [i + 1, id]));
        expect((await fresh.head()).lastSeq).toBe(6);
        await fresh.close();
      } finally {
        await storage.close();
      }
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
