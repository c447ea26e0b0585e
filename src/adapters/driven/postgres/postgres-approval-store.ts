import { createHash } from "node:crypto";
import { fillPlaceholders, getTableColumns, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { ApprovalStore } from "../../../ports/approval-store.js";
import { createApprovalStore, STANDING } from "../kernel/approval-store.js";
import { createKeySecrets } from "../system/key-secrets.js";
import { openPostgresStore } from "./postgres-sql-driver.js";
import type { PostgresConnectionOptions } from "./postgres-database.js";

/**
 * The approval store in a PostgreSQL schema (GOV-1/5/7; default `"steamharness"`, migrated on open
 * like {@link createPostgresStorage}): every host on the database shares requests, decisions and
 * audit chains, and a `once` decision is used by exactly one of them. Opening faults throw `storage_failure`.
 * A `once` decision is taken by one `UPDATE … WHERE used_at IS NULL RETURNING`, which row-locks,
 * so of hosts racing for it exactly one gets the row back; an audit append is the kernel's one
 * `INSERT` after the chain's end as the handle last saw it. A request with its audit entries is
 * one named prepared statement (parsed and planned once per connection, its own transaction): it
 * reads the binding's standing decision and, while that is the one the kernel guessed, inserts
 * the request and, only when it did, the entries — a gated call's one round trip.
 *
 * @example
 * const store = await createPostgresApprovalStore({ connectionString: "postgres://app@db.internal/app" });
 */
export async function createPostgresApprovalStore(options: PostgresConnectionOptions = {}): Promise<ApprovalStore> {
  const store = await openPostgresStore(options);
  const { driver } = store;
  const { approvalRequests: requests, approvalAudit: audit } = driver.tables;
  // A row as a JSON record of its table's column names (json_populate_record: one parameter each).
  const recordOf = (table: typeof requests | typeof audit, row: object) => Object.fromEntries(Object.entries(getTableColumns(table)).map(([key, column]) => [column.name, row[key as keyof typeof row]]));
  // drizzle has no INSERT … SELECT over a data-modifying WITH, hence the template, compiled once.
  const { sql: text, params } = new PgDialect().sqlToQuery(sql`with standing as (${STANDING.build(driver, sql.placeholder as never).getSQL()}), fits as (select 1 where not ${sql.placeholder("check")}::boolean or (select id from standing) is not distinct from ${sql.placeholder("expect")}::text),
    inserted as (insert into ${requests} select * from json_populate_record(null::${requests}, ${sql.placeholder("row")}::json) where exists (select 1 from fits) on conflict do nothing returning 1),
    appended as (insert into ${audit} select * from json_populate_recordset(null::${audit}, ${sql.placeholder("entries")}::json) where exists (select 1 from inserted) returning 1) select exists (select 1 from fits) as fits, exists (select 1 from inserted) as inserted`);
  // Statement names are per connection, and the text names the schema: one name per text.
  const query = { name: `steamharness_approval_request_${createHash("sha256").update(text).digest("hex").slice(0, 16)}`, text };
  return createApprovalStore(store, createKeySecrets().digest, async (row, rows, check) => {
    const values: Record<string, unknown> = { tenant: null, toolId: null, argumentsHash: null, policyVersion: null, sessionId: null, ...check?.binding, check: check !== undefined, expect: check?.id ?? null, row: JSON.stringify(recordOf(requests, row)), entries: JSON.stringify(rows.map((entry) => recordOf(audit, entry))) };
    const answer = (await driver.db.$client.query({ ...query, values: fillPlaceholders(params, values) })).rows[0] as { fits: boolean; inserted: boolean };
    return answer.fits ? answer.inserted : "stale";
  });
}
