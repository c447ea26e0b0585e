import { SteamharnessError } from "../../../domain/errors.js";
/**
 * The approval store written once (GOV-1/5/7, ARCH-3): records ↔ rows, the audit chain's
 * numbering and hashing; SQLite (also in memory) and PostgreSQL only read, write and conditionally update
 * rows (the single use of a `once` decision is their `UPDATE … WHERE used_at IS NULL`).
 */
import { nextAuditEntry, type ApprovalAuditEntry, type AuditDigest } from "../../../domain/approvals/audit-chain.js";
import type { ApprovalVerdict } from "../../../domain/approvals/policy.js";
import type { JsonObject } from "../../../domain/json.js";
import type { ApprovalAuditInput, ApprovalBinding, ApprovalCover, ApprovalDecisionRecord, ApprovalRequestRecord, ApprovalStore } from "../../../ports/approval-store.js";
import type { Awaitable } from "./store-call.js";
import { drive, then, type Sql, type SqlDriver, type SqlStatement, type SqlSteps, type SqlStore } from "./sql-driver.js";

const conflict = (id: string): never => {
  throw new SteamharnessError("conflict", `[steamharness] [approvals] a decision ${id} exists already`, { data: { decisionId: id } });
};

/** A request row: `requestedBy` and `verdict` as JSON text. */
export interface ApprovalRequestRow {
  id: string; tenant: string; runId: string; sessionId: string | null; toolId: string; argumentsHash: string; policyVersion: string;
  requestedBy: string | null; createdAt: number; expiresAt: number; state: string; verdict: string; escalatedAt: number | null;
  /** When the request next needs a step: its escalation (while not escalated) or its expiry, whichever is first. */
  dueAt: number;
}

/** A decision row: `approver` as JSON text. */
export interface ApprovalDecisionRow {
  id: string; requestId: string; tenant: string; toolId: string; argumentsHash: string; policyVersion: string; sessionId: string | null;
  outcome: string; scope: string; approver: string; reason: string | null; decidedAt: number; usedAt: number | null; usedBy: string | null;
}

/** An audit row: `data` as JSON text (hashed canonically, so the dialect's JSON form never matters). */
export interface ApprovalAuditRow {
  tenant: string; seq: number; at: number; kind: string; requestId: string | null; data: string; prevHash: string; hash: string;
}

/**
 * Audit rows to append to `tenant`'s chain: `next` builds them from the chain's last row (and a
 * new request's standing decision, when it is read with the request). A driver that guesses
 * either calls `next` again after a guess proved wrong (a number another writer took).
 */
export interface ApprovalAuditAppend {
  tenant: string;
  next(last: ApprovalAuditRow | null, standing: ApprovalDecisionRow | null): ApprovalAuditRow[];
}

/** What a request's write checks in its atomic unit: the binding's standing decision is still `id` (null: none). */
export type ApprovalStandingCheck = { binding: ApprovalBinding; id: string | null };

/** A dialect's own write of a request with its audit rows (see {@link createApprovalStore}): true when it inserted the request, `"stale"` when `check` failed. */
export type ApprovalRequestWrite = (row: ApprovalRequestRow, audit: ApprovalAuditRow[], check?: ApprovalStandingCheck) => Awaitable<boolean | "stale">;

/**
 * The newest decision a binding reaches: an `always` one, or a `session` one of the same session
 * (none for a null session: `= NULL` is never true). On a gated call's path: SQLite prepares it
 * once; PostgreSQL reads it inside its request statement.
 */
export const STANDING: SqlStatement<Pick<ApprovalBinding, keyof ApprovalBinding>> = { mode: "get", build: ({ db, tables: { approvalDecisions: d }, ops: { and, desc, eq, or } }, p) => db.select().from(d).where(and(eq(d.tenant, p("tenant")), eq(d.toolId, p("toolId")), eq(d.argumentsHash, p("argumentsHash")), eq(d.policyVersion, p("policyVersion")), or(eq(d.scope, "always"), and(eq(d.scope, "session"), eq(d.sessionId, p("sessionId")))))).orderBy(desc(d.decidedAt), desc(d.id)).limit(1) };

const LAST: SqlStatement<{ tenant: string }> = { mode: "get", build: ({ db, tables: { approvalAudit: a }, ops: { desc, eq } }, p) => db.select().from(a).where(eq(a.tenant, p("tenant"))).orderBy(desc(a.seq)).limit(1) };
const APPEND: SqlStatement<Pick<ApprovalAuditRow, keyof ApprovalAuditRow>> = { mode: "run", build: ({ db, tables: { approvalAudit: a } }, p) => db.insert(a).values({ tenant: p("tenant"), seq: p("seq"), at: p("at"), kind: p("kind"), requestId: p("requestId"), data: p("data"), prevHash: p("prevHash"), hash: p("hash") }) };
const INSERT_REQUEST: SqlStatement<Pick<ApprovalRequestRow, keyof ApprovalRequestRow>> = { mode: "run", build: ({ db, tables: { approvalRequests: r } }, p) => db.insert(r).values(Object.fromEntries(["id", "tenant", "runId", "sessionId", "toolId", "argumentsHash", "policyVersion", "requestedBy", "createdAt", "expiresAt", "state", "verdict", "escalatedAt", "dueAt"].map((key) => [key, p(key as keyof ApprovalRequestRow)]))).onConflictDoNothing() };

