import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type Database from "better-sqlite3";
import { wrapAdapterError } from "../../../../domain/errors.js";
import type { SessionLeaseProvider } from "../../../../ports/session-lease.js";
import { createSessionLeaseProvider } from "../../kernel/session-lease.js";
import { openSqlite } from "../shared/sqlite-connection.js";
import { resolveSessionDatabasePath, sessionLockPath } from "./session-database-path.js";

/** Options of {@link createSqliteSessionLeaseProvider}. */
export interface SqliteSessionLeaseProviderOptions {
  /** Where session files live (`storage.agentStoreDir`); needed to lease a session by address. */
  agentStoreDir?: string;
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "SQLITE_BUSY" || code === "SQLITE_LOCKED";
}

/**
 * Opens the lock file of a session: an empty SQLite database whose exclusive lock is the lease
 * (see {@link holdExclusive}). The connection never waits for a lock.
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

/** Attempts of one {@link holdExclusive} before it reports the lock busy. */
const LOCK_ATTEMPTS = 4;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Takes the OS file lock of an open lock-file connection, or resolves `false` when another
 * connection holds it.
 *
 * How (SES-2): the connection enters `BEGIN EXCLUSIVE` and stays there for the lease's lifetime;
 * `ROLLBACK` (or closing it) ends the lease. SQLite's exclusive lock is an OS advisory lock, so
 * the kernel drops it when the process ends, even on SIGKILL (no heartbeat, pid or expiry), and
 * SQLite also refuses it to a second connection of the same process. The transaction is started
 * with raw SQL because drizzle transactions are callback-scoped and cannot stay open.
 * Nothing may open the lock file outside SQLite in the holding process: closing any descriptor of
 * a file drops that process's POSIX locks on it.
 *
 * A refused attempt is retried a few times after 1–3 ms (jittered). Why: taking an EXCLUSIVE
 * lock passes through SHARED, so two processes that try at the same instant can refuse each
 * other and both fail although nobody holds the lease; a held lease refuses every retry, a
 * collision clears within microseconds. Retries are asynchronous so the event loop never blocks.
 *
 * @example
 * const lock = openLockFile(sessionLockPath(path));
 * if (await holdExclusive(lock)) { try { … } finally { lock.exec("ROLLBACK"); } }
 */
export async function holdExclusive(client: Database.Database): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    if (tryExclusive(client)) return true;
    if (attempt >= LOCK_ATTEMPTS) return false;
    await pause(1 + Math.random() * 2);
  }
}

/**
 * One attempt of {@link holdExclusive}, without waiting: `true` when the lock is now held.
 *
 * @example
 * if (!tryExclusive(lock) && !(await holdExclusive(lock))) throw sessionBusy(lockPath);
 */
export function tryExclusive(client: Database.Database): boolean {
  try {
    if (!journalInMemory.has(client)) {
      // The lock file is never written, so its rollback journal can live in memory: with the
      // default on-disk journal every BEGIN EXCLUSIVE creates, writes and deletes a `-journal`
      // file (most of a lease's cost). The locks are the same in every journal mode, so lock
      // connections of either kind exclude each other. Set on the first attempt rather than at
      // open because it needs a shared lock: refused while another connection holds the lease.
      client.pragma("journal_mode = MEMORY");
      journalInMemory.add(client);
    }
    client.exec("BEGIN EXCLUSIVE");
    return true;
  } catch (error) {
    // A refused BEGIN leaves no transaction open; make sure before the next attempt.
    if (client.inTransaction) client.exec("ROLLBACK");
    if (!isBusy(error)) throw error;
    return false;
  }
}

/**
 * The SQLite session lease provider (SES-2): one owner per session file across processes, via a
 * `<session file>.lock` file next to the session database, under the kernel's lease rules.
 * Acquire never waits for a holder (a busy session is reported after at most ~10 ms of collision
 * retries); a lease ends on `release()` or when its process exits or is killed. Leases by address
 * need `agentStoreDir`; leases by `databasePath` do not.
 *
 * @example
 * const leases = createSqliteSessionLeaseProvider({ agentStoreDir });
 * const lease = await leases.acquire({ projectId, conversationId, sessionKey: "agent" }, { ownerId: runId, onBusy: "throw" });
 * try { … } finally { await lease?.release(); }
 */
export function createSqliteSessionLeaseProvider(options: SqliteSessionLeaseProviderOptions = {}): SessionLeaseProvider {
  return createSessionLeaseProvider<Database.Database>({
    keyOf: (target) => sessionLockPath(resolveSessionDatabasePath("databasePath" in target ? { sessionKey: "", databasePath: target.databasePath } : { ...target, agentStoreDir: options.agentStoreDir })),
    async take(key) {
      let client: Database.Database | undefined;
      try {
        client = openLockFile(key);
        if (await holdExclusive(client)) return client;
        client.close();
        return null;
      } catch (error) {
        client?.close();
        throw wrapAdapterError("sqlite", `cannot take the session lock ${key}`, error);
      }
    },
    async give(client, key) {
      try {
        client.exec("ROLLBACK");
      } catch (error) {
        throw wrapAdapterError("sqlite", `releasing the session lock ${key} failed`, error);
      } finally {
        // Closing drops the OS lock even when the rollback failed.
        client.close();
      }
    },
    holds: (client) => client.open && client.inTransaction,
  });
}
