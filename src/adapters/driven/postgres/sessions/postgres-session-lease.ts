/**
 * Session leases on PostgreSQL (SES-2 across processes and machines): one owner per session via a
 * session-level advisory lock, which lives exactly as long as the server session that took it, so
 * every held lease owns one connection of a pool of its own, apart from the ordinary pool: a held
 * session never takes a pool connection from queries, and the pool's idle reaping never ends a
 * lease. The budget is explicit: at most `maxConnections` lease connections exist at once (held,
 * idle or connecting); past it `acquire` rejects with `storage_failure` instead of waiting. A few
 * released connections are kept idle for the next lease (their prepared statements with them).
 *
 * Lock key: one 64-bit advisory key per session, the first 8 bytes of
 * SHA-256("steamharness session lease" ‖ schema ‖ canonical address), taken with
 * `pg_try_advisory_lock(bigint)`. Why a hash and not the session's numeric id: a lease is taken
 * before (and without) the session's row — a lease never creates a session — and the hash needs
 * no round trip. Including the schema keeps backends on different schemas of one database apart.
 * Two sessions share a key with probability 2⁻⁶⁴ per pair; a collision could only refuse a free
 * session (never grant a held one). Keys show in `pg_locks` as `locktype = 'advisory'`,
 * `objsubid = 1`, `classid`/`objid` the high/low 32 bits ({@link postgresSessionLockKey}).
 */
import { createHash } from "node:crypto";
import pg from "pg";
import { sql } from "drizzle-orm";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import { SteamharnessError, wrapAdapterError } from "../../../../domain/errors.js";
import { canonicalJson } from "../../../../domain/stable-hash.js";
import { createSessionLeaseProvider, type KernelSessionLeaseProvider } from "../../kernel/session-lease.js";
import type { SessionAddress } from "../../../../ports/session-store.js";
import { driverFault } from "../postgres-database.js";
import { boundedPoolConfig, DEFAULT_STATEMENT_TIMEOUT_MS } from "../postgres-deadlines.js";

/** TCP keepalive of lease connections, which bounds how long a vanished machine keeps its leases. */
export interface PostgresLeaseKeepAlive {
  /** Idle seconds before the first probe (default 10). */
  idleSeconds?: number;
  /** Seconds between probes (default 5). */
  intervalSeconds?: number;
  /** Unanswered probes before the connection is dropped (default 3). */
  count?: number;
}

/** One lease connection: its client, a drizzle handle on it, and whether it is still usable. */
interface LeaseConnection {
  readonly client: pg.PoolClient;
  readonly db: NodePgDatabase;
  /** True once the connection errored or ended: the server has dropped (or will drop) its locks. */
  lost(): boolean;
  /** Runs `work` after every earlier piece of work on this connection (a transaction never interleaves). */
  serial<T>(work: () => Promise<T>): Promise<T>;
}

/** The lock of a PostgreSQL lease: the advisory key (a signed 64-bit integer, as decimal text) and the connection holding it, whose death ends the lease. */
export type PostgresLeaseLock = { lockKey: string; connection: LeaseConnection };

/** What the lease connections take: the backend's lease options (see PostgresSessionBackendOptions), with `leaseConnection` given. */
type LeaseConnectionOptions = { leaseConnection: pg.ClientConfig; maxLeaseConnections?: number; maxIdleLeaseConnections?: number; keepAlive?: PostgresLeaseKeepAlive; statementTimeoutMs?: number };

/** The keepalive defaults: a vanished peer is noticed after at most 10 + 5 × 3 = 25 s. */
const DEFAULT_LEASE_KEEPALIVE: Required<PostgresLeaseKeepAlive> = { idleSeconds: 10, intervalSeconds: 5, count: 3 };

/**
 * Seconds after which the server drops the leases of a machine that vanished without closing its
 * connections (power loss, network cut): the server's keepalive idle time plus its probes.
 *
 * @example
 * leaseTakeoverBoundSeconds({ idleSeconds: 10, intervalSeconds: 5, count: 3 }) // 25
 */