/** Appends one call may lose to other writers before it gives up (each loss is another's success). */
const APPEND_ATTEMPTS = 50;
/** Chains whose end, and bindings whose standing decision, a handle remembers (a host serves a bounded set at a time). */
const REMEMBERED_CHAINS = 1024;

/**
 * The approval rows of both SQL dialects (ARCH-8). An audit append is written after the chain's
 * end as this handle last saw it (read once per chain; entries are never updated or pruned), with
 * no lock and no read on the call path: the `(tenant, seq)` key refuses an entry whose number
 * another handle or host took, and the loser reads the chain's end again and retries. So one
 * append is one statement (SQLite: one autocommit `INSERT`), and a request with its entries one
 * write: by default one transaction; `writeRequest` is a dialect's own (PostgreSQL: one statement),
 * writing the request row and, only when it inserted it, its entries, true when it did. A new
 * request's standing decision is guessed the same way: the write goes ahead only while the
 * binding's newest standing decision is the one this handle last saw (decisions are never
 * updated but for a `once` one's use, which is never standing), else it writes nothing and says
 * `"stale"`, and the call reads the decision and writes again: a gated call is one round trip.
 */
function sqlApprovalRows(on: SqlDriver, writeRequest?: ApprovalRequestWrite) {
  const { db, ops: { and, asc, desc, eq, gt, isNull, lte, ne, or }, tables: { approvalRequests: requests, approvalDecisions: decisions, approvalAudit: audit } } = on;
  const changed = (query: Sql) => then(on.run(query), (count) => count > 0);
  // The last entry of each chain this handle wrote (at most REMEMBERED_CHAINS): right unless
  // another handle appended since, which the key says.
  const ends = new Map<string, ApprovalAuditRow>();
  // The newest standing decision of each binding this handle read (at most REMEMBERED_CHAINS): right
  // unless a decision was added since, which the request's write checks.
  const standings = new Map<string, ApprovalDecisionRow | null>();
  // `write` the rows `next` builds after the chain's end (and `binding`'s standing decision); rows
  // null when it wrote nothing (a request that existed).
  function* appendChain({ tenant, next }: ApprovalAuditAppend, write: (rows: ApprovalAuditRow[], check?: ApprovalStandingCheck) => Awaitable<boolean | "stale">, binding?: ApprovalBinding): SqlSteps<{ rows: ApprovalAuditRow[] | null; standing: ApprovalDecisionRow | null }> {
    // A key that two bindings shared would cost a retry, never a wrong answer: the write checks the guess.
    const key = binding && Object.values(binding).join("\0");
    for (let attempt = 0; attempt < APPEND_ATTEMPTS; attempt++) {
      const last = ends.get(tenant) ?? (((yield on.execute(LAST, { tenant })) as ApprovalAuditRow | undefined) ?? null);
      // The guess on the first attempt only: a retry reads the decision again (it may be why the write failed).
      const standing = key === undefined ? null : attempt === 0 && standings.has(key) ? standings.get(key)! : (((yield on.execute(STANDING, binding!)) as ApprovalDecisionRow | undefined) ?? null);
      const rows = next(last, standing);
      ends.delete(tenant);
      let written: boolean | "stale";
      try {
        written = (yield write(rows, binding && { binding, id: standing?.id ?? null })) as boolean | "stale";
      } catch (error) {
        if (on.isUniqueViolation(error)) continue;
        throw error;
      }
      if (written === "stale") continue;
      // The oldest binding makes room (a Map iterates in insertion order).
      if (key !== undefined && standings.set(key, standing).size > REMEMBERED_CHAINS) standings.delete(standings.keys().next().value!);
      if (written && ends.size < REMEMBERED_CHAINS) ends.set(tenant, rows.at(-1)!);
      return { rows: written ? rows : null, standing };
    }
    throw new Error(`the audit chain of ${tenant} kept moving: ${APPEND_ATTEMPTS} appends lost to other writers`);
  }
  // A request (only one not there yet) with its entries, all or none, while `check` holds; an entry alone is one autocommit statement.
  const write = (request: ApprovalRequestRow | null, rows: ApprovalAuditRow[], check?: ApprovalStandingCheck): Awaitable<boolean | "stale"> =>
    request === null && rows.length === 1 ? then(on.execute(APPEND, rows[0]!), () => true) : on.transaction(function* (tx) {
      if (check && ((((yield tx.execute(STANDING, check.binding)) as ApprovalDecisionRow | undefined)?.id ?? null) !== check.id)) return "stale";
      if (request !== null && ((yield tx.execute(INSERT_REQUEST, request)) as number) === 0) return false;
      for (const row of rows) yield tx.execute(APPEND, row);
      return true;
    });
  return {
    /**
     * Inserts the row unless its id exists (no error then); `inserted` when it did. With `append`,
     * the rows it builds are appended in the same atomic unit, only when the request was inserted
     * (a gated call's one commit: SQLite writes each touched page once, PostgreSQL one statement).
     * With `binding` (and `append`), the binding's standing decision is read in that unit too,
     * returned as `standing` and given to `append.next`.
     */
    insertRequest: (row: ApprovalRequestRow, append?: ApprovalAuditAppend, binding?: ApprovalBinding): Awaitable<{ inserted: boolean; standing: ApprovalDecisionRow | null }> =>
      append
        ? then(drive(appendChain(append, (rows, check) => (writeRequest ?? write)(row, rows, check), binding)), ({ rows, standing }) => ({ inserted: rows !== null, standing }))
        : then(on.execute(INSERT_REQUEST, row), (count: number) => ({ inserted: count > 0, standing: null })),
    /** One atomic step on the tenant's chain: inserts the rows `append.next` builds from its last row, all or none, and returns them. */
    appendAudit: (append: ApprovalAuditAppend) => then(drive(appendChain(append, (rows) => write(null, rows))), ({ rows }) => rows!),
    /** Replaces every field, only of a request of another binding (pending again); true when a row changed. */
    rebindRequest: ({ id, ...row }: ApprovalRequestRow) => changed(db.update(requests).set(row).where(and(eq(requests.id, id), or(ne(requests.argumentsHash, row.argumentsHash), ne(requests.policyVersion, row.policyVersion))))),
    request: (id: string): Awaitable<ApprovalRequestRow | undefined> => on.get(db.select().from(requests).where(eq(requests.id, id)).limit(1)),
    // Each of the conditional updates below is true when a row changed: one caller wins.
    settleRequest: (id: string, state: string) => changed(db.update(requests).set({ state }).where(and(eq(requests.id, id), eq(requests.state, "pending")))),
    escalateRequest: (id: string, at: number, expiresAt: number) => changed(db.update(requests).set({ escalatedAt: at, expiresAt, dueAt: expiresAt }).where(and(eq(requests.id, id), eq(requests.state, "pending"), isNull(requests.escalatedAt)))),
    /** Pending requests due by `now`, soonest first (the `approval_requests_due` index). */
    dueRequests: (now: number, limit: number): Awaitable<ApprovalRequestRow[]> => on.all(db.select().from(requests).where(and(eq(requests.state, "pending"), lte(requests.dueAt, now))).orderBy(asc(requests.dueAt)).limit(limit)),
    /** Inserts the row unless its id exists; true when it was inserted. */
    insertDecision: (row: ApprovalDecisionRow) => changed(db.insert(decisions).values(row).onConflictDoNothing()),
    /** The newest decision of the request (by `decided_at`, then id), or null. */
    decisionOf: (requestId: string): Awaitable<ApprovalDecisionRow | undefined> => on.get(db.select().from(decisions).where(eq(decisions.requestId, requestId)).orderBy(desc(decisions.decidedAt), desc(decisions.id)).limit(1)),
    standing: (binding: ApprovalBinding): Awaitable<ApprovalDecisionRow | undefined> => on.execute(STANDING, binding),
    useOnce: (id: string, requestId: string, at: number) => changed(db.update(decisions).set({ usedAt: at, usedBy: requestId }).where(and(eq(decisions.id, id), eq(decisions.scope, "once"), isNull(decisions.usedAt)))),
    audit: (tenant: string, afterSeq: number, limit: number): Awaitable<ApprovalAuditRow[]> => on.all(db.select().from(audit).where(and(eq(audit.tenant, tenant), gt(audit.seq, afterSeq))).orderBy(asc(audit.seq)).limit(limit)),
    auditTenants: () => then(on.all(db.selectDistinct({ tenant: audit.tenant }).from(audit).orderBy(asc(audit.tenant))), (rows) => rows.map((row) => row.tenant as string)),
  };
}

