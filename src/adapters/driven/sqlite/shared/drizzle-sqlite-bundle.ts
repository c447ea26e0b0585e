/**
 * The drizzle-orm modules the SQLite adapters use, as one module. The build bundles it
 * with drizzle inlined into `dist/drizzle-sqlite.cjs` (tsup.config.ts), which `drizzle-modules`
 * loads instead of the packages when it sits beside it: drizzle ships about 110 CommonJS files
 * for these four entry points, and resolving and reading them one by one was most of the ~100 ms
 * a process spent loading drizzle before its first SQLite statement; the single file loads in
 * about half that. Test fixtures bundled by esbuild get the same file beside their bundle.
 */
export * as orm from "drizzle-orm";
export * as sqliteCore from "drizzle-orm/sqlite-core";
export * as betterSqlite3 from "drizzle-orm/better-sqlite3";
export * as migrator from "drizzle-orm/better-sqlite3/migrator";
