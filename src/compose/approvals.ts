/**
 * The approval store (GOV-1/7) for the CLI's `audit` commands: PostgreSQL when a URL is given,
 * else a SQLite store directory; each backend loads only when chosen.
 */
import type { ApprovalStore } from "../ports/approval-store.js";
import type { ServerStateLocation } from "../ports/surface-services.js";

/**
 * Opens the approval store at `location` (migrations applied on open).
 *
 * @example
 * const store = await openApprovalStore({ directory: "./data/store" });
 * await store.auditTenants();
 * await store.close();
 */
export async function openApprovalStore(location: ServerStateLocation): Promise<ApprovalStore> {
  if (location.postgres !== undefined) {
    const { createPostgresApprovalStore } = await import("../adapters/driven/postgres/postgres-approval-store.js");
    return createPostgresApprovalStore({ connectionString: location.postgres, ...(location.schema ? { schema: location.schema } : {}) });
  }
  const { createSqliteApprovalStore } = await import("../adapters/driven/sqlite/store/sqlite-approval-store.js");
  return createSqliteApprovalStore({ directory: location.directory });
}
