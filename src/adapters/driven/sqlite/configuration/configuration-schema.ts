/**
 * The project configuration database (CFG-1): one file under the data dir shared by every local
 * host. Migrations: `npx drizzle-kit generate --config drizzle.configuration.config.ts`.
 */
import { drizzleSqliteCore } from "../shared/drizzle-modules.js";

/** The tables; drizzle is loaded and they are built on first use (PERF-1). */
function define() {
  const { integer, primaryKey, sqliteTable, text } = drizzleSqliteCore();
  /**
   * One row per (account, project): its revision, declared fields (JSON) and current
   * configuration. `account_id` is "" for the local store; the configuration server (CFG-4) keys
   * every project by the account that owns it.
   */
  const configurationProjects = sqliteTable(
    "configuration_projects",
    {
      accountId: text("account_id").notNull().default(""),
      projectId: text("project_id").notNull(),
      revision: integer("revision").notNull(),
      fields: text("fields").notNull(),
      currentConfigurationId: text("current_configuration_id"),
      updatedAt: integer("updated_at").notNull(),
    },
    (table) => [primaryKey({ columns: [table.accountId, table.projectId] })],
  );

  /** One row per configuration ever created; a deleted one keeps its row as a tombstone (`deleted_at`). */
  const configurations = sqliteTable(
    "configurations",
    {
      accountId: text("account_id").notNull().default(""),
      projectId: text("project_id").notNull(),
      configurationId: text("configuration_id").notNull(),
      name: text("name").notNull(),
      values: text("values").notNull(),
      revision: integer("revision").notNull(),
      position: integer("position").notNull(),
      createdAt: integer("created_at").notNull(),
      updatedAt: integer("updated_at").notNull(),
      deletedAt: integer("deleted_at"),
    },
    (table) => [primaryKey({ columns: [table.accountId, table.projectId, table.configurationId] })],
  );

  /** The configuration server's accounts (CFG-4): the token is kept only as its SHA-256 hash. */
  const configurationAccounts = sqliteTable("configuration_accounts", {
    accountId: text("account_id").primaryKey(),
    name: text("name").notNull().unique(),
    tokenHash: text("token_hash").notNull().unique(),
    createdAt: integer("created_at").notNull(),
  });
  return { configurationProjects, configurations, configurationAccounts };
}

/** The configuration database's tables. */
export type ConfigurationTables = ReturnType<typeof define>;

let tables: ConfigurationTables | undefined;

/**
 * The tables, built on first use with the lazily loaded drizzle (PERF-1).
 *
 * @example
 * const { configurationProjects } = configurationTables();
 */
export function configurationTables(): ConfigurationTables {
  return (tables ??= define());
}
