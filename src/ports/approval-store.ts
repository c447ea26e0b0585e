import type { DecisionAnswerer } from "../domain/agent/decision-answerer.js";
import type { ApprovalAuditEntry, ApprovalAuditKind } from "../domain/approvals/audit-chain.js";
import type { ApprovalVerdict } from "../domain/approvals/policy.js";
import type { JsonObject } from "../domain/json.js";

/** Who asked for a call (GOV-1): a remote principal's tenant and subject, or null for a local run. */
export interface ApprovalRequester {
  tenant: string;
  subject: string;
}

/** A governed approval request (GOV-1): what was asked, under which policy version, by whom, until when. */
export interface ApprovalRequestRecord {
  /** The gate's request id (stable per run and tool call). */
  id: string;
  /** The tenant key the request belongs to (`local` for a run without a remote principal). */
  tenant: string;
  runId: string;
  sessionId: string | null;
  toolId: string;
  /** SHA-256 (hex) of the canonical JSON of the arguments. */
  argumentsHash: string;
  policyVersion: string;
  requestedBy: ApprovalRequester | null;
  createdAt: number;
  /** When the request expires unanswered (ms since epoch). */
  expiresAt: number;
  /** `pending` until decided, or `expired` (never both): the state changes once, conditionally. */
  state: "pending" | "decided" | "expired";
  /** The policy's verdict when the request was made (its approvers, expiry action, escalation). */
  verdict: ApprovalVerdict;
  /** When the request was escalated, or null. */
  escalatedAt: number | null;
}

/** How far a decision reaches (GOV-1/GOV-5); always bound to the same tool, argument hash and policy version. */
export type ApprovalScope = "once" | "session" | "always";

/** A decision on a request (GOV-1). */
export interface ApprovalDecisionRecord {
  id: string;
  requestId: string;
  tenant: string;
  toolId: string;
  argumentsHash: string;
  policyVersion: string;
  sessionId: string | null;
  outcome: "approved" | "denied";
  scope: ApprovalScope;
  approver: DecisionAnswerer;
  reason: string | null;
  decidedAt: number;
  /** When a `once` decision was used (null: unused; `session`/`always` decisions are never marked). */
  usedAt: number | null;
  /** Which request used it. */
  usedBy: string | null;
}

/** What a standing (`session` or `always`) decision must match. */
export interface ApprovalBinding {
  tenant: string;
  toolId: string;
  argumentsHash: string;
  policyVersion: string;
  sessionId: string | null;
}

/** The standing decision a new request is written with (GOV-5): see {@link ApprovalStore.createRequest}. */
export interface ApprovalCover {
  /** The binding whose standing decision ({@link ApprovalStore.standingDecision}) is read with the insert. */
  binding: ApprovalBinding;
  /** The entries appended after the request's own when the binding has that decision (an approval's use). */
  entries(standing: ApprovalDecisionRecord): readonly ApprovalAuditInput[];
}

/** An entry to append to a tenant's audit chain; the store numbers and hashes it. */
export interface ApprovalAuditInput {
  tenant: string;
  at: number;
  kind: ApprovalAuditKind;
  requestId: string | null;
  data: JsonObject;
}

/**
 * The approval store port (GOV-1/5/7): requests, decisions and the per-tenant audit chain. Every
 * method rejects with `storage_failure` on adapter faults. Several hosts may share one store
 * (SQLite file, PostgreSQL database): the conditional methods are atomic across them.
 */
export interface ApprovalStore {
  /**
   * Inserts the request unless one with its id exists; returns the stored one (the first writer's)
   * and whether this call wrote it. `audit` (entries of the request's tenant, else
   * `input_validation`) is appended to the chain in order, in the same atomic unit as the insert
   * and only when this call wrote it: nobody sees the request without them, nor them without it.
   * With `cover`, the binding's standing decision is read in that unit too and returned as
   * `standing`, and the entries `cover` gives for it are appended after `audit`'s.
   */
  createRequest(record: ApprovalRequestRecord, audit?: readonly ApprovalAuditInput[], cover?: ApprovalCover): Promise<{ request: ApprovalRequestRecord; created: boolean; standing?: ApprovalDecisionRecord | null }>;
  /**
   * Replaces a request whose argument hash or policy version differs from `record`'s (GOV-5: it
   * is asked again, pending, under the new binding); true only for the caller that replaced it.
   */
  rebindRequest(record: ApprovalRequestRecord): Promise<boolean>;
  /** The request, or null. */
  request(id: string): Promise<ApprovalRequestRecord | null>;
  /** Moves a `pending` request to `state`; true only for the one caller that moved it. */
  settleRequest(id: string, state: "decided" | "expired"): Promise<boolean>;
  /** Sets `escalatedAt` and the new `expiresAt` of a pending request not escalated yet; true only for the caller that did. */
  escalateRequest(id: string, at: number, expiresAt: number): Promise<boolean>;
  /**
   * Pending requests that need a step at `now` (GOV-3): escalation after its wait, or expiry;
   * oldest due first, at most `limit`. An indexed query, never a scan of every request; a
   * request stays due until a conditional method (`escalateRequest`, `settleRequest`) moves it.
   */
  dueRequests(now: number, limit: number): Promise<ApprovalRequestRecord[]>;
  /** Inserts a decision (ids are unique; a duplicate rejects with `conflict`). */
  addDecision(record: ApprovalDecisionRecord): Promise<void>;
  /** The newest decision made on the request itself, or null. */
  decisionOf(requestId: string): Promise<ApprovalDecisionRecord | null>;
  /**
   * The newest standing decision for the binding: scope `always` with the same tenant, tool,
   * argument hash and policy version, or scope `session` with the same session too; null when none.
   */
  standingDecision(binding: ApprovalBinding): Promise<ApprovalDecisionRecord | null>;
  /** Marks an unused `once` decision used by `requestId` (`UPDATE … WHERE used_at IS NULL`); true only for the one caller that did. */
  useOnce(decisionId: string, requestId: string, at: number): Promise<boolean>;
  /** Appends to the tenant's chain (numbered after its last entry, atomically across hosts) and returns the entry. */
  appendAudit(entry: ApprovalAuditInput): Promise<ApprovalAuditEntry>;
  /** The tenant's entries by `seq`, from `afterSeq` (exclusive), at most `limit` (default all). */
  audit(tenant: string, options?: { afterSeq?: number; limit?: number }): Promise<ApprovalAuditEntry[]>;
  /** The tenants with audit entries, sorted. */
  auditTenants(): Promise<string[]>;
  /** Releases the store; idempotent. */
  close(): Promise<void>;
}
