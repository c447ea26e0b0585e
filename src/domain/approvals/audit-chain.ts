/**
 * GOV-7: the approval audit log is a hash chain per tenant. Each entry carries the hash of the one
 * before it (the first: {@link AUDIT_GENESIS}) and its own hash over its canonical content, so a
 * changed, removed or reordered entry breaks the chain where it happened. The digest (SHA-256) is
 * supplied by the caller: the domain does no hashing of its own.
 */
import type { JsonObject } from "../json.js";
import { canonicalJson } from "../stable-hash.js";

/** What the log records. */
export type ApprovalAuditKind = "request" | "decision" | "expiry" | "escalation" | "use";

/** One entry of a tenant's audit chain. `seq` counts from 1 without gaps. */
export interface ApprovalAuditEntry {
  tenant: string;
  seq: number;
  at: number;
  kind: ApprovalAuditKind;
  requestId: string | null;
  data: JsonObject;
  prevHash: string;
  hash: string;
}

/** The `prevHash` of a tenant's first entry. */
export const AUDIT_GENESIS = "0".repeat(64);

/** A digest of text as lowercase hex (SHA-256 in every adapter). */
export type AuditDigest = (text: string) => string;

/**
 * The hash of an entry: the digest of its canonical JSON without `hash`.
 *
 * @example
 * const hash = auditEntryHash({ tenant, seq: 1, at, kind: "request", requestId, data, prevHash: AUDIT_GENESIS }, sha256);
 */
export function auditEntryHash(entry: Omit<ApprovalAuditEntry, "hash">, digest: AuditDigest): string {
  const { tenant, seq, at, kind, requestId, data, prevHash } = entry;
  return digest(canonicalJson({ tenant, seq, at, kind, requestId, data, prevHash }));
}

/**
 * The entry that follows `previous` (null: the tenant's first), hashed.
 *
 * @example
 * const next = nextAuditEntry(last, { tenant, at, kind: "use", requestId, data: {} }, sha256);
 */
export function nextAuditEntry(previous: Pick<ApprovalAuditEntry, "seq" | "hash"> | null, entry: Pick<ApprovalAuditEntry, "tenant" | "at" | "kind" | "requestId" | "data">, digest: AuditDigest): ApprovalAuditEntry {
  const unhashed = { ...entry, seq: (previous?.seq ?? 0) + 1, prevHash: previous?.hash ?? AUDIT_GENESIS };
  return { ...unhashed, hash: auditEntryHash(unhashed, digest) };
}

/** What {@link verifyAuditChain} found. */
export type AuditVerification =
  | { ok: true; entries: number; tenants: number }
  | { ok: false; tenant: string; seq: number; problem: "changed" | "removed" | "reordered"; message: string };

/**
 * Checks the chains of the entries in the order given (several tenants may be interleaved; each
 * tenant's entries must follow one another by `seq` from 1): the first break is reported as a
 * `changed` entry (its hash is not its content's), a `removed` one (a gap) or `reordered` ones.
 *
 * @example
 * const result = verifyAuditChain(lines.map((line) => JSON.parse(line)), sha256);
 * if (!result.ok) console.error(result.message);
 */
export function verifyAuditChain(entries: readonly ApprovalAuditEntry[], digest: AuditDigest): AuditVerification {
  const last = new Map<string, { seq: number; hash: string }>();
  const seqsOf = new Map<string, Set<number>>();
  for (const entry of entries) {
    if (!seqsOf.has(entry.tenant)) seqsOf.set(entry.tenant, new Set());
    seqsOf.get(entry.tenant)!.add(entry.seq);
  }
  for (const entry of entries) {
    const before = last.get(entry.tenant);
    const expectedSeq = (before?.seq ?? 0) + 1;
    const fail = (problem: "changed" | "removed" | "reordered", why: string): AuditVerification => ({ ok: false, tenant: entry.tenant, seq: entry.seq, problem, message: `[steamharness] [audit] tenant ${entry.tenant}, entry ${entry.seq}: ${why}` });
    if (auditEntryHash(entry, digest) !== entry.hash) return fail("changed", "its hash does not match its content (the entry was changed)");
    if (entry.seq !== expectedSeq) {
      return seqsOf.get(entry.tenant)!.has(expectedSeq) && entry.seq > expectedSeq
        ? fail("reordered", `found where entry ${expectedSeq} belongs (entries were reordered)`)
        : entry.seq < expectedSeq
          ? fail("reordered", `found after entry ${expectedSeq - 1} (entries were reordered)`)
          : fail("removed", `entry ${expectedSeq} is missing (removed)`);
    }
    if (entry.prevHash !== (before?.hash ?? AUDIT_GENESIS)) return fail("changed", "it does not carry the hash of the entry before it (the chain was rewritten)");
    last.set(entry.tenant, { seq: entry.seq, hash: entry.hash });
  }
  return { ok: true, entries: entries.length, tenants: last.size };
}
