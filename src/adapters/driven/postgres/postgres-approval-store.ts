import { createHash } from "node:crypto";
import { getTableColumns, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { Pool } from "pg";
import type { ApprovalStore } from "../../../ports/approval-store.js";
import { createApprovalStore, sqlApprovalRows, STANDING, type ApprovalRows } from "../kernel/approval-store.js";
import { createKeySecrets } from "../system/key-secrets.js";
import type { SqlDriver } from "../kernel/sql-driver.js";
import { openPostgresStore } from "./postgres-sql-driver.js";
import type { PostgresConnectionOptions } from "./postgres-database.js";
import type { PostgresTables } from "./schema.js";

/**
 * The approval rows on PostgreSQL (GOV-1/5/7): a `once` decision is taken by one `UPDATE … WHERE
 * used_at IS NULL RETURNING`, which row-locks, so of hosts racing for it exactly one gets the row
 * back; an audit append is the kernel's one `INSERT` after the chain's end as the handle last saw
 * it. A request with its audit entries is one named prepared statement (parsed and planned once
 * per connection, its own transaction): it reads the binding's standing decision and, while that
 * is the one the kernel guessed, inserts the request and, only when it did, the entries — a gated
 * call's one round trip.
 *
 * @example
 * const rows = createPostgresApprovalRows(driver);
 */
export function createPostgresApprovalRows(driver: SqlDriver<PostgresTables>): ApprovalRows {
  const { db, tables } = driver;
  const { approvalRequests: requests, approvalAudit: audit } = tables;
  const pool: Pool = db.$client;
  // Rows as JSON records of the tables' column names (json_populate_record: one parameter each).
  const columnsOf = (table: typeof requests | typeof audit) => Object.entries(getTableColumns(table)).map(([key, column]) => [key, column.name] as const);
  const recordOf = (columns: ReturnType<typeof columnsOf>, row: object) => Object.fromEntries(columns.map(([key, name]) => [name, (row as Record<string, unknown>)[key]]));
  const requestColumns = columnsOf(requests);
  const auditColumns = columnsOf(audit);
  // drizzle has no INSERT … SELECT over a data-modifying WITH, hence the template, compiled once.
  const p = (name: string) => sql.placeholder(name);
  const standing = STANDING.build(driver, p as never);
  const compiled = new PgDialect().sqlToQuery(sql`with standing as (${standing.getSQL()}),
    fits as (select 1 where not ${p("check")}::boolean or (select id from standing) is not distinct from ${p("expect")}::text),
    inserted as (insert into ${requests} select * from json_populate_record(null::${requests}, ${p("row")}::json) where exists (select 1 from fits) on conflict do nothing returning 1),
    appended as (insert into ${audit} select * from json_populate_recordset(null::${audit}, ${p("entries")}::json) where exists (select 1 from inserted) returning 1)
    select exists (select 1 from fits) as fits, exists (select 1 from inserted) as inserted`);
  const names = compiled.params.map((param) => (param as { name: string }).name);
  // Statement names are per connection; the text names the schema, so one name per text.
  const query = { name: `steamharness_approval_request_${createHash("sha256").update(compiled.sql).digest("hex").slice(0, 16)}`, text: compiled.sql };
  return sqlApprovalRows(driver, async (row, rows, check) => {
    const values: Record<string, unknown> = {
      ...(check?.binding ?? { tenant: row.tenant, toolId: row.toolId, argumentsHash: row.argumentsHash, policyVersion: row.policyVersion, sessionId: row.sessionId }),
      check: check !== undefined, expect: check?.id ?? null, row: JSON.stringify(recordOf(requestColumns, row)), entries: JSON.stringify(rows.map((entry) => recordOf(auditColumns, entry))),
    };
    const { rows: [answer] } = await pool.query<{ fits: boolean; inserted: boolean }>({ ...query, values: names.map((name) => values[name]) });
    return !answer!.fits ? "stale" : answer!.inserted;
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
