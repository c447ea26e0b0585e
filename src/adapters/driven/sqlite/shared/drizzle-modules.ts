/**
 * drizzle-orm's SQLite modules and better-sqlite3, loaded on first use (PERF-1): the root entry
 * exports synchronous SQLite factories (`createSqliteStorage`, …), and loading drizzle with the
 * root cost every process ~100 ms, also those that never open SQLite.
 *
 * Loaded with `require` (drizzle-orm ships CommonJS builds; better-sqlite3 is CommonJS) because a
 * synchronous factory cannot `await import()`. Every SQLite adapter takes drizzle from here, so
 * they all share one copy: tables, columns and `sql` fragments never meet another copy's. (A
 * caller's own ESM drizzle still works with them: drizzle recognises its objects across copies by
 * `Symbol.for("drizzle:entityKind")`, not `instanceof`.) The build's copy is one bundled file,
 * `drizzle-sqlite.cjs` beside the bundles, instead of drizzle's ~110 files (cold start).
 */
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";
import type * as DrizzleOrm from "drizzle-orm";
import type * as DrizzleBetterSqlite3 from "drizzle-orm/better-sqlite3";
import type * as DrizzleMigrator from "drizzle-orm/better-sqlite3/migrator";
import type * as DrizzleSqliteCore from "drizzle-orm/sqlite-core";

/**
 * A `require` for package lookups from this module. ESM (the ESM build, tsx, jest) makes one from
 * `import.meta.url`; the CJS build, where `import.meta` is empty, has its own. Not `typeof require`:
 * the ESM build defines a `require` stub that throws on use.
 *
 * @example
 * packageRequire.resolve("better-sqlite3/package.json");
 */
export const packageRequire: NodeRequire = import.meta.url ? createRequire(import.meta.url) : require;
const load = packageRequire;

/** The build's single-file drizzle (see drizzle-sqlite-bundle.ts), found beside this module. */
const BUNDLE = "./drizzle-sqlite.cjs";
type Bundle = typeof import("./drizzle-sqlite-bundle.js");
let bundle: Bundle | null | undefined;

/**
 * The bundled drizzle when the build (or a test fixture's bundle) put `drizzle-sqlite.cjs` beside
 * this module, else null: from the sources (tsx, jest) the packages are loaded one by one.
 */
function bundled(): Bundle | null {
  if (bundle === undefined) {
    let path: string | undefined;
    try {
      path = load.resolve(BUNDLE);
    } catch {
      path = undefined;
    }
    bundle = path === undefined ? null : (load(path) as Bundle);
  }
  return bundle;
}

const cache = new Map<string, unknown>();
const once = <T>(id: string, fromBundle: (bundle: Bundle) => unknown): T => {
  if (!cache.has(id)) {
    const single = bundled();
    cache.set(id, single ? fromBundle(single) : load(id));
  }
  return cache.get(id) as T;
};

/**
 * `drizzle-orm` (operators, `sql`, `fillPlaceholders`, …).
 *
 * @example
 * const { and, eq } = drizzleOrm();
 */
export const drizzleOrm = (): typeof DrizzleOrm => once("drizzle-orm", (b) => b.orm);

/**
 * `drizzle-orm/sqlite-core` (table and column builders, the SQLite dialect).
 *
 * @example
 * const { sqliteTable, text } = drizzleSqliteCore();
 */
export const drizzleSqliteCore = (): typeof DrizzleSqliteCore => once("drizzle-orm/sqlite-core", (b) => b.sqliteCore);

/**
 * `drizzle-orm/better-sqlite3` (the `drizzle()` driver function).
 *
 * @example
 * const db = drizzleBetterSqlite3().drizzle({ client });
 */
export const drizzleBetterSqlite3 = (): typeof DrizzleBetterSqlite3 => once("drizzle-orm/better-sqlite3", (b) => b.betterSqlite3);

/**
 * `drizzle-orm/better-sqlite3/migrator` (`migrate`).
 *
 * @example
 * drizzleMigrator().migrate(db, { migrationsFolder });
 */
export const drizzleMigrator = (): typeof DrizzleMigrator => once("drizzle-orm/better-sqlite3/migrator", (b) => b.migrator);

/**
 * The better-sqlite3 `Database` class.
 *
 * @example
 * const client = new (betterSqlite3())(":memory:");
 */
export const betterSqlite3 = (): typeof BetterSqlite3 => once("better-sqlite3", () => load("better-sqlite3"));
