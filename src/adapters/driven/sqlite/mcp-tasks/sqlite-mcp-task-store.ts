import { join } from "node:path";
import type Database from "better-sqlite3";
import { SteamharnessError, wrapAdapterError } from "../../../../domain/errors.js";
import type { McpTaskStore } from "../../../../ports/mcp-task-store.js";
import { createSqlMcpTaskStore, type TaskStatement } from "../../kernel/mcp-task-rows.js";
import { openMigratedSqlite } from "../shared/migrations.js";

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
  const { client } = openMigratedSqlite(path, { migrations: "mcp-tasks", what: "the task store", ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }) });
  return sqliteMcpTaskStoreOn(client, async () => void client.close());
}

/**
 * The task store on an open, migrated task database (a file's, or an in-memory one's).
 *
 * @example
 * const tasks = sqliteMcpTaskStoreOn(client, async () => client.close());
 */
export function sqliteMcpTaskStoreOn(client: Database.Database, close: () => Promise<void>): McpTaskStore {
  // Keyed by the kernel's text: a statement seen before (every tasks/get) is neither rewritten nor prepared again.
  const statements = new Map<string, { statement: Database.Statement; order: number[] }>();
  // better-sqlite3 binds anonymous `?` in order: each `$n` becomes `?` with its value repeated.
  const prepared = (statement: TaskStatement) => {
    let found = statements.get(statement.text);
    if (!found) {
      const order = [...statement.text.matchAll(/\$(\d+)/g)].map((match) => Number(match[1]) - 1);
      found = { statement: client.prepare(statement.text.replace(/\$\d+/g, "?")), order };
      statements.set(statement.text, found);
    }
    return { sqlite: found.statement, values: found.order.map((index) => statement.values[index]) };
  };
  return createSqlMcpTaskStore({
    family: "sqlite",
    jsonCast: "",
    run(statement) {
      const { sqlite, values } = prepared(statement);
      return sqlite.reader ? { rows: sqlite.all(...values) as Record<string, unknown>[], changes: 0 } : { rows: [], changes: sqlite.run(...values).changes };
    },
    isConflict: (error) => (error as { code?: string }).code === "SQLITE_CONSTRAINT_PRIMARYKEY",
    faultOf: (error) => error,
    close,
  });
}
