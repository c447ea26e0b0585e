import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type Database from "better-sqlite3";
import { wrapAdapterError } from "../../../../domain/errors.js";
import type { SessionLeaseProvider } from "../../../../ports/session-lease.js";
import { createSessionLeaseProvider } from "../../kernel/session-lease.js";
import { fileIdOf, openSqlite } from "../shared/sqlite-connection.js";
import { resolveSessionDatabasePath, sessionLockPath } from "./session-database-path.js";

/** Options of {@link createSqliteSessionLeaseProvider}. */
export interface SqliteSessionLeaseProviderOptions {
  /** Where session files live (`storage.agentStoreDir`); needed to lease a session by address. */
  agentStoreDir?: string;
  /** Released lock-file connections kept open for the next lease of their session (default 0). */
  maxIdle?: number;
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "SQLITE_BUSY" || code === "SQLITE_LOCKED";
}

/**
 * Opens the lock file of a session: an empty SQLite database whose exclusive lock is the lease
 * (see {@link tryLock}). The connection never waits for a lock.
 *
 * @example
 * const lock = openLockFile("/data/agents/c/agent-1.sqlite.lock");
 */
export function openLockFile(lockPath: string): Database.Database {
  mkdirSync(dirname(lockPath), { recursive: true });
  return openSqlite(lockPath, { timeout: 0 });
}

/** Lock connections whose rollback journal is already kept in memory. */
const journalInMemory = new WeakSet<Database.Database>();

/**
 * Takes the OS file lock of an open lock-file connection without waiting: `true` when it is now
 * held, `false` when another connection holds it.
 *
 * How (SES-2): the connection enters `BEGIN IMMEDIATE` and stays there for the lease's lifetime;
 * `ROLLBACK` (or closing it) ends the lease. The transaction holds SQLite's RESERVED lock, an OS
 * advisory lock, so the kernel drops it when the process ends, even on SIGKILL (no heartbeat, pid
 * or expiry), and SQLite also refuses it to a second connection of the same process.
 * RESERVED rather than EXCLUSIVE: a RESERVED lock is one step from SHARED, so a refusal always
 * means someone holds it. Climbing to EXCLUSIVE passes through PENDING and waits for every SHARED
 * lock to clear, so two processes trying at the same instant could refuse each other and both fail
 * although nobody held the lease (seen under CI load even with retries). An older steamharness
 * that takes the lock with `BEGIN EXCLUSIVE` is still excluded both ways.
 * The transaction is started with raw SQL because drizzle transactions are callback-scoped and
 * cannot stay open. Nothing may open the lock file outside SQLite in the holding process: closing
 * any descriptor of a file drops that process's POSIX locks on it.
 *
 * @example
 * const lock = openLockFile(sessionLockPath(path));
 * if (tryLock(lock)) { try { … } finally { lock.exec("ROLLBACK"); } }
 */
export function tryLock(client: Database.Database): boolean {
  try {
    if (!journalInMemory.has(client)) {
      // The lock file is never written, so its rollback journal can live in memory: with the
      // default on-disk journal every lease would create, write and delete a `-journal` file
      // (most of a lease's cost). The locks are the same in every journal mode, so lock
      // connections of either kind exclude each other. Set on the first attempt rather than at
      // open because it needs a shared lock: refused while an older EXCLUSIVE holder has it.
      client.pragma("journal_mode = MEMORY");
      journalInMemory.add(client);
    }
    client.exec("BEGIN IMMEDIATE");
    return true;
  } catch (error) {
    // A refused BEGIN leaves no transaction open; make sure.
    if (client.inTransaction) client.exec("ROLLBACK");
    if (!isBusy(error)) throw error;
    return false;
  }
}

/** A held or idle lock-file connection, with the lock file's identity when it was opened. */
interface Lock {
  client: Database.Database;
  fileId: string;
}

/**
 * The SQLite session lease provider (SES-2): one owner per session file across processes, via a
 * `<session file>.lock` file next to the session database, under the kernel's lease rules.
 * Acquire never waits for a holder (a busy session is reported at once); a lease ends on `release()` or when its process exits or is killed. Leases by address
 * need `agentStoreDir`; leases by `databasePath` do not. Up to `maxIdle` released lock-file
 * connections stay open for the next lease of their session, as the session backend keeps them (a
 * lock file replaced or removed since is opened again); `close()` releases the leases held here and
 * closes those kept, and every one released later.
 *
 * @example
 * const leases = createSqliteSessionLeaseProvider({ agentStoreDir });
 * const lease = await leases.acquire({ projectId, conversationId, sessionKey: "agent" }, { ownerId: runId, onBusy: "throw" });
 * try { … } finally { await lease?.release(); }
 */
export function createSqliteSessionLeaseProvider(options: SqliteSessionLeaseProviderOptions = {}): SessionLeaseProvider & { close(): Promise<void> } {
  const maxIdle = options.maxIdle ?? 0;
  /** Least recently released first. */
  const idle = new Map<string, Lock>();
  let closed = false;
  const keep = (key: string, lock: Lock) => {
    idle.set(key, lock);
    for (const [oldest, { client }] of idle) {
      if (idle.size <= (closed ? 0 : maxIdle)) break;
      idle.delete(oldest);
      client.close();
    }
  };
  const leases = createSessionLeaseProvider<Lock>({
    keyOf: (target) => sessionLockPath(resolveSessionDatabasePath("databasePath" in target ? { sessionKey: "", databasePath: target.databasePath } : { ...target, agentStoreDir: options.agentStoreDir })),
    async take(key) {
      let lock = idle.get(key);
      idle.delete(key);
      if (lock && lock.fileId !== fileIdOf(key)) lock.client.close();
      try {
        if (!lock?.client.open) lock = { client: openLockFile(key), fileId: fileIdOf(key) ?? "" };
        if (tryLock(lock.client)) return lock;
        keep(key, lock);
        return null;
      } catch (error) {
        lock?.client.close();
        throw wrapAdapterError("sqlite", `cannot take the session lock ${key}`, error);
      }
    },
    async give(lock, key) {
      try {
        lock.client.exec("ROLLBACK");
      } catch (error) {
        // Closing drops the OS lock even when the rollback failed.
        lock.client.close();
        throw wrapAdapterError("sqlite", `releasing the session lock ${key} failed`, error);
      }
      keep(key, lock);
    },
    holds: ({ client }) => client.open && client.inTransaction,
  });
  return {
    ...leases,
    async close() {
      closed = true;
      await leases.releaseAll();
      for (const { client } of idle.values()) client.close();
      idle.clear();
    },
  };
}
