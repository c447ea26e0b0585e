import { readdirSync, statSync, type Dirent } from "node:fs";
import { join, resolve } from "node:path";
import type { SessionCatalog } from "../../../../ports/session-catalog.js";
import { createSessionCatalog, type SessionCatalogRow } from "../../kernel/session-catalog.js";
import { directCall } from "../../kernel/store-call.js";
import { openSqlite } from "../shared/sqlite-connection.js";
import { SESSION_FILE_EXTENSION } from "./session-file-names.js";
import { drizzleBetterSqlite3, drizzleOrm } from "../shared/drizzle-modules.js";
import { sessionTables } from "./session-schema.js";

/** Options of {@link createSqliteSessionCatalog}. */
export interface SqliteSessionCatalogOptions {
  /** The session folder of a SQLite session backend (`<agentStoreDir>/<conversation>/<session>.sqlite`). */
  agentStoreDir: string;
}

/**
 * Reads a session file's address and last write time from its rows (read-only; a file without a
 * meta row is skipped). The time is the store's own (VIEW-8): a file's mtime says when someone
 * last opened it (a reader creates the `-wal` file), not when the session changed.
 */
function readFacts(path: string): SessionCatalogRow | null {
  let client: ReturnType<typeof openSqlite> | undefined;
  try {
    client = openSqlite(path, { readonly: true, fileMustExist: true, timeout: 2000 });
    const { sessionMeta, sessionEvents } = sessionTables();
    // The time of the session's last event (`at` of the meta row's `last_seq`), else its creation time.
    const row = drizzleBetterSqlite3().drizzle({ client }).select({ meta: sessionMeta, at: sessionEvents.at }).from(sessionMeta).leftJoin(sessionEvents, drizzleOrm().eq(sessionEvents.seq, sessionMeta.lastSeq)).get();
    return row ? { ...row.meta, updatedAt: row.at ?? row.meta.createdAt } : null;
  } catch {
    return null;
  } finally {
    client?.close();
  }
}

/**
 * A cheap change mark of a session file (sizes and mtimes of the file and its WAL): the rows are
 * read again only when it moves. It never becomes the time shown.
 */
function changeMark(path: string): string | null {
  try {
    const [main, wal] = [statSync(path), statSync(`${path}-wal`, { throwIfNoEntry: false })];
    return `${main.size}:${main.mtimeMs}|${wal ? `${wal.size}:${wal.mtimeMs}` : ""}`;
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
 * their session files, and reads each file's address, fork pointer and last event time from its rows (VIEW-8:
 * the store's time, not the file's), again only when the file changed since. A listing costs two
 * directory reads per conversation and two `stat`s per session; no log is scanned.
 *
 * @example
 * const catalog = createSqliteSessionCatalog({ agentStoreDir: ".steamharness/agents" });
 * const newest = (await catalog.list())[0]?.address;
 */
export function createSqliteSessionCatalog(options: SqliteSessionCatalogOptions): SessionCatalog {
  const root = resolve(options.agentStoreDir);
  const facts = new Map<string, SessionCatalogRow & { mark: string }>();
  const rows = (): SessionCatalogRow[] =>
    folders(root)
      .filter((folder) => folder.isDirectory())
      .flatMap((folder) => folders(join(root, folder.name)).map((file) => ({ file, path: join(root, folder.name, file.name) })))
      .flatMap(({ file, path }) => {
        const mark = file.isFile() && file.name.endsWith(SESSION_FILE_EXTENSION) ? changeMark(path) : null;
        if (mark === null) return [];
        const known = facts.get(path);
        if (known?.mark === mark) return [known];
        const read = readFacts(path);
        // A file being created has no meta row yet: ask again next time instead of caching.
        if (read !== null) facts.set(path, { ...read, mark });
        return read === null ? [] : [read];
      });
  return createSessionCatalog({ rows, close: () => facts.clear() }, directCall, "sqlite");
}
