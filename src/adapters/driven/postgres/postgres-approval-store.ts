import { and, asc, desc, eq, gt, isNull, lte, ne, or, sql } from "drizzle-orm";
import type { ApprovalBinding, ApprovalStore } from "../../../ports/approval-store.js";
import { createApprovalStore, type ApprovalAuditAppend, type ApprovalAuditRow, type ApprovalRows } from "../kernel/approval-store.js";
import { createKeySecrets } from "../system/key-secrets.js";
import { driverFault, openPostgres, postgresCall, type PostgresConnectionOptions, type PostgresStoreContext } from "./postgres-database.js";

/** Appends one call may lose to other writers before it gives up (each loss is another's success). */
const APPEND_ATTEMPTS = 50;
/** PostgreSQL's unique_violation: another writer took the audit number. */
const UNIQUE_VIOLATION = "23505";
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
 * const rows = createPostgresApprovalRows(context);
 */
export function createPostgresApprovalRows({ db, tables }: Pick<PostgresStoreContext, "db" | "tables">): ApprovalRows {
  const { approvalRequests: requests, approvalDecisions: decisions, approvalAudit: audit } = tables;
  const changed = (rows: unknown[]) => rows.length > 0;
  // The last entry of each chain this handle appended (at most REMEMBERED_CHAINS). Entries are
  // never updated, so "after it" is right unless another handle appended since: the insert says.
  const lastAppended = new Map<string, ApprovalAuditRow>();
  const standingScope = (sessionId: string | null) => (sessionId === null ? eq(decisions.scope, "always") : or(eq(decisions.scope, "always"), and(eq(decisions.scope, "session"), eq(decisions.sessionId, sessionId))));
  /**
   * Writes what `next` builds after the chain's end (as this handle last saw it, else read), all
   * or none: the `(tenant, seq)` key fails the write when another writer took a number, and then
   * the end is read again and `next` rebuilds.
   */
  async function appendChain({ tenant, next }: ApprovalAuditAppend, write: (rows: ApprovalAuditRow[]) => Promise<void>): Promise<ApprovalAuditRow[]> {
    for (let attempt = 0; attempt < APPEND_ATTEMPTS; attempt++) {
      const rows = next(lastAppended.get(tenant) ?? (await db.select().from(audit).where(eq(audit.tenant, tenant)).orderBy(desc(audit.seq)).limit(1))[0] ?? null);
      lastAppended.delete(tenant);
      try {
        await write(rows);
      } catch (error) {
        if ((driverFault(error) as { code?: string } | null)?.code === UNIQUE_VIOLATION) continue;
        throw error;
      }
      if (rows.length > 0 && lastAppended.size < REMEMBERED_CHAINS) lastAppended.set(tenant, rows.at(-1)!);
      return rows;
    }
    throw new Error(`the audit chain of ${tenant} kept moving: ${APPEND_ATTEMPTS} appends lost to other writers`);
  }
  const bindingOf = ({ tenant, toolId, argumentsHash, policyVersion, sessionId }: ApprovalBinding) =>
    and(eq(decisions.tenant, tenant), eq(decisions.toolId, toolId), eq(decisions.argumentsHash, argumentsHash), eq(decisions.policyVersion, policyVersion), standingScope(sessionId));
  return {
    async insertRequest(row, append) {
      const insert = db.insert(requests).values(row).onConflictDoNothing();
      if (!append) return changed(await insert.returning({ id: requests.id }));
      let inserted = false;
      // One statement: the entries go in only when the request did (drizzle has no INSERT … SELECT
      // over a data-modifying WITH, hence the template; every value is a parameter).
      await appendChain(append, async (rows) => {
        const entries = JSON.stringify(rows.map(({ requestId, prevHash, ...row }) => ({ ...row, request_id: requestId, prev_hash: prevHash })));
        const result = await db.execute(sql`with inserted as (${insert.returning({ id: requests.id }).getSQL()}) insert into ${audit} select * from json_populate_recordset(null::${audit}, ${entries}::json) where exists (select 1 from inserted)`);
        inserted = (result.rowCount ?? 0) > 0;
      });
      return inserted;
    },
    rebindRequest: async ({ id, ...row }) =>
      changed(await db.update(requests).set(row).where(and(eq(requests.id, id), or(ne(requests.argumentsHash, row.argumentsHash), ne(requests.policyVersion, row.policyVersion)))).returning({ id: requests.id })),
    request: async (id) => (await db.select().from(requests).where(eq(requests.id, id)).limit(1))[0] ?? null,
    settleRequest: async (id, state) => changed(await db.update(requests).set({ state }).where(and(eq(requests.id, id), eq(requests.state, "pending"))).returning({ id: requests.id })),
    escalateRequest: async (id, at, expiresAt) =>
      changed(await db.update(requests).set({ escalatedAt: at, expiresAt, dueAt: expiresAt }).where(and(eq(requests.id, id), eq(requests.state, "pending"), isNull(requests.escalatedAt))).returning({ id: requests.id })),
    dueRequests: (now, limit) => db.select().from(requests).where(and(eq(requests.state, "pending"), lte(requests.dueAt, now))).orderBy(asc(requests.dueAt)).limit(limit),
    insertDecision: async (row) => (await db.insert(decisions).values(row).onConflictDoNothing().returning({ id: decisions.id })).length === 1,
    decisionOf: async (requestId) => (await db.select().from(decisions).where(eq(decisions.requestId, requestId)).orderBy(desc(decisions.decidedAt), desc(decisions.id)).limit(1))[0] ?? null,
    standing: async (binding) => (await db.select().from(decisions).where(bindingOf(binding)).orderBy(desc(decisions.decidedAt), desc(decisions.id)).limit(1))[0] ?? null,
    useOnce: async (id, requestId, at) =>
      changed(await db.update(decisions).set({ usedAt: at, usedBy: requestId }).where(and(eq(decisions.id, id), eq(decisions.scope, "once"), isNull(decisions.usedAt))).returning({ id: decisions.id })),
    appendAudit: (append) => appendChain(append, async (rows) => void (await db.insert(audit).values(rows))),
    audit: (tenant, afterSeq, limit) => db.select().from(audit).where(and(eq(audit.tenant, tenant), gt(audit.seq, afterSeq))).orderBy(asc(audit.seq)).limit(limit),
    auditTenants: async () => (await db.selectDistinct({ tenant: audit.tenant }).from(audit).orderBy(asc(audit.tenant))).map((row) => row.tenant),
  };
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
  const connection = await openPostgres(options);
  const state = { closed: false };
  return createApprovalStore(createPostgresApprovalRows({ db: connection.db, tables: connection.tables }), createKeySecrets().digest, postgresCall(state), async () => {
    if (state.closed) return;
    state.closed = true;
    await connection.release();
  });
}
