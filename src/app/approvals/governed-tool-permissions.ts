/**
 * A `ToolPermissions` adapter a security team can sign off (issue 47): the policy decides allow,
 * ask or deny (GOV-6); an `ask` becomes a durable request bound to the call's canonical argument
 * hash and the policy version, with a deadline (GOV-1/5); a decision applies only to that binding,
 * a `once` decision is used by exactly one call across hosts (GOV-5); expiry is its own outcome
 * (GOV-2); only the policy's approvers decide, never the requester (GOV-4); every step is
 * appended to the tenant's audit chain (GOV-7).
 */
import { createHash, randomUUID } from "node:crypto";
import type { DecisionAnswerer } from "../../domain/agent/decision-answerer.js";
import { SteamharnessError } from "../../domain/errors.js";
import type { JsonObject } from "../../domain/json.js";
import { canonicalJson } from "../../domain/stable-hash.js";
import { evaluateApprovalPolicy, isPolicyApprover, parseApprovalPolicy, type ApprovalPolicy, type ApprovalVerdict } from "../../domain/approvals/policy.js";
import type { ApprovalAuditInput, ApprovalDecisionRecord, ApprovalRequestRecord, ApprovalScope, ApprovalStore } from "../../ports/approval-store.js";
import type { ApprovalAuditKind } from "../../domain/approvals/audit-chain.js";
import type { Clock } from "../../ports/clock.js";
import type { TextFiles } from "../../ports/text-files.js";
import type { ToolPermissionDecision, ToolPermissionRequest, ToolPermissions } from "../../ports/tool-permissions.js";

/** A policy with its version: `sha256:` and the hex digest of its canonical JSON. */
export interface VersionedApprovalPolicy {
  policy: ApprovalPolicy;
  version: string;
}

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/**
 * Checks a policy (an object, or its JSON text) and versions it by its canonical content, so an
 * edit that changes nothing but whitespace or key order keeps the version. Bad policy →
 * `input_validation` naming the field.
 *
 * @example
 * const policy = loadApprovalPolicy(readFileSync("examples/approvals/policy.json", "utf8"));
 * policy.version // "sha256:…"
 */
export function loadApprovalPolicy(source: unknown): VersionedApprovalPolicy {
  let value = source;
  if (typeof source === "string") {
    try {
      value = JSON.parse(source);
    } catch (error) {
      throw new SteamharnessError("input_validation", "[steamharness] [approvals] the approval policy is not valid JSON", { field: "/", cause: error });
    }
  }
  const policy = parseApprovalPolicy(value);
  return { policy, version: `sha256:${sha256(canonicalJson(policy))}` };
}

/**
 * The policy file `file`, read through the host's text files and checked by
 * {@link loadApprovalPolicy}. An unreadable file or a bad policy rejects with `input_validation`
 * naming `field` (the surface's flag or option).
 *
 * @example
 * const policy = await readApprovalPolicyFile(textFiles, "/etc/steamharness/policy.json", "--approval-policy");
 */
export async function readApprovalPolicyFile(textFiles: Pick<TextFiles, "read">, file: string, field: string): Promise<VersionedApprovalPolicy> {
  const text = await textFiles.read(file).catch((error: { code?: string; message: string }) => {
    throw new SteamharnessError("input_validation", `${field}: cannot read ${file} (${error.code ?? error.message})`, { field });
  });
  try {
    return loadApprovalPolicy(text);
  } catch (error) {
    throw new SteamharnessError("input_validation", `${field} ${file}: ${(error as Error).message}`, { field, cause: error });
  }
}

/** The call a host hook sees, with the tenant it was resolved to. */
export type GovernedCall = ToolPermissionRequest & { tenant: string };

/** Options of {@link createGovernedToolPermissions}. */
export interface GovernedToolPermissionsOptions {
  /** The policy (checked and versioned by {@link loadApprovalPolicy} when not versioned yet). */
  policy: VersionedApprovalPolicy | ApprovalPolicy;
  store: ApprovalStore;
  clock: Clock;
  /** The tenant of calls without `requestedBy` (default `local`). */
  tenant?: string;
  /** A host's own rule: returns a verdict to replace the policy's, or undefined to keep it (GOV-6). */
  hook?: (call: GovernedCall, verdict: ApprovalVerdict) => ApprovalVerdict | undefined | Promise<ApprovalVerdict | undefined>;
  /** Told when a request is escalated to another approver group (GOV-3); a failure is logged in the audit chain, never thrown. */
  onEscalation?: (request: ApprovalRequestRecord, group: string) => void | Promise<void>;
}

