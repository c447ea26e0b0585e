/**
 * GOV-3 on the CLI hosts that sweep approvals (`mcp`, `gateway`, `view`): `--escalation-webhook
 * <url>` delivers the escalations of their sweeps (and of their runs' calls) to a webhook,
 * HMAC-signed with a secret read from `--escalation-webhook-secret-file <file>` or the
 * {@link ESCALATION_WEBHOOK_SECRET_ENV} environment variable — never a flag value, which any user
 * of the machine can read in the process list (like `--auth-token-file`, `--admin-key-file`).
 */
import { Option, type Command } from "commander";
import { isSteamharnessError, SteamharnessError } from "../../../domain/errors.js";
import type { ApprovalRequestRecord } from "../../../ports/approval-store.js";
import type { SurfaceServices } from "../../../ports/surface-services.js";
import { periodMsFromEnv } from "./option-parsers.js";

/** The environment variable holding the webhook's HMAC secret when no secret file is given. */
export const ESCALATION_WEBHOOK_SECRET_ENV = "STEAMHARNESS_ESCALATION_WEBHOOK_SECRET";

/**
 * ARCH-12: the environment variable setting how often these hosts sweep approvals, in
 * milliseconds (default: the sweeper's, 10 s); a test that waits on a sweep shortens it.
 */
export const APPROVAL_SWEEP_MS_ENV = "STEAMHARNESS_APPROVAL_SWEEP_MS";

/**
 * How often a sweeping host sweeps: {@link APPROVAL_SWEEP_MS_ENV}, or `undefined` (the sweeper's
 * default) when it is unset. A bad value is `input_validation` naming the variable (exit 2).
 *
 * @example
 * startApprovalSweeper(permissions, { intervalMs: approvalSweepMs() });
 */
export function approvalSweepMs(env: Readonly<Record<string, string | undefined>> = process.env): number | undefined {
  return periodMsFromEnv(APPROVAL_SWEEP_MS_ENV, undefined, env);
}

/** Commander's parsed values of the webhook options (and the policy they need). */
export interface EscalationWebhookFlags {
  escalationWebhook?: string;
  escalationWebhookSecretFile?: string;
  approvalPolicy?: string;
}

/** The `onEscalation` hook the flags build. */
export type EscalationHook = (request: ApprovalRequestRecord, group: string) => Promise<void>;

const usage = (field: string, message: string, cause?: unknown) =>
  new SteamharnessError("input_validation", `[steamharness] [approvals] ${message}`, { field, ...(cause === undefined ? {} : { cause }) });

/**
 * Adds `--escalation-webhook <url>` and `--escalation-webhook-secret-file <file>` to a command
 * that has `--approval-policy`.
 *
 * @example
 * addEscalationWebhookOptions(program.command("gateway").option("--approval-policy <file>", "…"));
 */
export function addEscalationWebhookOptions(command: Command): Command {
  return command
    .addOption(new Option("--escalation-webhook <url>", `with --approval-policy: POST each escalation to this URL, HMAC-signed and retried (docs/approvals.md); the secret from --escalation-webhook-secret-file or ${ESCALATION_WEBHOOK_SECRET_ENV}`))
    .addOption(new Option("--escalation-webhook-secret-file <file>", `file holding the webhook's HMAC secret, at least 16 characters (default: ${ESCALATION_WEBHOOK_SECRET_ENV})`));
}

/**
 * The escalation hook of the flags, or undefined without `--escalation-webhook`. Checked before
 * the host opens anything: a webhook without `--approval-policy`, a secret file without a
 * webhook, no secret, an unreadable secret file, a url that is not http(s) or a secret under 16
 * characters is `input_validation` naming the flag (exit 2).
 *
 * @example
 * const onEscalation = await escalationWebhookFrom(flags, services);
 * createGovernedToolPermissions({ policy, store, clock, ...(onEscalation ? { onEscalation } : {}) });
 */
export async function escalationWebhookFrom(flags: EscalationWebhookFlags, services: Pick<SurfaceServices, "textFiles" | "escalationWebhook">, env: Readonly<Record<string, string | undefined>> = process.env): Promise<EscalationHook | undefined> {
  const file = flags.escalationWebhookSecretFile;
  if (flags.escalationWebhook === undefined) {
    if (file !== undefined) throw usage("--escalation-webhook-secret-file", "--escalation-webhook-secret-file only applies with --escalation-webhook");
    return undefined;
  }
  if (flags.approvalPolicy === undefined) throw usage("--escalation-webhook", "--escalation-webhook only applies with --approval-policy (the policy says when a request escalates)");
  const secret =
    file === undefined
      ? env[ESCALATION_WEBHOOK_SECRET_ENV]
      : (
          await services.textFiles.read(file).catch((error: { code?: string; message: string }) => {
            throw usage("--escalation-webhook-secret-file", `cannot read --escalation-webhook-secret-file ${file} (${error.code ?? error.message})`, error);
          })
        ).trim();
  if (!secret) throw usage("--escalation-webhook-secret-file", `--escalation-webhook needs its HMAC secret: --escalation-webhook-secret-file <file> or ${ESCALATION_WEBHOOK_SECRET_ENV}`);
  try {
    return await services.escalationWebhook({ url: flags.escalationWebhook, secret });
  } catch (error) {
    if (!isSteamharnessError(error, "input_validation")) throw error;
    throw usage(error.field === "url" ? "--escalation-webhook" : "--escalation-webhook-secret-file", error.message.replace(/^\[steamharness\] \[approvals\] /, ""), error);
  }
}
