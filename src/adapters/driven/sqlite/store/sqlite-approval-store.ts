import type { ApprovalBinding, ApprovalStore } from "../../../../ports/approval-store.js";
import { createApprovalStore, type ApprovalAuditAppend, type ApprovalAuditRow, type ApprovalRows } from "../../kernel/approval-store.js";
import { createKeySecrets } from "../../system/key-secrets.js";
import { drizzleOrm } from "../shared/drizzle-modules.js";
import { storeTables } from "./schema.js";
import { openStoreFile, type StoreFileOptions } from "./sqlite-database.js";
import type { SqliteStoreContext } from "./sqlite-kv-store.js";
import { sqliteCall } from "./sqlite-support.js";

/**
 * The approval rows on SQLite (GOV-1/5/7): conditional updates are single statements, and an audit
 * append is a `BEGIN IMMEDIATE` transaction (the file's write lock is taken before the last entry
 * is read), so hosts on one file never number two entries alike. A request inserted with its
 * audit entries is one such transaction: one commit per gated call, each touched page written to
 * the WAL once (fewer frames, so fewer checkpoints on the call path).
 *
 * @example
 * const rows = createSqliteApprovalRows(context);
 */
export function createSqliteApprovalRows({ db }: Pick<SqliteStoreContext, "db">): ApprovalRows {
  const { and, asc, desc, eq, getTableColumns, gt, isNull, lte, ne, or, sql } = drizzleOrm();
  const { approvalRequests: requests, approvalDecisions: decisions, approvalAudit: audit } = storeTables();
  const p = sql.placeholder;
  // Prepared once: a gated call's insert, decision reads and audit appends are on every gated
  // call's path (issue 47's benchmark); building and preparing them per call was most of its CPU.
  const requestById = db.select().from(requests).where(eq(requests.id, p("id"))).prepare();
  const requestColumns = getTableColumns(requests);
  const everyColumn = Object.fromEntries(Object.keys(requestColumns).map((key) => [key, p(key)])) as { [K in keyof typeof requestColumns]: ReturnType<typeof p> };
  const insertRequest = db.insert(requests).values(everyColumn).onConflictDoNothing().prepare();
  const newestOf = (where: ReturnType<typeof and>) => db.select().from(decisions).where(where).orderBy(desc(decisions.decidedAt), desc(decisions.id)).limit(1).prepare();
  const decisionOfRequest = newestOf(eq(decisions.requestId, p("requestId")));
  // The decisions a binding reaches: `always` ones, and `session` ones of the same session.
  const sameCall = and(eq(decisions.tenant, p("tenant")), eq(decisions.toolId, p("toolId")), eq(decisions.argumentsHash, p("argumentsHash")), eq(decisions.policyVersion, p("policyVersion")));
  const standingAlways = newestOf(and(sameCall, eq(decisions.scope, "always")));
  const standingInSession = newestOf(and(sameCall, or(eq(decisions.scope, "always"), and(eq(decisions.scope, "session"), eq(decisions.sessionId, p("sessionId"))))));
  const lastOf = db.select().from(audit).where(eq(audit.tenant, p("tenant"))).orderBy(desc(audit.seq)).limit(1).prepare();
  const appendRow = db.insert(audit).values({ tenant: p("tenant"), seq: p("seq"), at: p("at"), kind: p("kind"), requestId: p("requestId"), data: p("data"), prevHash: p("prevHash"), hash: p("hash") }).prepare();
  // Inside a transaction that holds the file's write lock, so the last entry read is the chain's end.
  const appendLocked = ({ tenant, next }: ApprovalAuditAppend): ApprovalAuditRow[] => {
    const rows = next(lastOf.get({ tenant }) ?? null);
    for (const row of rows) appendRow.run({ ...row });
    return rows;
  };
  return {
    insertRequest: (row, append) =>
      append
        ? db.transaction(() => insertRequest.run({ ...row }).changes > 0 && (appendLocked(append), true), { behavior: "immediate" })
        : insertRequest.run({ ...row }).changes > 0,
    rebindRequest: ({ id, ...row }) => db.update(requests).set(row).where(and(eq(requests.id, id), or(ne(requests.argumentsHash, row.argumentsHash), ne(requests.policyVersion, row.policyVersion)))).run().changes > 0,
    request: (id) => requestById.get({ id }) ?? null,
    settleRequest: (id, state) => db.update(requests).set({ state }).where(and(eq(requests.id, id), eq(requests.state, "pending"))).run().changes > 0,
    escalateRequest: (id, at, expiresAt) => db.update(requests).set({ escalatedAt: at, expiresAt, dueAt: expiresAt }).where(and(eq(requests.id, id), eq(requests.state, "pending"), isNull(requests.escalatedAt))).run().changes > 0,
    dueRequests: (now, limit) => db.select().from(requests).where(and(eq(requests.state, "pending"), lte(requests.dueAt, now))).orderBy(asc(requests.dueAt)).limit(limit).all(),
    insertDecision: (row) => db.insert(decisions).values(row).onConflictDoNothing().run().changes === 1,
    decisionOf: (requestId) => decisionOfRequest.get({ requestId }) ?? null,
    standing: ({ sessionId, ...binding }: ApprovalBinding) => (sessionId === null ? standingAlways.get(binding) : standingInSession.get({ ...binding, sessionId })) ?? null,
    useOnce: (id, requestId, at) => db.update(decisions).set({ usedAt: at, usedBy: requestId }).where(and(eq(decisions.id, id), eq(decisions.scope, "once"), isNull(decisions.usedAt))).run().changes > 0,
    appendAudit: (append) => db.transaction(() => appendLocked(append), { behavior: "immediate" }),
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
