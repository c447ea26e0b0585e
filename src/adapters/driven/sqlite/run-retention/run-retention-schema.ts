/**
 * The run-retention table (SES-12) of a session folder, in a file of its own
 * (`<agentStoreDir>/_runs.sqlite`), built from its definition in kernel/tables.ts. Migrations are
 * generated from this file with `npx drizzle-kit generate --config drizzle.run-retention.config.ts`
 * into `drizzle/run-retention/`.
 */
import { RETAINED_RUNS_TABLE } from "../../kernel/tables.js";
import { sqliteTableOf } from "../shared/sqlite-table.js";

/** One row per workflow run whose agent sessions live in `<agentStoreDir>/<run>/`. */
export const retainedRuns = sqliteTableOf(RETAINED_RUNS_TABLE);
