import pg from "pg";
import { and, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import { SteamharnessError, wrapAdapterError } from "../../../../domain/errors.js";
import type { Clock } from "../../../../ports/clock.js";
import type { SessionBackend, SessionUnleasedRequest } from "../../../../ports/session-backend.js";
import type { SessionAddress, SessionStore } from "../../../../ports/session-store.js";
import { checkLeaseRequest } from "../../../../domain/agent/session-lease-rules.js";
import { checkSchemaName, DEFAULT_POSTGRES_SCHEMA, driverFault, migratePostgresSchema, poolOf, postgresCall, type PostgresConnectionOptions, type PostgresDb, type PostgresQueryable } from "../postgres-database.js";
import { createSessionBackend } from "../../kernel/session-backend.js";
import type { SessionBase } from "../../kernel/session-store.js";
import { baseOf, forkSteps, newHead, sessionScope, sqlSessionStore, type SqlSessionTables } from "../../kernel/sql-session-rows.js";
import type { SqlDriver } from "../../kernel/sql-driver.js";
import type { Awaitable } from "../../kernel/store-call.js";
import { checkStatementTimeout } from "../postgres-deadlines.js";
import { requireMigrationsFolder } from "../../system/migrations-folder.js";
import { sqlSessionHostStore } from "../../kernel/session-host-store.js";
import { postgresSqlDriver } from "../postgres-sql-driver.js";
import { createPostgresSessionLeaseProvider, type PostgresLeaseKeepAlive, type PostgresLeaseLock } from "./postgres-session-lease.js";
import type { KernelSessionLease } from "../../kernel/session-lease.js";
import { postgresFastAppend } from "./postgres-session-store.js";
import { postgresSessionTables } from "./session-schema.js";

/**
 * Options of {@link createPostgresSessionBackend}: a host's `pool` (for reads, host records and
 * unleased writes; never ended here) or a `connectionString` (a pool is made and `close()` ends
 * it); `migrationsFolder` is the sessions' own (`drizzle/postgres-sessions` by default);
 * `statementTimeoutMs` bounds lease connections too (an unanswered query ends its connection 2 s
 * later, and the lease with it).
 */
export interface PostgresSessionBackendOptions extends PostgresConnectionOptions {
  /**
   * How lease connections connect (one `pg.Client` per held session). Default: the
   * `connectionString`, else the given pool's own connection options.
   */
  leaseConnection?: pg.ClientConfig;
  /** At most this many sessions held at once by this backend, each on its own connection (default 32). */
  maxLeaseConnections?: number;
  /** Released lease connections kept open for the next lease (default 4). */
  maxIdleLeaseConnections?: number;
  /**
   * TCP keepalive of lease connections (default idle 10 s, every 5 s, 3 probes): the server drops
   * the leases of a machine that vanished after at most idle + interval × count seconds (25 s).
   */
  keepAlive?: PostgresLeaseKeepAlive;
  /** Timestamps of host records (events take the clock of their request). */
  clock?: Clock;
}

/** The PostgreSQL session backend. */
export interface PostgresSessionBackend extends SessionBackend {
  readonly kind: "postgres";
  /** The schema holding the session tables. */
  readonly schema: string;
  /** Opens a session under its lease; the store also tells whether its lease still holds. */
  open(...args: Parameters<SessionBackend["open"]>): Promise<PostgresLeasedSessionStore>;
}

/** A session store held under a lease of the PostgreSQL backend. */
export interface PostgresLeasedSessionStore extends SessionStore {
  /** False once the store is closed or its lease connection died (then every call rejects with `unavailable`). */
  isHeld(): boolean;
  /** The lease's key (see `postgresSessionLockKey`). */
  readonly leaseKey: string;
}

const leaseLost = (key: string) =>
  new SteamharnessError("unavailable", `[steamharness] [postgres] the lease of session ${key} was lost (its connection ended): this owner can no longer write`, { data: { key } });

/**
 * The PostgreSQL session backend (SES-1, SES-2, HOST-1): session logs, leases and session-host
 * records in one schema of a database shared by several host processes on several machines.
 *
 * - Leases: a session-level advisory lock per session (64-bit key from a hash of schema and
 *   address) held on a dedicated connection per held session — not a pool connection — so a
 *   lease lasts exactly as long as that server session: `release()` unlocks it; a killed process
 *   closes its TCP connection and the server drops the lock at once; a vanished machine is
 *   detected by TCP keepalive within the `keepAlive` bound (25 s by default).
 * - Fencing: a store from `open` runs every statement on its lease's connection, and an unleased
 *   store of a session this backend holds writes on it too; once that connection is gone the
 *   lease reports `isHeld() === false` and writes reject with `unavailable`: an owner that lost
 *   its lease can never write again, not even after the network comes back.
 * - Connections: the pool (the host's or ours) serves reads, host records and unleased writes;
 *   lease connections are separate `pg.Client`s, at most `maxLeaseConnections`, so one host
 *   process uses at most `pool.max + maxLeaseConnections` connections.
 * - Migrations (`drizzle/postgres-sessions`, own migrations table) are applied on first use under
 *   the schema's migration lock, so several processes may open at once.
 *
 * `databasePath` requests are refused with `input_validation` (sessions are kept by address);
 * faults reject with `storage_failure`; after `close()` calls reject with `unavailable`.
 *
 * @example
 * const sessions = createPostgresSessionBackend({ pool, schema: "steamharness" });
 * const store = await sessions.open({ address: { projectId: "p", conversationId: "c1", sessionKey: "agent" }, ownerId: "run-1" });
 * await store.append([{ eventId: "run-1/plan/0", runId: "run-1", type: "plan", payload: { planIndex: 0, text: "…" } }]);
 * await store.close(); // releases the lease
 * await sessions.close();
 */
export function createPostgresSessionBackend(options: PostgresSessionBackendOptions): PostgresSessionBackend {
  const schema = checkSchemaName(options.schema ?? DEFAULT_POSTGRES_SCHEMA);
  const statementTimeoutMs = checkStatementTimeout(options.statementTimeoutMs);
  if (!options.pool && !options.connectionString) throw new SteamharnessError("input_validation", "createPostgresSessionBackend needs a pool or a connectionString", { field: "pool" });
  const { pool, end } = poolOf(options);
  const db: PostgresDb = drizzle({ client: pool });
  const tables = postgresSessionTables(schema);
  const now = options.clock ? () => options.clock!.now() : Date.now;
  const leaseConnection = options.leaseConnection ?? (options.connectionString ? { connectionString: options.connectionString } : { ...(pool.options as pg.ClientConfig) });
  const leases = createPostgresSessionLeaseProvider({ ...options, schema, leaseConnection, statementTimeoutMs });

  let migrated: Promise<void> | null = null;
  /** Every call first: migrations applied once (retried after a failure). */
  const ready = async (): Promise<void> => {
    // Under the schema's migration lock the store's migrations take too, with a bookkeeping table of their own.
    migrated ??= migratePostgresSchema(pool, schema, options.migrationsFolder ?? requireMigrationsFolder("postgres-sessions", "postgres"), "__steamharness_session_migrations").catch((error: unknown) => {
      migrated = null;
      throw wrapAdapterError("postgres", `cannot migrate the session tables in schema "${schema}"`, driverFault(error));
    });
    await migrated;
  };
  const fault = (what: string) => (error: unknown) => {
    if (error instanceof SteamharnessError) throw error;
    throw wrapAdapterError("postgres", what, driverFault(error));
  };
  const { sessions } = tables;
  /** One row driver per connection (the pool, each lease's), its statements prepared once. */
  const drivers = new WeakMap<PostgresQueryable, SqlDriver<SqlSessionTables>>();
  const driverOn = (on: PostgresQueryable) => drivers.get(on) ?? drivers.set(on, postgresSqlDriver(on, { heads: sessions, events: tables.sessionEvents, snapshots: tables.sessionSnapshots }, { now })).get(on)!;
  /** The session's row id and, for a fork, its pointer, on `on` (the pool, or a lease's connection); created when missing and `create`, else `null`. */
  const sessionIdOf = async (on: PostgresQueryable, address: SessionAddress, create: boolean): Promise<{ id: number; base: SessionBase | null } | null> => {
    const find = async () => {
      const byAddress = and(eq(sessions.projectId, address.projectId), eq(sessions.scope, sessionScope(address)), eq(sessions.sessionKey, address.sessionKey));
      const [row] = await on.select({ id: sessions.id, baseProjectId: sessions.baseProjectId, baseConversationId: sessions.baseConversationId, baseSessionKey: sessions.baseSessionKey, baseSeq: sessions.baseSeq }).from(sessions).where(byAddress);
      return row ? { id: row.id, base: baseOf(row) } : null;
    };
    const found = await find();
    if (found !== null || !create) return found;
    const id = await newHead(driverOn(on), address, now());
    // Another writer created it meanwhile: its row.
    return id === undefined ? find() : { id, base: null };
  };

  /**
   * Where a store's steps run (fencing): a `held` store's every step on its lease's connection
   * (`unavailable` once that connection is gone); an unleased store's reads on the pool, and its
   * writes on the lease's connection while this process holds the session (`unavailable` once
   * that lease was lost), else on the pool.
   */
  /** The store of a session row whose steps run on `lease`'s connection (fencing) as the lease and `held` say. */
  const storeOf = (request: SessionUnleasedRequest, session: { id: number; base: SessionBase | null }, lease: KernelSessionLease<PostgresLeaseLock> | null, held: boolean) => {
    const on = async <T>(write: boolean, step: (driver: SqlDriver<SqlSessionTables>) => Awaitable<T>): Promise<T> => {
      if (!lease || (!write && !held)) return step(driverOn(db));
      if (held ? !lease.isHeld() : lease.lost()) throw leaseLost(lease.key);
      const { connection } = lease.lock;
      return lease.isHeld() ? connection.serial(async () => step(driverOn(connection.db))) : step(driverOn(db));
    };
    return sqlSessionStore({ address: request.address, sessionId: session.id, run: { on, base: session.base }, fastAppend: postgresFastAppend, call: postgresCall({ closed: false }), clock: request.clock ?? { now: Date.now } });
  };
  const backend = createSessionBackend<PostgresLeaseLock, Pick<PostgresLeasedSessionStore, "isHeld" | "leaseKey">>(
    {
      kind: "postgres",
      durable: true,
      leases,
      async hold(request, lease) {
        await ready();
        const { connection } = lease.lock;
        // The row is created on the lease's own connection, before anything else of this owner.
        const { id: sessionId, base } = (await connection.serial(() => sessionIdOf(connection.db, request.address, true)).catch(fault(`cannot open session ${lease.key}`)))!;
        return { store: storeOf({ ...request, create: true }, { id: sessionId, base }, lease, true), extra: { isHeld: () => lease.isHeld(), leaseKey: lease.key } };
      },
      async unleased(request) {
        checkLeaseRequest(request.address, { ownerId: "check" });
        await ready();
        const session = await sessionIdOf(db, request.address, request.create).catch(fault("cannot open a session"));
        if (session === null) return null;
        // A holder of this session's lease (the session host) writes on the lease's connection.
        return storeOf(request, session, leases.heldHere(request.address), false);
      },
      async hostStore(conversationId, create) {
        await ready();
        if (typeof conversationId !== "string" || conversationId === "") throw new SteamharnessError("input_validation", "a session host record needs a conversationId", { field: "conversationId" });
        const { hostRecords } = tables;
        const record = create ? db.insert(hostRecords).values({ conversationId, createdAt: now() }).onConflictDoNothing().then(() => true) : db.select().from(hostRecords).where(eq(hostRecords.conversationId, conversationId)).then((rows) => rows.length > 0);
        // The kernel's host rows in tables keyed by conversation id (HOST-1 … HOST-5, HOST-7), shared by hosts on several machines.
        return (await record.catch(fault("cannot open the session host record"))) ? sqlSessionHostStore(postgresSqlDriver(db, tables, { now }), conversationId, postgresCall({ closed: false })) : null;
      },
      async forkLog(request) {
        await ready();
        await Promise.resolve(driverOn(db).transaction((tx) => forkSteps(tx, request, now()))).catch(fault("cannot fork the session log"));
      },
      async close() {
        // Sessions still open give their leases up; the lease connections and our pool end.
        await leases.close();
        await end();
      },
    },
  );
  return { ...backend, kind: "postgres", schema };
}
