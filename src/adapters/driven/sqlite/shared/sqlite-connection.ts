import { existsSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import type Database from "better-sqlite3";
import { betterSqlite3, packageRequire } from "./drizzle-modules.js";

let binding: string | null | undefined;

/**
 * The path of better-sqlite3's compiled addon, resolved once per process, or `null` to let
 * better-sqlite3 find it itself. Why: its default lookup (the `bindings` package) locates the
 * caller by building an Error stack trace and probing ~10 paths; with source maps on (tsx) that
 * alone costs tens of milliseconds on the first open of a process, which is the open that reads
 * a paused session's state in a fresh process.
 */
function nativeBinding(): string | null {
  if (binding !== undefined) return binding;
  try {
    const candidate = join(dirname(packageRequire.resolve("better-sqlite3/package.json")), "build", "Release", "better_sqlite3.node");
    binding = existsSync(candidate) ? candidate : null;
  } catch {
    binding = null;
  }
  return binding;
}

/**
 * Opens a better-sqlite3 connection with the addon path resolved once per process (a Buffer: an
 * in-memory database deserialized from it).
 *
 * @example
 * const client = openSqlite("/data/session.sqlite", { timeout: 5000 });
 * const copy = openSqlite(client.serialize()); // an in-memory database from a serialized image
 */
export function openSqlite(path: string | Buffer, options: Database.Options = {}): Database.Database {
  const addon = nativeBinding();
  const Database = betterSqlite3();
  return new Database(path, addon === null ? options : { ...options, nativeBinding: addon });
}

/**
 * Device and inode of a file, or `null` when it is missing or unreachable: a kept connection of a file replaced
 * or removed since is stale.
 *
 * @example
 * const opened = fileIdOf(path);
 */
export function fileIdOf(path: string): string | null {
  try {
    const stat = statSync(path, { throwIfNoEntry: false });
    return stat ? `${stat.dev}:${stat.ino}` : null;
  } catch {
    // Not reachable (a parent is a file: ENOTDIR; no permission): the opener that follows says why in its own words.
    return null;
  }
}

/** The connections {@link shareSqlite} hands out, by {@link fileIdOf} of their file. */
const shared = new Map<string, { opened: { client: Database.Database }; holders: number }>();

/**
 * One read-write connection per database file per process: `open()` (which creates the file if
 * needed and sets the connection's pragmas) runs only when this process holds no open connection
 * to the file at `path`, identified by device and inode (so another spelling of the path, or a
 * link, is the same file and a file replaced since is opened afresh); otherwise the open one is
 * handed out again as `open()` returned it (its first opener's migrations and pragmas hold for
 * every holder). `release()` gives a holder's share back, to be called once (a store's close
 * runs it once, see sqlStoreOf); the last share's release closes the connection. Why (GOV-7, issue 47): two
 * connections of one process on a WAL file each find the other's commits at their next statement
 * and drop their page cache, so the storage's writes and the approval store's audit appends on
 * `store.sqlite` read each other's pages back on every gated call. Safe because better-sqlite3 is
 * synchronous: every transaction begins and ends inside one call (the kernel's `drive` runs a
 * SQLite transaction's steps without awaiting), so two holders' transactions never interleave. Read-only openers keep connections of their own.
 *
 * @example
 * const { client, release } = shareSqlite(path, () => openMigratedSqlite(path, options));
 */
export function shareSqlite<T extends { client: Database.Database }>(path: string, open: () => T): T & { release(): void } {
  const kept = shared.get(fileIdOf(path) ?? "");
  // A connection a holder closed itself (a test's raw close) is not handed out again.
  const entry = kept?.opened.client.open ? kept : { opened: open(), holders: 0 };
  const key = fileIdOf(path)!;
  shared.set(key, entry);
  entry.holders++;
  return {
    ...(entry.opened as T),
    release() {
      if (--entry.holders > 0) return;
      if (shared.get(key) === entry) shared.delete(key);
      entry.opened.client.close();
    },
  };
}
