/**
 * The run-retention index of a workflow host's session folder (SES-12), for the project runner and
 * `steamharness runs prune`. The SQLite module (and drizzle) load on first use.
 */
import type { SqliteRunRetention } from "../adapters/driven/sqlite/run-retention/sqlite-run-retention.js";

export type { RetainedRunMark, RetainedRunState, RunPruneRequest, RunPruneResult, SqliteRunRetention } from "../adapters/driven/sqlite/run-retention/sqlite-run-retention.js";

/**
 * Opens (creating it when missing) the run-retention index of a session folder:
 * `<agentStoreDir>/_runs.sqlite`.
 *
 * @example
 * const retention = await openRunRetention({ agentStoreDir: "/srv/project/.workflow/agents" });
 * retention.close();
 */
export async function openRunRetention(location: { agentStoreDir: string }): Promise<SqliteRunRetention> {
  const { createSqliteRunRetention } = await import("../adapters/driven/sqlite/run-retention/sqlite-run-retention.js");
  return createSqliteRunRetention({ agentStoreDir: location.agentStoreDir });
}
