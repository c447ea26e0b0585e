import type { ApprovalBinding, ApprovalStore } from "../../../../ports/approval-store.js";
import { createApprovalStore, type ApprovalRows } from "../../kernel/approval-store.js";
import { createKeySecrets } from "../../system/key-secrets.js";
import { drizzleOrm } from "../shared/drizzle-modules.js";
import { storeTables } from "./schema.js";
import { openStoreFile, type StoreFileOptions } from "./sqlite-database.js";
import type { SqliteStoreContext } from "./sqlite-kv-store.js";
import { sqliteCall } from "./sqlite-support.js";

/**
 * The approval rows on SQLite (GOV-1/5/7): conditional updates are single statements, and an audit
 * append is a `BEGIN IMMEDIATE` transaction (the file's write lock is taken before the last entry
 * is read), so hosts on one file never number two entries alike.
 *
 * @example
 * const rows = createSqliteApprovalRows(context);
 */
export function createSqliteApprovalRows({ db }: Pick<SqliteStoreContext, "db">): ApprovalRows {
  const { and, asc, desc, eq, gt, isNull, lte, ne, or, sql } = drizzleOrm();
  const { approvalRequests: requests, approvalDecisions: decisions, approvalAudit: audit } = storeTables();
  const p = sql.placeholder;
  const requestById = db.select().from(requests).where(eq(requests.id, p("id"))).prepare();
  // The decisions a binding reaches: `always` ones, and `session` ones of the same session.
  const bindingOf = (b: ApprovalBinding) => {
    const sameCall = and(eq(decisions.tenant, b.tenant), eq(decisions.toolId, b.toolId), eq(decisions.argumentsHash, b.argumentsHash), eq(decisions.policyVersion, b.policyVersion));
    return and(sameCall, b.sessionId === null ? eq(decisions.scope, "always") : or(eq(decisions.scope, "always"), and(eq(decisions.scope, "session"), eq(decisions.sessionId, b.sessionId))));
  };
  const lastOf = db.select().from(audit).where(eq(audit.tenant, p("tenant"))).orderBy(desc(audit.seq)).limit(1).prepare();
  // Prepared once: an audit append is on every gated call's path (issue 47's benchmark).
  const appendRow = db.insert(audit).values({ tenant: p("tenant"), seq: p("seq"), at: p("at"), kind: p("kind"), requestId: p("requestId"), data: p("data"), prevHash: p("prevHash"), hash: p("hash") }).prepare();
  return {
    insertRequest: (row) => db.insert(requests).values(row).onConflictDoNothing().run().changes > 0,
    rebindRequest: ({ id, ...row }) => db.update(requests).set(row).where(and(eq(requests.id, id), or(ne(requests.argumentsHash, row.argumentsHash), ne(requests.policyVersion, row.policyVersion)))).run().changes > 0,
    request: (id) => requestById.get({ id }) ?? null,
    settleRequest: (id, state) => db.update(requests).set({ state }).where(and(eq(requests.id, id), eq(requests.state, "pending"))).run().changes > 0,
    escalateRequest: (id, at, expiresAt) => db.update(requests).set({ escalatedAt: at, expiresAt, dueAt: expiresAt }).where(and(eq(requests.id, id), eq(requests.state, "pending"), isNull(requests.escalatedAt))).run().changes > 0,
    dueRequests: (now, limit) => db.select().from(requests).where(and(eq(requests.state, "pending"), lte(requests.dueAt, now))).orderBy(asc(requests.dueAt)).limit(limit).all(),
    insertDecision: (row) => db.insert(decisions).values(row).onConflictDoNothing().run().changes === 1,
    decisionOf: (requestId) => db.select().from(decisions).where(eq(decisions.requestId, requestId)).orderBy(desc(decisions.decidedAt), desc(decisions.id)).limit(1).get() ?? null,
    standing: (binding) => db.select().from(decisions).where(bindingOf(binding)).orderBy(desc(decisions.decidedAt), desc(decisions.id)).limit(1).get() ?? null,
    useOnce: (id, requestId, at) => db.update(decisions).set({ usedAt: at, usedBy: requestId }).where(and(eq(decisions.id, id), eq(decisions.scope, "once"), isNull(decisions.usedAt))).run().changes > 0,
    appendAudit: (tenant, next) =>
      db.transaction(() => {
        const row = next(lastOf.get({ tenant }) ?? null);
        appendRow.run({ ...row });
        return row;
      }, { behavior: "immediate" }),
    audit: (tenant, afterSeq, limit) => db.select().from(audit).where(and(eq(audit.tenant, tenant), gt(audit.seq, afterSeq))).orderBy(asc(audit.seq)).limit(limit).all(),
    auditTenants: () => db.selectDistinct({ tenant: audit.tenant }).from(audit).orderBy(asc(audit.tenant)).all().map((row) => row.tenant),
  };
}

/** Options of {@link createSqliteApprovalStore}. */
export type SqliteApprovalStoreOptions = StoreFileOptions;

/**
 * The approval store on a SQLite store file (GOV-1/5/7): the same file, migrations and WAL mode as
 * {@link createSqliteStorage}, so every process that opens it shares requests, decisions (a `once`
 * decision is used by one of them only) and the audit chains. Opening faults throw `storage_failure`.
 *
 * @example
 * const store = createSqliteApprovalStore({ directory: "./data/store" });
 * const permissions = createGovernedToolPermissions({ policy, store, clock });
 */
export function createSqliteApprovalStore(options: SqliteApprovalStoreOptions): ApprovalStore {
  const { db, state, close } = openStoreFile(options);
  return createApprovalStore(createSqliteApprovalRows({ db }), createKeySecrets().digest, sqliteCall(state), close);
}