const requestOf = ({ dueAt: _dueAt, ...row }: ApprovalRequestRow): ApprovalRequestRecord => ({
  ...row,
  requestedBy: row.requestedBy === null ? null : (JSON.parse(row.requestedBy) as ApprovalRequestRecord["requestedBy"]),
  state: row.state as ApprovalRequestRecord["state"],
  verdict: JSON.parse(row.verdict) as ApprovalVerdict,
});
const dueAtOf = ({ verdict, createdAt, expiresAt, escalatedAt }: ApprovalRequestRecord): number =>
  verdict.escalation !== null && escalatedAt === null ? Math.min(createdAt + verdict.escalation.afterMs, expiresAt) : expiresAt;
const requestRow = (record: ApprovalRequestRecord): ApprovalRequestRow => ({ ...record, requestedBy: record.requestedBy === null ? null : JSON.stringify(record.requestedBy), verdict: JSON.stringify(record.verdict), dueAt: dueAtOf(record) });
const decisionOf = (row: ApprovalDecisionRow): ApprovalDecisionRecord => ({
  ...row,
  outcome: row.outcome as ApprovalDecisionRecord["outcome"],
  scope: row.scope as ApprovalDecisionRecord["scope"],
  approver: JSON.parse(row.approver) as ApprovalDecisionRecord["approver"],
});
const orNull = <Row, Record>(row: Row | null | undefined, of: (row: Row) => Record): Record | null => (row ? of(row) : null);
const entryOf = (row: ApprovalAuditRow): ApprovalAuditEntry => ({ ...row, kind: row.kind as ApprovalAuditEntry["kind"], data: JSON.parse(row.data) as JsonObject });

