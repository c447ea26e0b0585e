import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type Database from "better-sqlite3";
import { wrapAdapterError } from "../../domain/errors.js";
import type { SessionLease, SessionLeaseProvider } from "../../ports/session-lease.js";
import { checkLeaseRequest, sessionBusy } from "../memory/memory-session-lease.js";
import { openSqlite } from "./sqlite-connection.js";
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
 * Takes the OS file lock of `lockPath`, or returns `null` when another connection holds it.
 *
 * How (SES-2): the lock file is a SQLite database in rollback-journal mode, held inside
 * `BEGIN EXCLUSIVE` for the lease's lifetime. SQLite's exclusive lock is an OS advisory lock, so
 * the kernel drops it when the process ends, even on SIGKILL (no heartbeat, pid or expiry), and
 * SQLite also refuses it to a second connection of the same process. The transaction is started
 * with raw SQL because drizzle transactions are callback-scoped and cannot stay open.
 * Nothing may open the lock file outside SQLite in the holding process: closing any descriptor of
 * a file drops that process's POSIX locks on it.
 */
function lockFile(lockPath: string): Database.Database | null {
  mkdirSync(dirname(lockPath), { recursive: true });
  const client = openSqlite(lockPath, { timeout: 0 });
  try {
    client.exec("BEGIN EXCLUSIVE");
    return client;
  } catch (error) {
    client.close();
    if (isBusy(error)) return null;
    throw error;
  }
}

/** Attempts of one `acquire` before it reports the session busy; see {@link takeLock}. */
const LOCK_ATTEMPTS = 4;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Takes the lock, retrying a refused attempt a few times after 1–3 ms (jittered). Why: taking an
 * EXCLUSIVE lock passes through SHARED, so two processes that try at the same instant can refuse
 * each other and both fail although nobody holds the lease; a held lease refuses every retry, a
 * collision clears within microseconds. Retries are asynchronous so the event loop never blocks.
 */
async function takeLock(lockPath: string): Promise<Database.Database | null> {
  for (let attempt = 1; ; attempt++) {
    const client = lockFile(lockPath);
    if (client !== null || attempt >= LOCK_ATTEMPTS) return client;
    await pause(1 + Math.random() * 2);
  }
}

/**
 * The SQLite session lease provider (SES-2): one owner per session file across processes, via a
 * `<session file>.lock` file next to the session database. Acquire never waits for a holder (a
 * busy session is reported after at most ~10 ms of collision retries); a lease ends on
 * `release()` or when its process exits or is killed. Leases by address need `agentStoreDir`;
 * leases by `databasePath` do not.
 *
 * @example
 * const leases = createSqliteSessionLeaseProvider({ agentStoreDir });
 * const lease = await leases.acquire({ projectId, conversationId, sessionKey: "agent" }, { ownerId: runId, onBusy: "throw" });
 * try { … } finally { await lease?.release(); }
 */
export function createSqliteSessionLeaseProvider(options: SqliteSessionLeaseProviderOptions = {}): SessionLeaseProvider {
  return {
    async acquire(target, acquireOptions) {
      const databasePath = checkLeaseRequest(target, acquireOptions)
        ? resolveSessionDatabasePath({ sessionKey: "", databasePath: target.databasePath })
        : resolveSessionDatabasePath({ ...target, agentStoreDir: options.agentStoreDir });
      const key = sessionLockPath(databasePath);
      let client: Database.Database | null;
      try {
        client = await takeLock(key);
      } catch (error) {
        throw wrapAdapterError("sqlite", `cannot take the session lock ${key}`, error);
      }
      if (client === null) {
        if (acquireOptions.onBusy === "throw") throw sessionBusy(key);
        return null;
      }
      const connection = client;
      let released = false;
      const lease: SessionLease = {
        ownerId: acquireOptions.ownerId,
        key,
        isHeld: () => !released && connection.open && connection.inTransaction,
        async release() {
          if (released) return;
          released = true;
          try {
            connection.exec("ROLLBACK");
          } catch (error) {
            throw wrapAdapterError("sqlite", `releasing the session lock ${key} failed`, error);
          } finally {
            // Closing drops the OS lock even when the rollback failed.
            connection.close();
          }
        },
      };
      return lease;
    },
  };
}
