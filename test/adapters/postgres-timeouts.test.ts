/**
 * SEC-8: a PostgreSQL server that hangs gives `storage_failure` within the statement timeout
 * (not a call pending forever), the store works again once the server answers, and system
 * schemas are refused. On a private cluster: the shared test server is never paused.
 */
import { expect, it } from "@jest/globals";
import pg from "pg";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { createPostgresStorage } from "../../src/adapters/driven/postgres/postgres-storage.js";
import { createPostgresProjectConfigurationStore } from "../../src/adapters/driven/postgres/postgres-sql-driver.js";
import { createPostgresSessionBackend, type PostgresSessionBackend } from "../../src/adapters/driven/postgres/sessions/postgres-session-backend.js";
import { createPostgresSessionCatalog } from "../../src/adapters/driven/postgres/sessions/postgres-session-catalog.js";
import { describePrivatePostgres } from "../fixtures/private-postgres.js";

const STATEMENT_TIMEOUT_MS = 1_000;
// The client gives up 2 s after the statement timeout; the rest is slack for a loaded machine.
const BOUND_MS = STATEMENT_TIMEOUT_MS + 2_000 + 3_000;
const ns = { projectId: "sec8", conversationId: "c" };

/** How `promise` settled and after how many milliseconds; never waits past `limitMs`. */
async function settle(promise: Promise<unknown>, limitMs: number): Promise<{ error: unknown; ms: number; pending: boolean }> {
  const started = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<"pending">((resolve) => (timer = setTimeout(() => resolve("pending"), limitMs)));
  const outcome = await Promise.race([promise.then(() => ({ error: undefined }), (error: unknown) => ({ error })), limit]);
  clearTimeout(timer);
  return outcome === "pending" ? { error: undefined, ms: Date.now() - started, pending: true } : { ...outcome, ms: Date.now() - started, pending: false };
}

/** Client backends other than `raw`'s own (our connections that the server still serves). */
async function otherBackends(raw: pg.Client): Promise<number> {
  const { rows } = await raw.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where backend_type = 'client backend' and pid <> pg_backend_pid()");
  return rows[0]!.n;
}

describePrivatePostgres("SEC-8 PostgreSQL timeouts and schema checks", (cluster) => {
  it("SEC-8 a paused server (SIGSTOP of the postmaster and its backends) fails store calls with storage_failure within the timeout; after SIGCONT the store works again and leaves no connection", async () => {
    const storage = await createPostgresStorage({ connectionString: cluster.url, schema: "sec8_paused", statementTimeoutMs: STATEMENT_TIMEOUT_MS });
    const address = { projectId: "sec8", conversationId: "c", sessionKey: "agent" };
    const session = await (storage.sessions as PostgresSessionBackend).open({ address, ownerId: "run-1" });
    try {
      await storage.kv.set(ns, "k", { v: 1 });
      await session.append([{ eventId: "run-1/plan/0", runId: "run-1", type: "plan", payload: { planIndex: 0, text: "a" } }]);
      cluster.pause();
      let outcomes;
      try {
        // A pool query and a query on a session's lease connection, both already connected.
        outcomes = await Promise.all([settle(storage.kv.get(ns, "k"), BOUND_MS + 5_000), settle(session.head(), BOUND_MS + 5_000)]);
      } finally {
        cluster.resume();
      }
      for (const outcome of outcomes) {
        expect(outcome.pending).toBe(false);
        expect(isSteamharnessError(outcome.error, "storage_failure")).toBe(true);
        expect(outcome.ms).toBeLessThan(BOUND_MS);
      }
      // The pool dropped the wedged connection: the next call connects afresh and succeeds.
      await expect(storage.kv.get(ns, "k")).resolves.toMatchObject({ value: { v: 1 } });
      // The lease connection is gone with its lease; the session can be taken again.
      expect(session.isHeld()).toBe(false);
    } finally {
      await session.close().catch(() => undefined);
      await storage.close();
    }
    const raw = new pg.Client({ connectionString: cluster.url });
    await raw.connect();
    try {
      // Every connection of the store ended (the server notices the closed sockets once it runs).
      let left = await otherBackends(raw);
      for (let i = 0; i < 50 && left > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        left = await otherBackends(raw);
      }
      expect(left).toBe(0);
    } finally {
      await raw.end();
    }
  }, 60_000);

  it("SEC-8 a statement the server cannot finish (blocked on a lock) is cancelled by the statement timeout with storage_failure, and the connection stays usable", async () => {
    const storage = await createPostgresStorage({ connectionString: cluster.url, schema: "sec8_locked", statementTimeoutMs: STATEMENT_TIMEOUT_MS });
    const locker = new pg.Client({ connectionString: cluster.url });
    await locker.connect();
    try {
      await storage.kv.set(ns, "k", 1);
      await locker.query("begin");
      await locker.query('lock table "sec8_locked"."kv_entries" in access exclusive mode');
      const outcome = await settle(storage.kv.set(ns, "k", 2), BOUND_MS + 5_000);
      await locker.query("rollback");
      expect(outcome.pending).toBe(false);
      expect(isSteamharnessError(outcome.error, "storage_failure")).toBe(true);
      // The server's own cancel (57014 query_canceled), before the client's deadline.
      expect(((outcome.error as Error).cause as { code?: string }).code).toBe("57014");
      expect(outcome.ms).toBeLessThan(STATEMENT_TIMEOUT_MS + 2_000);
      await expect(storage.kv.get(ns, "k")).resolves.toMatchObject({ value: 1 });
    } finally {
      await locker.end();
      await storage.close();
    }
  }, 60_000);

  it("SEC-8 system schemas are refused as the store's schema with input_validation, and nothing is created in them", async () => {
    const refused = ["information_schema", "pg_catalog", "pg_toast", "pg_temp_1", "pg_mine", "PG_Catalog", "Information_Schema"];
    for (const schema of refused) {
      for (const open of [
        () => createPostgresStorage({ connectionString: cluster.url, schema }),
        () => createPostgresProjectConfigurationStore({ connectionString: cluster.url, schema }),
        async () => createPostgresSessionBackend({ connectionString: cluster.url, schema }),
        async () => createPostgresSessionCatalog({ connectionString: cluster.url, schema }),
      ]) {
        const error = await open().then(
          async (opened) => {
            await opened.close?.();
            return undefined;
          },
          (caught: unknown) => caught,
        );
        expect({ schema, code: isSteamharnessError(error) ? error.code : String(error) }).toEqual({ schema, code: "input_validation" });
        expect((error as { field?: string }).field).toBe("schema");
      }
    }
    const raw = new pg.Client({ connectionString: cluster.url });
    await raw.connect();
    try {
      const { rows } = await raw.query("select table_schema, table_name from information_schema.tables where table_name in ('kv_entries', '__steamharness_migrations', 'agent_sessions') and table_schema in ('information_schema', 'pg_catalog', 'pg_toast')");
      expect(rows).toEqual([]);
    } finally {
      await raw.end();
    }
  }, 60_000);

  it("SEC-8 statementTimeoutMs must be a whole number of milliseconds", async () => {
    for (const statementTimeoutMs of [-1, 1.5, Number.NaN, "30000" as unknown as number]) {
      await expect(createPostgresStorage({ connectionString: cluster.url, schema: "sec8_option", statementTimeoutMs })).rejects.toMatchObject({ code: "input_validation", field: "statementTimeoutMs" });
    }
  });
});
