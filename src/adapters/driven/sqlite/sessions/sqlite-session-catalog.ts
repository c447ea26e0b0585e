import { readdirSync, statSync, type Dirent } from "node:fs";
import { join, resolve } from "node:path";
import { SteamharnessError } from "../../../../domain/errors.js";
import type { SessionCatalog, SessionCatalogEntry } from "../../../../ports/session-catalog.js";
import type { SessionAddress } from "../../../../ports/session-store.js";
import { openSqlite } from "../shared/sqlite-connection.js";
import { SESSION_FILE_EXTENSION } from "./session-file-names.js";
import { drizzleBetterSqlite3, drizzleOrm } from "../shared/drizzle-modules.js";
import { sessionTables } from "./session-schema.js";

/** Options of {@link createSqliteSessionCatalog}. */
export interface SqliteSessionCatalogOptions {
  /** The session folder of a SQLite session backend (`<agentStoreDir>/<conversation>/<session>.sqlite`). */
  agentStoreDir: string;
}

/** What the catalog reads from a session file's own rows. */
interface SessionFileFacts {
  address: SessionAddress;
  /** The time of the session's last event (`session_events.at` of the meta row's `last_seq`), else its creation time. */
  updatedAt: number;
}

/**
 * Reads a session file's address and last write time from its rows (read-only; a file without a
 * meta row is skipped). The time is the store's own (VIEW-8): a file's mtime says when someone
 * last opened it (a reader creates the `-wal` file), not when the session changed.
 */
function readFacts(path: string): SessionFileFacts | null {
  let client;
  try {
    client = openSqlite(path, { readonly: true, fileMustExist: true, timeout: 2000 });
  } catch {
    return null;
  }
  try {
    const { sessionMeta, sessionEvents } = sessionTables();
    const { eq } = drizzleOrm();
    const db = drizzleBetterSqlite3().drizzle({ client });
    const row = db
      .select({ projectId: sessionMeta.projectId, conversationId: sessionMeta.conversationId, sessionKey: sessionMeta.sessionKey, lastSeq: sessionMeta.lastSeq, createdAt: sessionMeta.createdAt })
      .from(sessionMeta)
      .get();
    if (!row) return null;
    const last = row.lastSeq > 0 ? db.select({ at: sessionEvents.at }).from(sessionEvents).where(eq(sessionEvents.seq, row.lastSeq)).get() : undefined;
    return {
      address: { projectId: row.projectId, sessionKey: row.sessionKey, ...(row.conversationId === null ? {} : { conversationId: row.conversationId }) },
      updatedAt: last?.at ?? row.createdAt,
    };
  } catch {
    return null;
  } finally {
    client.close();
  }
}

/**
 * A cheap change mark of a session file (sizes and mtimes of the file and its WAL): the rows are
 * read again only when it moves. It never becomes the time shown.
 */
function changeMark(path: string): string | null {
  try {
    const main = statSync(path);
    let wal = "";
    try {
      const stat = statSync(`${path}-wal`);
      wal = `${stat.size}:${stat.mtimeMs}`;
    } catch {
      // no WAL file
    }
    return `${main.size}:${main.mtimeMs}|${wal}`;
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
 * their session files, and reads each file's address and last event time from its rows (VIEW-8:
 * the store's time, not the file's), again only when the file changed since. A listing costs two
 * directory reads per conversation and two `stat`s per session; no log is scanned.
 *
 * @example
 * const catalog = createSqliteSessionCatalog({ agentStoreDir: ".steamharness/agents" });
 * const newest = (await catalog.list())[0]?.address;
 */
export function createSqliteSessionCatalog(options: SqliteSessionCatalogOptions): SessionCatalog {
  const root = resolve(options.agentStoreDir);
  const facts = new Map<string, SessionFileFacts & { mark: string }>();
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
          const mark = changeMark(path);
          if (mark === null) continue;
          let known = facts.get(path);
          if (known === undefined || known.mark !== mark) {
            const read = readFacts(path);
            // A file being created has no meta row yet: ask again next time instead of caching.
            if (read === null) continue;
            facts.set(path, (known = { mark, ...read }));
          }
          if (filter.projectId !== undefined && known.address.projectId !== filter.projectId) continue;
          entries.push({ address: structuredClone(known.address), updatedAt: known.updatedAt });
        }
      }
      return entries.sort((a, b) => b.updatedAt - a.updatedAt);
    },
    async close() {
      closed = true;
      facts.clear();
    },
  };
}
