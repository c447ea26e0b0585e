import { readdirSync, statSync, type Dirent } from "node:fs";
import { join, resolve } from "node:path";
import { SteamharnessError } from "../../../domain/errors.js";
import type { SessionCatalog, SessionCatalogEntry } from "../../../ports/session-catalog.js";
import type { SessionAddress } from "../../../ports/session-store.js";
import { openSqlite } from "../shared/sqlite-connection.js";
import { SESSION_FILE_EXTENSION } from "./session-file-names.js";
import { drizzleBetterSqlite3 } from "../shared/drizzle-modules.js";
import { sessionTables } from "./session-schema.js";

/** Options of {@link createSqliteSessionCatalog}. */
export interface SqliteSessionCatalogOptions {
  /** The session folder of a SQLite session backend (`<agentStoreDir>/<conversation>/<session>.sqlite`). */
  agentStoreDir: string;
}

/** Reads a session file's address from its meta row (read-only; a file without one is skipped). */
function readAddress(path: string): SessionAddress | null {
  let client;
  try {
    client = openSqlite(path, { readonly: true, fileMustExist: true, timeout: 2000 });
  } catch {
    return null;
  }
  try {
    const { sessionMeta } = sessionTables();
    const row = drizzleBetterSqlite3()
      .drizzle({ client })
      .select({ projectId: sessionMeta.projectId, conversationId: sessionMeta.conversationId, sessionKey: sessionMeta.sessionKey })
      .from(sessionMeta)
      .get();
    if (!row) return null;
    return { projectId: row.projectId, sessionKey: row.sessionKey, ...(row.conversationId === null ? {} : { conversationId: row.conversationId }) };
  } catch {
    return null;
  } finally {
    client.close();
  }
}

/** The newest write time of a session file, its WAL included (writes land there first). */
function writtenAt(path: string): number | null {
  try {
    const main = statSync(path).mtimeMs;
    let wal = 0;
    try {
      wal = statSync(`${path}-wal`).mtimeMs;
    } catch {
      // no WAL file: the database file's time is the last write
    }
    return Math.max(main, wal);
  } catch {
    return null;
  }
}

const folders = (path: string): Dirent[] => {
  try {
    return readdirSync(path, { withFileTypes: true });
  } catch {
    return [];
  }
};

/**
 * The session catalog of a SQLite session backend (VIEW-1): lists the conversation folders and
 * their session files, and reads each file's address from its meta row once (a file's address
 * never changes, so it is cached by path). A listing costs two directory reads per conversation
 * and one `stat` per session; no log is read.
 *
 * @example
 * const catalog = createSqliteSessionCatalog({ agentStoreDir: ".steamharness/agents" });
 * const newest = (await catalog.list())[0]?.address;
 */
export function createSqliteSessionCatalog(options: SqliteSessionCatalogOptions): SessionCatalog {
  const root = resolve(options.agentStoreDir);
  const addresses = new Map<string, SessionAddress | null>();
  let closed = false;
  return {
    async list(filter = {}) {
      if (closed) throw new SteamharnessError("unavailable", "[steamharness] [viewer] the session catalog is closed");
      const entries: SessionCatalogEntry[] = [];
      for (const folder of folders(root)) {
        if (!folder.isDirectory()) continue;
        for (const file of folders(join(root, folder.name))) {
          if (!file.isFile() || !file.name.endsWith(SESSION_FILE_EXTENSION)) continue;
          const path = join(root, folder.name, file.name);
          let address = addresses.get(path);
          if (address === undefined) {
            address = readAddress(path);
            // A file being created has no meta row yet: ask again next time instead of caching.
            if (address !== null) addresses.set(path, address);
          }
          if (address === null) continue;
          if (filter.projectId !== undefined && address.projectId !== filter.projectId) continue;
          const updatedAt = writtenAt(path);
          if (updatedAt !== null) entries.push({ address: structuredClone(address), updatedAt });
        }
      }
      return entries.sort((a, b) => b.updatedAt - a.updatedAt);
    },
    async close() {
      closed = true;
      addresses.clear();
    },
  };
}