/** A decision a person (or program) gives on a pending request. */
export interface GovernedDecisionInput {
  requestId: string;
  outcome: "approved" | "denied";
  /** Who decides: the surface, and the remote principal's tenant and subject when there is one. */
  approver: DecisionAnswerer;
  /** Default `once`. */
  scope?: ApprovalScope;
  reason?: string;
}

/** The governed adapter: the `ToolPermissions` port plus how decisions are given. */
export interface GovernedToolPermissions extends ToolPermissions {
  /** The policy version in force. */
  readonly policyVersion: string;
  /**
   * Records a decision on a pending request. Rejects with `not_found` (no such request),
   * `approval_expired` (its deadline passed), `forbidden` (the approver is not in the request's
   * approver group or tenant, or approves their own request: `data.rule` says which) or
   * `conflict` (already decided).
   */
  decide(input: GovernedDecisionInput): Promise<ApprovalDecisionRecord>;
  /**
   * Takes every request due now one step (GOV-3): escalates those whose wait has passed (the
   * store's atomic `escalateRequest`, so across hosts each is escalated once, and `onEscalation`
   * runs in the host that did) and records the expiry of those past their deadline. Resolves to
   * how many requests were due; at most `limit` (default 100) per call.
   */
  sweep(limit?: number): Promise<number>;
}

const forbidden = (rule: "approver_group" | "tenant" | "self_approval", message: string, data: Record<string, unknown>) =>
  new SteamharnessError("forbidden", `[steamharness] [approvals] ${message}`, { data: { rule, ...data } });

/**
 * The governed `ToolPermissions` adapter (issue 47) over an approval store.
 *
 * @example
 * const permissions = createGovernedToolPermissions({ policy: loadApprovalPolicy(text), store: createSqliteApprovalStore({ directory }), clock });
 * const context = createNodeContext({ projectId, storage, toolPermissions: permissions });
 * // later, from a surface that knows who decides:
 * await permissions.decide({ requestId, outcome: "approved", approver: { surface: "cli", subject: "alice" } });
 */