export function leaseTakeoverBoundSeconds(keepAlive: PostgresLeaseKeepAlive = {}): number {
  const k = { ...DEFAULT_LEASE_KEEPALIVE, ...keepAlive };
  return k.idleSeconds + k.intervalSeconds * k.count;
}


/**
 * The session's advisory lock key in `schema`: a signed 64-bit integer as decimal text, and the
 * `classid`/`objid` under which `pg_locks` shows it.
 *
 * @example
 * const { key, classid, objid } = postgresSessionLockKey("steamharness", { projectId: "p", conversationId: "c", sessionKey: "agent" });
 * // select pid from pg_locks where locktype = 'advisory' and objsubid = 1 and classid = $1 and objid = $2
 */
export function postgresSessionLockKey(schema: string, address: SessionAddress): { key: string; classid: number; objid: number } {
  const canonical = canonicalJson({ projectId: address.projectId, conversationId: address.conversationId ?? null, sessionKey: address.sessionKey });
  const digest = createHash("sha256").update(`steamharness session lease\0${schema}\0${canonical}`).digest();
  return { key: digest.readBigInt64BE(0).toString(), classid: digest.readUInt32BE(0), objid: digest.readUInt32BE(4) };
}

/**
 * The lease connections: pg's pool, never waited on (`take` refuses past the budget). Each
 * connection sets TCP keepalive on both ends: the client's socket (`keepAlive`, so a holder learns
 * it lost its server) and the server's (`tcp_keepalives_*` as startup options, so the server ends
 * a backend whose machine vanished and thereby drops its advisory locks).
 */
function leaseConnections(options: LeaseConnectionOptions) {
  const [max, maxIdle, connection] = [options.maxLeaseConnections ?? 32, options.maxIdleLeaseConnections ?? 4, options.leaseConnection];
  const keepAlive = { ...DEFAULT_LEASE_KEEPALIVE, ...options.keepAlive };
  const serverKeepAlive = `-c tcp_keepalives_idle=${keepAlive.idleSeconds} -c tcp_keepalives_interval=${keepAlive.intervalSeconds} -c tcp_keepalives_count=${keepAlive.count}`;
  const bounded = boundedPoolConfig(options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS);
  const pool = new pg.Pool({
    ...bounded,
    ...connection,
    // A host pool's own options (copied as the connection's) never shape this pool: idle connections stay until `close()`.
    ...{ Client: bounded.Client, max, min: 0, idleTimeoutMillis: 0, maxUses: Infinity, maxLifetimeSeconds: 0, allowExitOnIdle: false, onConnect: undefined, verify: undefined },
    keepAlive: true,
    keepAliveInitialDelayMillis: keepAlive.idleSeconds * 1000,
    application_name: connection.application_name ?? "steamharness-session-lease",
    options: [connection.options, serverKeepAlive].filter(Boolean).join(" "),
  });
  // An idle connection whose server session ends: the pool drops it (without a listener the error would crash the process).
  pool.on("error", () => {});
  const made = new WeakMap<pg.PoolClient, LeaseConnection>();
  pool.on("connect", (client) => {
    let [lost, tail] = [false, Promise.resolve() as Promise<unknown>];
    client.on("error", () => void (lost = true));
    client.on("end", () => void (lost = true));
    made.set(client, {
      client,
      db: drizzle({ client }),
      lost: () => lost,
      serial<T>(work: () => Promise<T>): Promise<T> {
        const next = tail.then(work, work);
        tail = next.catch(() => undefined);
        return next;
      },
    });
  });
  let closed = false;
  return {
    /** A live connection (idle one or new). Rejects with `storage_failure` past the budget or when connecting fails. */
    async take(): Promise<LeaseConnection> {
      if (closed) throw new SteamharnessError("unavailable", "[steamharness] [postgres] the session backend is closed");
      // Held, connecting or asked for: the pool never waits while fewer than `max`.
      if (pool.totalCount - pool.idleCount + pool.waitingCount >= max) {
        throw new SteamharnessError("storage_failure", `[steamharness] [postgres] all ${max} session lease connections are in use (maxLeaseConnections): release a session first`, { data: { maxConnections: max } });
      }
      for (;;) {
        const connection = made.get(await pool.connect())!;
        if (!connection.lost()) return connection;
        connection.client.release(true);
      }
    },
    /** Gives a connection back: kept idle when healthy and there is room, else ended. */
    give(connection: LeaseConnection, healthy: boolean): void {
      connection.client.release(!healthy || connection.lost() || pool.idleCount >= maxIdle);
    },
    /** Ends idle connections and refuses new ones; held ones end when their leases are released. */
    close(): void {
      if (!closed) void pool.end();
      closed = true;
    },
  };
}