/**
 * The approval store on an open SQL database (its row driver, the family's call and close, see
 * `sqlApprovalRows` above); `digest` (SHA-256 hex) hashes the audit chain; `writeRequest`, a
 * dialect's own write of a request with its entries (PostgreSQL: one statement).
 *
 * @example
 * const store = createApprovalStore(openStoreFile({ directory }), createKeySecrets().digest);
 */
export function createApprovalStore({ driver, call, close }: SqlStore, digest: AuditDigest, writeRequest?: ApprovalRequestWrite): ApprovalStore {
  const rows = sqlApprovalRows(driver, writeRequest);
  // `inputs` (and, for a covered request, `cover`'s entries) after the chain's `last` row, each hashed after the one before.
  const chained = (tenant: string, inputs: readonly ApprovalAuditInput[], cover?: ApprovalCover): ApprovalAuditAppend => ({
    tenant,
    next: (last, standing) => [...inputs, ...(cover && standing ? cover.entries(decisionOf(standing)) : [])].map((input) => (last = { ...nextAuditEntry(last, input, digest), data: JSON.stringify(input.data) })),
  });
  return {
    async createRequest(record, audit = [], cover) {
      const row = requestRow(record);
      if (audit.some((entry) => entry.tenant !== record.tenant)) throw new SteamharnessError("input_validation", "[steamharness] [approvals] a request's audit entries belong to its tenant", { field: "audit" });
      // The row just inserted is the record itself: only a request that existed is read back.
      return call("approval request create", async () => {
        const { inserted, standing } = await rows.insertRequest(row, audit.length > 0 || cover ? chained(record.tenant, audit, cover) : undefined, cover?.binding);
        return { request: requestOf((inserted ? row : await rows.request(record.id)) ?? row), created: inserted, ...(cover ? { standing: orNull(standing, decisionOf) } : {}) };
      });
    },
    rebindRequest: (record) => call("approval request rebind", () => rows.rebindRequest(requestRow(record))),
    request: async (id) => orNull(await call("approval request read", () => rows.request(id)), requestOf),
    settleRequest: (id, state) => call("approval request settle", () => rows.settleRequest(id, state)),
    escalateRequest: (id, at, expiresAt) => call("approval request escalate", () => rows.escalateRequest(id, at, expiresAt)),
    dueRequests: async (now, limit) => (await call("approval requests due", () => rows.dueRequests(now, limit))).map(requestOf),
    // The port's promise: a duplicate id is the caller's `conflict`, the same on every driver.
    addDecision: async (record) => void ((await call("approval decision add", () => rows.insertDecision({ ...record, approver: JSON.stringify(record.approver) }))) || conflict(record.id)),
    decisionOf: async (requestId) => orNull(await call("approval decision read", () => rows.decisionOf(requestId)), decisionOf),
    standingDecision: async (binding) => orNull(await call("approval decision standing", () => rows.standing(binding)), decisionOf),
    useOnce: (id, requestId, at) => call("approval decision use", () => rows.useOnce(id, requestId, at)),
    // The entry's data is the input's, not a parse of the text just serialised from it.
    appendAudit: async (input) => ({ ...(await call("approval audit append", () => rows.appendAudit(chained(input.tenant, [input]))))[0]!, kind: input.kind, data: input.data }),
    audit: async (tenant, options = {}) => (await call("approval audit read", () => rows.audit(tenant, options.afterSeq ?? 0, options.limit ?? Number.MAX_SAFE_INTEGER))).map(entryOf),
    auditTenants: () => call("approval audit tenants", () => rows.auditTenants()),
    close,
  };
}
