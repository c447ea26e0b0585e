import { resolve } from "node:path";
import type { VersionedApprovalPolicy } from "../../../app/approvals/governed-tool-permissions.js";
import type { ProjectRunnerOptions } from "../../../app/workflow-runs/project-runner.js";
import type { SurfaceServices } from "../../../ports/surface-services.js";

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
 * The runner option of `--approval-policy <file>` ({@link approvalPolicyFile}), or none.
 *
 * @example
 * const runner = await openProjectRunner({ …, ...(await approvalPolicyFrom(flags, services)) });
 */
export async function approvalPolicyFrom(flags: { approvalPolicy?: string }, services: Pick<SurfaceServices, "textFiles" | "approvalStore">): Promise<Pick<ProjectRunnerOptions, "approvals">> {
  const policy = await approvalPolicyFile(flags, services);
  return policy ? { approvals: { policy, store: (dirs) => services.approvalStore({ directory: dirs.persistentValueStoreDir }) } } : {};
}
