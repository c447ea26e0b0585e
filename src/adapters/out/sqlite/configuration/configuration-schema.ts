/**
 * The project configuration database (CFG-1): one file under the data dir shared by every local
 * host. Migrations: `npx drizzle-kit generate --config drizzle.configuration.config.ts`.
 */
import { drizzleSqliteCore } from "../shared/drizzle-modules.js";

/** The tables; drizzle is loaded and they are built on first use (PERF-1). */
function define() {
  const { integer, primaryKey, sqliteTable, text } = drizzleSqliteCore();
  /** One row per project: its revision, declared fields (JSON) and current configuration. */
  const configurationProjects = sqliteTable("configuration_projects", {
    projectId: text("project_id").primaryKey(),
    revision: integer("revision").notNull(),
    fields: text("fields").notNull(),
    currentConfigurationId: text("current_configuration_id"),
    updatedAt: integer("updated_at").notNull(),
  });

  /** One row per configuration ever created; a deleted one keeps its row as a tombstone (`deleted_at`). */
  const configurations = sqliteTable(
    "configurations",
    {
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
    (table) => [primaryKey({ columns: [table.projectId, table.configurationId] })],
  );
  return { configurationProjects, configurations };
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
