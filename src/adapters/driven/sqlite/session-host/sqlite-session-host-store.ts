import { join, resolve } from "node:path";
import { conversationFolderSegment } from "../sessions/session-file-names.js";
import type { AgentSessionHostStore } from "../../../../ports/session-host-store.js";
import { openMigratedSqlite } from "../shared/migrations.js";
import { sqlSessionHostStore } from "../../kernel/session-host-store.js";
import { sqliteSqlDriver } from "../shared/sqlite-sql-driver.js";
import { sqliteCall } from "../store/sqlite-support.js";
import { sessionHostTables } from "./host-schema.js";

/** The file name of a conversation's host record; it never matches a session file (`<slug>-<hash>.sqlite`). */
export const SESSION_HOST_FILE = "_session-host.db";

/**
 * The host record's path: `<agentStoreDir>/<conversation folder>/_session-host.db`, in the folder
 * that holds the conversation's session files.
 *
 * @example
 * sessionHostDatabasePath("/data/agents", "conv-1") // "/data/agents/conv-1-<hash>/_session-host.db"
 */
export function sessionHostDatabasePath(agentStoreDir: string, conversationId: string): string {
  return join(resolve(agentStoreDir), conversationFolderSegment(conversationId), SESSION_HOST_FILE);
}

/**
 * The SQLite host record of one conversation (WAL; any process may write commands and cancel
 * intents while the lease holder runs tasks): the kernel's host rows on the file. Created on
 * first open.
 *
 * @example
 * const store = openSqliteSessionHostStore({ path: sessionHostDatabasePath(agentStoreDir, "conv-1") });
 */
export function openSqliteSessionHostStore(options: { path: string; now?: () => number }): AgentSessionHostStore {
  const { client, db } = openMigratedSqlite(options.path, { migrations: "session-host", what: "the session host record" });
  const driver = sqliteSqlDriver(db, sessionHostTables(), { now: options.now ?? Date.now });
  // The file is the conversation: its rows name none.
  return sqlSessionHostStore(driver, "", sqliteCall({ closed: false }), () => client.close());
}