export function createGovernedToolPermissions(options: GovernedToolPermissionsOptions): GovernedToolPermissions {
  const { policy, version } = "version" in options.policy && "policy" in options.policy ? options.policy : loadApprovalPolicy(options.policy);
  const { store, clock } = options;
  const entry = (request: Pick<ApprovalRequestRecord, "tenant" | "id">, kind: ApprovalAuditKind, data: JsonObject): ApprovalAuditInput => ({ tenant: request.tenant, at: clock.now(), kind, requestId: request.id, data: { policyVersion: version, ...data } });
  const audit = (request: Pick<ApprovalRequestRecord, "tenant" | "id">, kind: ApprovalAuditKind, data: JsonObject) => store.appendAudit(entry(request, kind, data));
  const requestEntry = (request: ApprovalRequestRecord) =>
    entry(request, "request", { toolId: request.toolId, runId: request.runId, sessionId: request.sessionId, argumentsHash: request.argumentsHash, verdict: "ask", rule: request.verdict.rule, approvers: request.verdict.approvers, expiresAt: request.expiresAt, requestedBy: request.requestedBy === null ? null : { ...request.requestedBy } });
  const useEntry = (request: ApprovalRequestRecord, decision: ApprovalDecisionRecord) => entry(request, "use", { decisionId: decision.id, scope: decision.scope });

  async function escalate(request: ApprovalRequestRecord, at: number, expiresAt: number): Promise<void> {
    const group = request.verdict.escalation!.to;
    if (!(await store.escalateRequest(request.id, at, expiresAt))) return;
    let delivered: JsonObject = { delivered: true };
    try {
      await options.onEscalation?.({ ...request, escalatedAt: at, expiresAt }, group);
    } catch (error) {
      delivered = { delivered: false, error: error instanceof Error ? error.message : String(error) };
    }
    await audit(request, "escalation", { to: group, expiresAt, ...delivered });
  }

  /**
   * What a decision means for this request now: null when it does not apply (another binding, or a
   * used once). `used`: its use is in the audit chain already (appended with the request).
   */
  async function apply(decision: ApprovalDecisionRecord, request: ApprovalRequestRecord, used = false): Promise<ToolPermissionDecision | null> {
    if (decision.argumentsHash !== request.argumentsHash || decision.policyVersion !== request.policyVersion) return null;
    const answeredBy = { ...decision.approver, at: decision.decidedAt };
    if (decision.outcome === "denied") return { outcome: "denied", ...(decision.reason === null ? {} : { reason: decision.reason }), answeredBy };
    if (decision.scope === "once" && !(await store.useOnce(decision.id, request.id, clock.now()))) {
      // Another worker or host took it first (GOV-5): this call is not approved by it.
      return { outcome: "denied", reason: "approval_used: this once-approval was already used by another call", answeredBy };
    }
    if (!used) await store.appendAudit(useEntry(request, decision));
    return { outcome: "approved", answeredBy };
  }

  /**
   * The step time brings an undecided request to at `at`, whoever notices first (a call asking
   * again, or the sweeper): escalation after its wait, or at its deadline when the policy says
   * so; else expiry, recorded once.
   */
  async function advance(request: ApprovalRequestRecord, at: number): Promise<"pending" | "expired"> {
    const escalation = request.verdict.escalation;
    if (request.state === "expired" || at >= request.expiresAt) {
      if (request.state === "pending" && request.verdict.onExpiry === "escalate" && escalation && request.escalatedAt === null) {
        await escalate(request, at, at + request.verdict.expiresAfterMs);
        return "pending";
      }
      if (await store.settleRequest(request.id, "expired")) await audit(request, "expiry", { toolId: request.toolId, then: request.verdict.onExpiry });
      return "expired";
    }
    if (escalation && request.escalatedAt === null && at >= request.createdAt + escalation.afterMs) await escalate(request, at, request.expiresAt);
    return "pending";
  }

  return {
    policyVersion: version,
    async request(call, signal) {
      signal?.throwIfAborted();
      const at = clock.now();
      const tenant = call.requestedBy?.tenant ?? options.tenant ?? "local";
      const policyCall = { toolId: call.toolId, arguments: call.arguments, tenant, at, ...(call.estimatedCost === undefined ? {} : { estimatedCost: call.estimatedCost }) };
      let verdict = evaluateApprovalPolicy(policy, policyCall);
      // No await without a hook: an allowed call's path is the policy and one audit append.
      if (options.hook) verdict = (await options.hook({ ...call, tenant }, verdict)) ?? verdict;
      const argumentsHash = sha256(canonicalJson(call.arguments ?? null));
      if (verdict.action !== "ask") {
        // An allowed or denied call records no request, only its audit entry.
        await audit({ tenant, id: call.requestId }, "request", { toolId: call.toolId, runId: call.runId, argumentsHash, verdict: verdict.action, rule: verdict.rule, requestedBy: call.requestedBy ?? null });
        const answeredBy = { surface: "policy", at };
        return verdict.action === "allow" ? { outcome: "approved", answeredBy } : { outcome: "denied", reason: verdict.reason ?? `the approval policy denies ${call.toolId}`, answeredBy };
      }
      const fresh: ApprovalRequestRecord = {
        id: call.requestId, tenant, runId: call.runId, sessionId: call.sessionId ?? null, toolId: call.toolId, argumentsHash, policyVersion: version,
        requestedBy: call.requestedBy ?? null, createdAt: at, expiresAt: at + verdict.expiresAfterMs, state: "pending", verdict, escalatedAt: null,
      };
      // A new request, its audit entry and (when a standing approval covers it) the use are one
      // unit with the read of the standing decision that covers the call (one commit, one round trip).
      const binding = { tenant, toolId: call.toolId, argumentsHash, policyVersion: version };
      const usedBy = (standing: ApprovalDecisionRecord) => standing.outcome === "approved" && standing.scope !== "once";
      const cover = { binding: { ...binding, sessionId: fresh.sessionId }, entries: (standing: ApprovalDecisionRecord) => (usedBy(standing) ? [useEntry(fresh, standing)] : []) };
      let { request, created, standing: covering = null } = await store.createRequest(fresh, [requestEntry(fresh)], cover);
      const coveredUse = covering !== null && usedBy(covering);
      if (created) {
        // A request this call just inserted has no decision of its own yet (decide() needs the request).
        const outcome = covering && (await apply(covering, request, coveredUse));
        if (outcome) return outcome;
      } else {
        // GOV-5: changed arguments or a newer policy version ask again, under the new binding.
        if (request.argumentsHash !== argumentsHash || request.policyVersion !== version) {
          created = await store.rebindRequest(fresh);
          request = (await store.request(call.requestId)) ?? fresh;
        }
        // The request's audit entry and the two decision reads do not depend on one another: on a
        // networked store they take one round trip's wait instead of three (a use is appended after).
        const [own, standing] = await Promise.all([
          store.decisionOf(request.id),
          request.sessionId === fresh.sessionId ? covering : store.standingDecision({ ...binding, sessionId: request.sessionId }),
          created && store.appendAudit(requestEntry(request)),
        ]);
        const ownOutcome = own && (await apply(own, request));
        if (ownOutcome) return ownOutcome;
        const standingOutcome = standing && (await apply(standing, request));
        if (standingOutcome) return standingOutcome;
      }
      if ((await advance(request, at)) === "pending") return { outcome: "pending" };
      const then = request.verdict.onExpiry;
      return { outcome: "expired", then: then === "fail" ? "fail" : "continue", reason: `the request waited past its deadline (${new Date(request.expiresAt).toISOString()})` };
    },

    async sweep(limit = 100) {
      const at = clock.now();
      const due = await store.dueRequests(at, limit);
      for (const request of due) await advance(request, at);
      return due.length;
    },

    async decide(input) {
      let request = await store.request(input.requestId);
      if (!request) throw new SteamharnessError("not_found", `[steamharness] [approvals] no approval request ${input.requestId}`, { field: "requestId" });
      const at = clock.now();
      const approver = input.approver;
      // Time first, the same step as a call or the sweeper takes: a request due for escalation
      // (after its wait, or at its deadline when the policy escalates) is escalated before the
      // approver is checked, so the escalation group may decide it; else a late decision is expiry.
      const unescalated = request.state === "pending" && request.escalatedAt === null && request.verdict.escalation !== null;
      if ((await advance(request, at)) === "expired") {
        throw new SteamharnessError("approval_expired", `[steamharness] [approvals] the approval request ${request.id} expired at ${new Date(request.expiresAt).toISOString()}`, { data: { requestId: request.id } });
      }
      if (unescalated) request = (await store.request(request.id)) ?? request;
      const groups = [request.verdict.approvers, ...(request.escalatedAt !== null && request.verdict.escalation ? [request.verdict.escalation.to] : [])];
      const who = { requestId: request.id, toolId: request.toolId, tenant: request.tenant, approver: approver.subject ?? null };
      if (!groups.some((group) => isPolicyApprover(policy, group, approver))) throw forbidden("approver_group", `${approver.subject ?? approver.surface} may not decide ${request.toolId} (not in approver group ${groups.join(" or ")})`, who);
      // Without a named group, a remote principal decides only for its own tenant.
      if (groups.every((group) => group === null) && approver.tenant !== undefined && approver.tenant !== request.tenant) throw forbidden("tenant", `a principal of tenant ${approver.tenant} may not decide for tenant ${request.tenant}`, who);
      const self = request.requestedBy !== null && approver.tenant === request.requestedBy.tenant && approver.subject === request.requestedBy.subject;
      if (self && policy.allowSelfApproval !== true) throw forbidden("self_approval", `${approver.subject} may not approve their own request for ${request.toolId}`, who);
      if (!(await store.settleRequest(request.id, "decided"))) {
        throw new SteamharnessError("conflict", `[steamharness] [approvals] the approval request ${request.id} was already decided`, { data: { requestId: request.id } });
      }
      const decision: ApprovalDecisionRecord = {
        id: `decision:${randomUUID()}`, requestId: request.id, tenant: request.tenant, toolId: request.toolId, argumentsHash: request.argumentsHash, policyVersion: request.policyVersion,
        sessionId: request.sessionId, outcome: input.outcome, scope: input.scope ?? "once", approver: { ...approver }, reason: input.reason ?? null, decidedAt: at, usedAt: null, usedBy: null,
      };
      await store.addDecision(decision);
      await audit(request, "decision", { decisionId: decision.id, outcome: decision.outcome, scope: decision.scope, approver: { ...approver }, reason: decision.reason });
      return decision;
    },
  };
}
