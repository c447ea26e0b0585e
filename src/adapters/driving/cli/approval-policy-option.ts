import { resolve } from "node:path";
import { DEFAULT_APPROVAL_SWEEP_MS } from "../../../app/approvals/approval-sweeper.js";
import type { VersionedApprovalPolicy } from "../../../app/approvals/governed-tool-permissions.js";
import type { ProjectRunnerOptions } from "../../../app/workflow-runs/project-runner.js";
import type { SurfaceServices } from "../../../ports/surface-services.js";
import { approvalSweepMs, escalationWebhookFrom, type EscalationWebhookFlags } from "../shared/escalation-webhook-option.js";

// Issue 47: `--approval-policy <file>` on `run`, `answer`, `mcp` and `gateway` governs the runs'
// tool approvals; requests, decisions and the audit chain go to the approval tables of the
// persistent-value store directory's store.sqlite (the gateway's: its project storage
// directory), where `steamharness audit` reads them.

/**
 * The policy of `--approval-policy <file>`, checked and versioned, or `undefined` without the
 * flag. An unreadable file or a bad policy rejects with `input_validation` naming the flag.
 *
 * @example
 * const policy = await approvalPolicyFile(flags, services);
 */
export async function approvalPolicyFile(flags: { approvalPolicy?: string }, services: Pick<SurfaceServices, "textFiles">): Promise<VersionedApprovalPolicy | undefined> {
  if (flags.approvalPolicy === undefined) return undefined;
  const { readApprovalPolicyFile } = await import("../../../app/approvals/governed-tool-permissions.js");
  return readApprovalPolicyFile(services.textFiles, resolve(flags.approvalPolicy), "--approval-policy");
}

/**
 * The runner option of `--approval-policy <file>` ({@link approvalPolicyFile}), or none. A
 * long-running command (`mcp`) passes `sweep`: its runner then escalates and expires due requests
 * every {@link DEFAULT_APPROVAL_SWEEP_MS} ms (or {@link approvalSweepMs}) and delivers escalations to `--escalation-webhook`
 * (GOV-3).
 *
 * @example
 * const runner = await openProjectRunner({ …, ...(await approvalPolicyFrom(flags, services, { sweep: true })) });
 */
export async function approvalPolicyFrom(flags: EscalationWebhookFlags, services: Pick<SurfaceServices, "textFiles" | "approvalStore" | "escalationWebhook">, host: { sweep?: boolean } = {}): Promise<Pick<ProjectRunnerOptions, "approvals">> {
  const policy = await approvalPolicyFile(flags, services);
  const onEscalation = host.sweep === true ? await escalationWebhookFrom(flags, services) : undefined;
  const sweep = host.sweep === true ? { sweepMs: approvalSweepMs() ?? DEFAULT_APPROVAL_SWEEP_MS, ...(onEscalation ? { onEscalation } : {}) } : {};
  return policy ? { approvals: { policy, store: (dirs) => services.approvalStore({ directory: dirs.persistentValueStoreDir }), ...sweep } } : {};
}
