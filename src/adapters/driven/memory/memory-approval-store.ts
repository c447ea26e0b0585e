import type { ApprovalStore } from "../../../ports/approval-store.js";
import { createApprovalStore, type ApprovalAuditAppend, type ApprovalAuditRow, type ApprovalDecisionRow, type ApprovalRequestRow, type ApprovalRows } from "../kernel/approval-store.js";
import { directCall } from "../kernel/store-call.js";
import { createKeySecrets } from "../system/key-secrets.js";

const newest = (rows: ApprovalDecisionRow[]): ApprovalDecisionRow | null =>
  rows.reduce<ApprovalDecisionRow | null>((best, row) => (best === null || row.decidedAt > best.decidedAt || (row.decidedAt === best.decidedAt && row.id > best.id) ? row : best), null);

/**
 * Approval rows in maps; every step is synchronous, so nothing interleaves with it in one process.
 *
 * @example
 * const store = createApprovalStore(memoryApprovalRows(), createKeySecrets().digest, directCall, async () => {});
 */
export function memoryApprovalRows(): ApprovalRows {
  const requests = new Map<string, ApprovalRequestRow>();
  const decisions = new Map<string, ApprovalDecisionRow>();
  const chains = new Map<string, ApprovalAuditRow[]>();
  const copy = <T extends object>(row: T | undefined | null): T | null => (row ? { ...row } : null);
  const append = ({ tenant, next }: ApprovalAuditAppend): ApprovalAuditRow[] => {
    const chain = chains.get(tenant) ?? [];
    const rows = next(chain.at(-1) ?? null);
    chain.push(...rows.map((row) => ({ ...row })));
    chains.set(tenant, chain);
    return rows.map((row) => ({ ...row }));
  };
  return {
    insertRequest(row, audit) {
      if (requests.has(row.id)) return false;
      requests.set(row.id, { ...row });
      if (audit) append(audit);
      return true;
    },
    rebindRequest(row) {
      const existing = requests.get(row.id);
      if (!existing || (existing.argumentsHash === row.argumentsHash && existing.policyVersion === row.policyVersion)) return false;
      requests.set(row.id, { ...row });
      return true;
    },
    request: (id) => copy(requests.get(id)),
    settleRequest(id, state) {
      const row = requests.get(id);
      if (!row || row.state !== "pending") return false;
      row.state = state;
      return true;
    },
    escalateRequest(id, at, expiresAt) {
      const row = requests.get(id);
      if (!row || row.state !== "pending" || row.escalatedAt !== null) return false;
      Object.assign(row, { escalatedAt: at, expiresAt, dueAt: expiresAt });
      return true;
    },
    dueRequests: (now, limit) => [...requests.values()].filter((row) => row.state === "pending" && row.dueAt <= now).sort((a, b) => a.dueAt - b.dueAt).slice(0, limit).map((row) => ({ ...row })),
    insertDecision(row) {
      return !decisions.has(row.id) && Boolean(decisions.set(row.id, { ...row }));
    },
    decisionOf: (requestId) => copy(newest([...decisions.values()].filter((row) => row.requestId === requestId))),
    standing: (binding) =>
      copy(
        newest(
          [...decisions.values()].filter(
            (row) =>
              row.tenant === binding.tenant && row.toolId === binding.toolId && row.argumentsHash === binding.argumentsHash && row.policyVersion === binding.policyVersion &&
              (row.scope === "always" || (row.scope === "session" && binding.sessionId !== null && row.sessionId === binding.sessionId)),
          ),
        ),
      ),
    useOnce(id, requestId, at) {
      const row = decisions.get(id);
      if (!row || row.scope !== "once" || row.usedAt !== null) return false;
      Object.assign(row, { usedAt: at, usedBy: requestId });
      return true;
    },
    appendAudit: (audit) => append(audit),
    audit: (tenant, afterSeq, limit) => (chains.get(tenant) ?? []).filter((row) => row.seq > afterSeq).slice(0, limit).map((row) => ({ ...row })),
    auditTenants: () => [...chains.keys()].sort(),
  };
}

/**
 * The in-memory approval store (GOV-1): the reference adapter, for tests and single-process hosts.
 *
 * @example
 * const permissions = createGovernedToolPermissions({ policy, store: createMemoryApprovalStore(), clock });
 */
export function createMemoryApprovalStore(): ApprovalStore {
  return createApprovalStore(memoryApprovalRows(), createKeySecrets().digest, directCall, async () => {});
}
