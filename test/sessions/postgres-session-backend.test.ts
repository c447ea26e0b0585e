import { randomUUID } from "node:crypto";
import { describe, expect, it } from "@jest/globals";
import { createPostgresSessionBackend } from "../../src/adapters/driven/postgres/sessions/postgres-session-backend.js";
import { postgresSessionLockKey } from "../../src/adapters/driven/postgres/sessions/postgres-session-lease.js";
import { createPostgresStorage } from "../../src/adapters/driven/postgres/postgres-storage.js";
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
});
