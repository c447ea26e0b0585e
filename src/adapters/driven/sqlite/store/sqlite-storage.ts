import { basename, dirname, join, resolve } from "node:path";
import type { BudgetLedger } from "../../../../ports/budget-ledger.js";
import type { Storage } from "../../../../ports/storage.js";
import { createRandomIdSource } from "../../system/id-source.js";
import { openStoreFile } from "./sqlite-database.js";
import { sqliteFullText } from "./sqlite-knowledge-store.js";
import { fileFolder } from "./file-folder.js";
import { createManagedFileStore } from "../../kernel/managed-file-store.js";
import { fileMachine } from "../../system/file-source.js";
import { createSqliteSessionBackend, type SqliteSessionBackend } from "../sessions/sqlite-session-backend.js";
import { DEFAULT_AGENT_STORE_DIR } from "../sessions/session-file-names.js";
import { createSqliteBudgetLedger } from "./sqlite-budget-ledger.js";
import { sqlStoragePorts, type StorageOptions } from "../../kernel/storage-options.js";

/** The content-addressed managed-file folder inside a store directory. */
export const STORE_FILES_FOLDER = "files";

/** Options of {@link createSqliteStorage}. */
export interface SqliteStorageOptions extends StorageOptions {
  /** The store directory (created if missing); several processes may share it. */
  directory: string;
  /**
   * The folder of the durable agent sessions (`storage.sessions`, one SQLite file per session).
   * Default (SES-10): a store in a project's `.workflow` folder (`<project>/.workflow/store`) keeps
   * them project-local in `<project>/.workflow/agents`; a store anywhere else in `<directory>/agents`.
   */
  agentStoreDir?: string;
  /**
   * How many idle agent sessions stay open between runs (default 8): a run on a warm session
   * skips opening its file. `close()` closes them.
   */
  maxIdleSessions?: number;
  /** The drizzle migrations folder; found next to the package by default. */
  migrationsFolder?: string;
}

/** The SQLite storage: every store port, and a SQLite session backend. */
export interface SqliteStorage extends Storage {
  sessions: SqliteSessionBackend;
  budgets: BudgetLedger;
  /** The absolute session folder (`sessions.agentStoreDir`). */
  readonly agentStoreDir: string;
}

/**
 * SES-10: sessions default to the project-local `.workflow/agents`. The project is known when the
 * store itself sits in its `.workflow` folder; a store elsewhere (a data dir, a temp dir) keeps its
 * sessions inside itself rather than guessing a project from the working directory.
 */
function defaultAgentStoreDir(directory: string): string {
  const parent = dirname(directory);
  return basename(parent) === ".workflow" ? join(dirname(parent), DEFAULT_AGENT_STORE_DIR) : join(directory, "agents");
}

/**
 * The embedded default storage: one directory holding `store.sqlite` (WAL, migrations applied on
 * open) and a content-addressed `files/` folder, plus the durable agent sessions under
 * `agentStoreDir` (`sessions`, a SQLite session backend: one file per session, leases on lock files
 * beside them, each conversation's session-host record). Safe for several processes on one
 * machine.
 * Opening faults throw `storage_failure` with `cause`.
 *
 * @example
 * const storage = createSqliteStorage({ directory: ".workflow/store" }); // sessions in .workflow/agents
 * await storage.knowledge.upsert("p", { documentId: "faq", title: "FAQ", markdown: "…" });
 * await storage.close();
 */
export function createSqliteStorage(options: SqliteStorageOptions): SqliteStorage {
  const directory = resolve(options.directory);
  const store = openStoreFile({ directory, ...(options.migrationsFolder === undefined ? {} : { migrationsFolder: options.migrationsFolder }) }, options.clock);
  const agentStoreDir = resolve(options.agentStoreDir ?? defaultAgentStoreDir(directory));
  const sessions = createSqliteSessionBackend({ agentStoreDir, ...(options.maxIdleSessions === undefined ? {} : { maxIdleSessions: options.maxIdleSessions }) });
  let closing: Promise<void> | undefined;
  return {
    ...sqlStoragePorts(store.driver, store.call, sqliteFullText),
    files: createManagedFileStore(store, { idSource: options.idSource ?? createRandomIdSource(), machine: fileMachine, contents: fileFolder(join(directory, STORE_FILES_FOLDER)), maxBytes: options.maxFileBytes }),
    agentStoreDir,
    sessions,
    budgets: createSqliteBudgetLedger(store),
    // The sessions first, then the store file, once.
    close: () => (closing ??= sessions.close().finally(store.close)),
  };
}
