import { desc, eq, sql } from "drizzle-orm";
import type { ApprovalStore } from "../../../ports/approval-store.js";
import { createApprovalStore, sqlApprovalRows, type ApprovalAuditAppend, type ApprovalAuditRow, type ApprovalRows } from "../kernel/approval-store.js";
import { createKeySecrets } from "../system/key-secrets.js";
import type { SqlDriver } from "../kernel/sql-driver.js";
import { openPostgresStore } from "./postgres-sql-driver.js";
import { driverFault, type PostgresConnectionOptions } from "./postgres-database.js";
import type { PostgresTables } from "./schema.js";

/** Appends one call may lose to other writers before it gives up (each loss is another's success). */
const APPEND_ATTEMPTS = 50;
/** Chains whose end a handle remembers (a host serves a bounded set of tenants at a time). */
const REMEMBERED_CHAINS = 1024;

/**
 * The approval rows on PostgreSQL (GOV-1/5/7): a `once` decision is taken by one `UPDATE … WHERE
 * used_at IS NULL RETURNING`, which row-locks, so of hosts racing for it exactly one gets the row
 * back. An audit append is one `INSERT` after the chain's last entry as this handle last saw it
 * (read once per chain): the `(tenant, seq)` key makes a second entry with the same number
 * impossible, so a writer that lost the number to another host reads the chain's end again and
 * retries — one round trip per append instead of a locked transaction's five. A request with its
 * audit entries is one statement too (a gated call's one write).
 *
 * @example
 * const rows = createPostgresApprovalRows(driver);
 */
export function createPostgresApprovalRows(driver: SqlDriver<PostgresTables>): ApprovalRows {
  const { db, tables } = driver;
  const { approvalRequests: requests, approvalAudit: audit } = tables;
  // The last entry of each chain this handle appended (at most REMEMBERED_CHAINS). Entries are
  // never updated, so "after it" is right unless another handle appended since: the insert says.
  const lastAppended = new Map<string, ApprovalAuditRow>();
  async function appendChain({ tenant, next }: ApprovalAuditAppend, write: (rows: ApprovalAuditRow[]) => Promise<unknown>): Promise<ApprovalAuditRow[]> {
    for (let attempt = 0; attempt < APPEND_ATTEMPTS; attempt++) {
      const rows = next(lastAppended.get(tenant) ?? (await db.select().from(audit).where(eq(audit.tenant, tenant)).orderBy(desc(audit.seq)).limit(1))[0] ?? null);
      lastAppended.delete(tenant);
      // 23505 (unique_violation): another writer took a number.
      if (!(await write(rows).then(() => true, (error) => ((driverFault(error) as { code?: string } | null)?.code === "23505" ? false : Promise.reject(error))))) continue;
      if (lastAppended.size < REMEMBERED_CHAINS) lastAppended.set(tenant, rows.at(-1)!);
      return rows;
    }
    throw new Error(`the audit chain of ${tenant} kept moving: ${APPEND_ATTEMPTS} appends lost to other writers`);
  }
  return sqlApprovalRows(driver, {
    async insertRequest(row, append) {
      const insert = db.insert(requests).values(row).onConflictDoNothing();
      if (!append) return (await insert.returning({ id: requests.id })).length > 0;
      let inserted = false;
      // One statement: the entries go in only when the request did (drizzle has no INSERT … SELECT
      // over a data-modifying WITH, hence the template; every value is a parameter).
      await appendChain(append, async (rows) => {
        const entries = JSON.stringify(rows.map(({ requestId, prevHash, ...row }) => ({ ...row, request_id: requestId, prev_hash: prevHash })));
        inserted = ((await db.execute(sql`with inserted as (${insert.returning({ id: requests.id }).getSQL()}) insert into ${audit} select * from json_populate_recordset(null::${audit}, ${entries}::json) where exists (select 1 from inserted)`)).rowCount ?? 0) > 0;
      });
      return inserted;
    },
    appendAudit: (append) => appendChain(append, async (rows) => void (await db.insert(audit).values(rows))),
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
