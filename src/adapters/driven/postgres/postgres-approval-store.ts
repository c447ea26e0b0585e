import { sql } from "drizzle-orm";
import type { ApprovalStore } from "../../../ports/approval-store.js";
import { createApprovalStore, sqlApprovalRows, type ApprovalRows } from "../kernel/approval-store.js";
import { createKeySecrets } from "../system/key-secrets.js";
import type { SqlDriver } from "../kernel/sql-driver.js";
import { openPostgresStore } from "./postgres-sql-driver.js";
import type { PostgresConnectionOptions } from "./postgres-database.js";
import type { PostgresTables } from "./schema.js";

/**
 * The approval rows on PostgreSQL (GOV-1/5/7): a `once` decision is taken by one `UPDATE … WHERE
 * used_at IS NULL RETURNING`, which row-locks, so of hosts racing for it exactly one gets the row
 * back; an audit append is the kernel's one `INSERT` after the chain's end as the handle last saw
 * it, and a request with its audit entries is one statement too (a gated call's one write).
 *
 * @example
 * const rows = createPostgresApprovalRows(driver);
 */
export function createPostgresApprovalRows(driver: SqlDriver<PostgresTables>): ApprovalRows {
  const { db, tables } = driver;
  const { approvalRequests: requests, approvalAudit: audit } = tables;
  return sqlApprovalRows(driver, async (row, rows) => {
    const insert = db.insert(requests).values(row).onConflictDoNothing().returning({ id: requests.id });
    // The entries go in only when the request did (drizzle has no INSERT … SELECT over a
    // data-modifying WITH, hence the template; every value is a parameter).
    const entries = JSON.stringify(rows.map(({ requestId, prevHash, ...entry }) => ({ ...entry, request_id: requestId, prev_hash: prevHash })));
    const result = await db.execute(sql`with inserted as (${insert.getSQL()}) insert into ${audit} select * from json_populate_recordset(null::${audit}, ${entries}::json) where exists (select 1 from inserted)`);
    return (result.rowCount ?? 0) > 0;
  });
}

/**
 * The approval store in a PostgreSQL schema (GOV-1/5/7; default `"steamharness"`, migrated on open
 * like {@link createPostgresStorage}): every host on the database shares requests, decisions and
 * audit chains, and a `once` decision is used by exactly one of them. Opening faults throw `storage_failure`.
 *
 * @example
 * const store = await createPostgresApprovalStore({ connectionString: "postgres://app@db.internal/app" });
 */
export async function createPostgresApprovalStore(options: PostgresConnectionOptions = {}): Promise<ApprovalStore> {
  const { driver, call, close } = await openPostgresStore(options);
  return createApprovalStore(createPostgresApprovalRows(driver), createKeySecrets().digest, call, close);
}
