/**
 * The run-retention table (SES-12) of a session folder: one row per workflow run whose agent
 * sessions live in `<agentStoreDir>/<run>/`, in a file of its own (`<agentStoreDir>/_runs.sqlite`).
 * Migrations are generated from this file with
 * `npx drizzle-kit generate --config drizzle.run-retention.config.ts` into `drizzle/run-retention/`.
 */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * `state` is `running`, `paused` or `finished`; `expires_at` is when the run's sessions may go
 * (`null`: never — a paused run waiting for an answer, or a host keeping runs forever).
 */
export const retainedRuns = sqliteTable(
  "retained_runs",
  {
    projectId: text("project_id").notNull(),
    runId: text("run_id").notNull(),
    state: text("state").notNull(),
    updatedAt: integer("updated_at").notNull(),
    expiresAt: integer("expires_at"),
  },
  (table) => [
    primaryKey({ columns: [table.projectId, table.runId] }),
    index("retained_runs_expires_idx").on(table.projectId, table.expiresAt),
    index("retained_runs_state_idx").on(table.projectId, table.state, table.updatedAt),
  ],
);