/**
 * The PostgreSQL lease provider: `acquire` takes a lease connection, tries the session's advisory
 * lock once (never waits) and keeps the connection for the lease; a refused try gives the
 * connection back. Within the process, a session held or being acquired here is refused without
 * asking the server. The lease ends on `release()` (unlock, connection back to the idle set) or
 * when its connection dies — the server drops a dead session's locks at once (process killed:
 * TCP closed) or after the keepalive bound (machine vanished); `isHeld()` turns false as soon as
 * the client sees its connection error or end. `close()` releases every lease held here and ends the connections.
 *
 * @example
 * const leases = createPostgresSessionLeaseProvider({ schema: "steamharness", leaseConnection: { connectionString } });
 * const lease = await leases.acquire({ projectId: "p", conversationId: "c", sessionKey: "agent" }, { ownerId: "host-1" });
 */
export function createPostgresSessionLeaseProvider(options: LeaseConnectionOptions & { schema: string }): KernelSessionLeaseProvider<PostgresLeaseLock> & { close(): Promise<void> } {
  const { schema } = options;
  const connections = leaseConnections(options);
  const leases = createSessionLeaseProvider<PostgresLeaseLock>({
    keyOf(target) {
      if ("databasePath" in target) throw new SteamharnessError("input_validation", "the PostgreSQL session backend keeps sessions by address: databasePath needs a SQLite backend", { field: "databasePath" });
      return `postgres:${schema}:advisory:${postgresSessionLockKey(schema, target).key}`;
    },
    async take(key) {
      const lockKey = key.slice(key.lastIndexOf(":") + 1);
      let connection: LeaseConnection | undefined;
      try {
        connection = await connections.take();
        const taken = connection;
        const { rows } = await taken.serial(() => taken.db.execute<{ locked: boolean }>(sql`select pg_try_advisory_lock(${lockKey}::bigint) as locked`));
        if (rows[0]?.locked === true) return { lockKey, connection: taken };
        connections.give(taken, true);
        return null;
      } catch (error) {
        if (error instanceof SteamharnessError) throw error;
        // A failed try holds nothing we could report: the connection (and any lock on it) is dropped.
        if (connection) connections.give(connection, false);
        throw wrapAdapterError("postgres", `cannot take the session lease ${lockKey}`, driverFault(error));
      }
    },
    async give({ lockKey, connection }) {
      if (connection.lost()) return connections.give(connection, false);
      let healthy = true;
      try {
        await connection.serial(() => connection.db.execute(sql`select pg_advisory_unlock(${lockKey}::bigint)`));
      } catch {
        // Ending the connection drops the lock as surely as the unlock would.
        healthy = false;
      }
      connections.give(connection, healthy);
    },
    holds: ({ connection }) => !connection.lost(),
  });
  return {
    ...leases,
    // New leases are refused; the held ones are given up, their connections ended, and the idle ones too.
    close: () => (connections.close(), leases.releaseAll()),
  };
}
