/**
 * Session leases on PostgreSQL (SES-2 across processes and machines): one owner per session via a
 * session-level advisory lock held on a dedicated connection ({@link LeaseConnectionPool}).
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
import { sql } from "drizzle-orm";
import { SteamharnessError, wrapAdapterError } from "../../../../domain/errors.js";
import { canonicalJson } from "../../../../domain/stable-hash.js";
import type { SessionLease, SessionLeaseProvider } from "../../../../ports/session-lease.js";
import { createSessionLeaseProvider, type KernelSessionLease } from "../../kernel/session-lease.js";
import type { SessionAddress } from "../../../../ports/session-store.js";
import { driverFault } from "../postgres-database.js";
import type { LeaseConnection, LeaseConnectionPool } from "./lease-connections.js";

/** A lease of this provider, with the connection that holds it (session stores write through it). */
export interface PostgresSessionLease extends SessionLease {
  /** The advisory lock key (a signed 64-bit integer, as decimal text). */
  readonly lockKey: string;
  /** The connection holding the lock; its death ends the lease. */
  readonly connection: LeaseConnection;
  /** True when the lease ended because its connection died (not by `release()`). */
  lost(): boolean;
}

/** The lease provider of the PostgreSQL session backend, with what the backend needs besides the port. */
export interface PostgresSessionLeaseProvider extends SessionLeaseProvider {
  acquire(...args: Parameters<SessionLeaseProvider["acquire"]>): Promise<PostgresSessionLease | null>;
  /** The lease this provider holds on the session now, or `null`. */
  heldHere(address: SessionAddress): PostgresSessionLease | null;
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
 * The PostgreSQL lease provider: `acquire` takes a lease connection, tries the session's advisory
 * lock once (never waits) and keeps the connection for the lease; a refused try gives the
 * connection back. Within the process, a session held or being acquired here is refused without
 * asking the server. The lease ends on `release()` (unlock, connection back to the idle set) or
 * when its connection dies — the server drops a dead session's locks at once (process killed:
 * TCP closed) or after the keepalive bound (machine vanished); `isHeld()` turns false as soon as
 * the client sees its connection error or end.
 *
 * @example
 * const leases = createPostgresSessionLeaseProvider({ schema: "steamharness", connections });
 * const lease = await leases.acquire({ projectId: "p", conversationId: "c", sessionKey: "agent" }, { ownerId: "host-1" });
 */
export function createPostgresSessionLeaseProvider(options: { schema: string; connections: LeaseConnectionPool; isClosed?: () => boolean }): PostgresSessionLeaseProvider {
  const { schema, connections } = options;
  const keyOf = (address: SessionAddress) => `postgres:${schema}:advisory:${postgresSessionLockKey(schema, address).key}`;
  const leases = createSessionLeaseProvider<{ lockKey: string; connection: LeaseConnection }>({
    keyOf(target) {
      if ("databasePath" in target) throw new SteamharnessError("input_validation", "the PostgreSQL session backend keeps sessions by address: databasePath needs a SQLite backend", { field: "databasePath" });
      return keyOf(target);
    },
    async take(key) {
      if (options.isClosed?.()) throw new SteamharnessError("unavailable", "the session backend is closed");
      const lockKey = key.slice(key.lastIndexOf(":") + 1);
      let connection: LeaseConnection | undefined;
      try {
        connection = await connections.take();
        const taken = connection;
        const { rows } = await taken.serial(() => taken.db.execute<{ locked: boolean }>(sql`select pg_try_advisory_lock(${lockKey}::bigint) as locked`));
        if (rows[0]?.locked === true) return { lockKey, connection: taken };
        await connections.give(taken, true);
        return null;
      } catch (error) {
        if (error instanceof SteamharnessError) throw error;
        // A failed try holds nothing we could report: the connection (and any lock on it) is dropped.
        if (connection) await connections.give(connection, false);
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
      await connections.give(connection, healthy);
    },
    holds: ({ connection }) => !connection.lost(),
  });
  const postgresLease = (lease: KernelSessionLease<{ lockKey: string; connection: LeaseConnection }> | null): PostgresSessionLease | null =>
    lease && Object.assign(lease, { lockKey: lease.lock.lockKey, connection: lease.lock.connection });
  return {
    acquire: async (target, acquireOptions) => postgresLease(await leases.acquire(target, acquireOptions)),
    heldHere: (address) => postgresLease(leases.heldHere(keyOf(address))),
  };
}
