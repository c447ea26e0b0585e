import { existsSync } from "node:fs";
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
