import { join } from "node:path";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { SteamharnessError } from "../../../../domain/errors.js";
import type { McpTaskStore } from "../../../../ports/mcp-task-store.js";
import { createSqlMcpTaskStore } from "../../kernel/mcp-task-rows.js";
import { createSystemClock } from "../../system/clock.js";
import { openMigratedSqlite } from "../shared/migrations.js";
import { sqliteSqlDriver } from "../shared/sqlite-sql-driver.js";
import { sqliteCall } from "../store/sqlite-support.js";
import { mcpTasks } from "./mcp-task-schema.js";

/** The task store's file name inside a persistent-value store dir. */
export const MCP_TASK_DATABASE_FILE = "mcp-tasks.sqlite";

/** Options of {@link createSqliteMcpTaskStore}. */
export interface SqliteMcpTaskStoreOptions {
  /** The database file (created with its folder when missing); or give `directory`. */
  path?: string;
  /** A folder (the project's persistent-value store dir): the file is `<directory>/mcp-tasks.sqlite`. */
  directory?: string;
  /** How long a write waits for another process's write lock (default 5000 ms). */
  busyTimeoutMs?: number;
}

/**
 * The SQLite MCP task store (MCP-13): one WAL-mode file that every host process on this machine
 * serving the project shares; migrations from `drizzle/mcp-tasks`.
 *
 * @example
 * const tasks = createSqliteMcpTaskStore({ directory: "/data/values" });
 */
export function createSqliteMcpTaskStore(options: SqliteMcpTaskStoreOptions): McpTaskStore {
  const path = options.path ?? (options.directory !== undefined ? join(options.directory, MCP_TASK_DATABASE_FILE) : undefined);
  if (path === undefined) throw new SteamharnessError("input_validation", "[steamharness] [sqlite] give path or directory for the task store", { field: "path" });
  const { client, db } = openMigratedSqlite(path, { migrations: "mcp-tasks", what: "the task store", ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }) });
  const state = { closed: false };
  return sqliteMcpTaskStoreOn({ db, state, close: async () => void client.close() });
}

/**
 * The task store on an open, migrated task database (a file's, or an in-memory one's): its
 * drizzle handle, its closed flag (the store sets it) and how to close it.
 *
 * @example
 * const tasks = sqliteMcpTaskStoreOn(openMemoryDatabase("mcp-tasks"));
 */
export function sqliteMcpTaskStoreOn(database: { db: BetterSQLite3Database; state: { closed: boolean }; close: () => Promise<void> }): McpTaskStore {
  const { db, state } = database;
  return createSqlMcpTaskStore(sqliteSqlDriver(db, { mcpTasks }, createSystemClock()), sqliteCall(state), async () => {
    state.closed = true;
    await database.close();
  });
}
