/**
 * GOV-3: escalation delivered to a webhook. Each delivery is one JSON POST signed with
 * HMAC-SHA256 over `<timestamp>.<body>` (header `x-steamharness-signature: sha256=<hex>`, the
 * timestamp in `x-steamharness-timestamp`), so the receiver can check it came from the holder of the
 * secret and reject replays; retries of one delivery carry the same `x-steamharness-delivery` id.
 */
import { createHmac, randomUUID } from "node:crypto";
import { SteamharnessError } from "../../../domain/errors.js";
import type { ApprovalRequestRecord } from "../../../ports/approval-store.js";

/** Options of {@link createEscalationWebhook}. */
export interface EscalationWebhookOptions {
  /** The receiver (http or https). */
  url: string;
  /** The shared HMAC secret. */
  secret: string;
  /** Tries per delivery (default 3): a network error, a 429 or a 5xx is tried again. */
  attempts?: number;
  /** The wait before the first retry, doubled for each next one (default 500 ms). */
  retryDelayMs?: number;
  /** Gives up one attempt after this long (default 10 s). */
  timeoutMs?: number;
  /** Now (ms since epoch), for the signed timestamp (default `Date.now`). */
  now?: () => number;
}

/**
 * The signature header value of a body sent at `timestamp`: what a receiver recomputes.
 *
 * @example
 * const expected = webhookSignature(secret, request.headers["x-steamharness-timestamp"], rawBody);
 */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The `onEscalation` hook of {@link createGovernedToolPermissions} that posts each escalation to a
 * webhook, retrying; rejects with `unavailable` when every attempt failed (the governed adapter
 * then records the failed delivery in the audit log).
 *
 * @example
 * const permissions = createGovernedToolPermissions({ policy, store, clock, onEscalation: createEscalationWebhook({ url, secret }) });
 */
export function createEscalationWebhook(options: EscalationWebhookOptions): (request: ApprovalRequestRecord, group: string) => Promise<void> {
  if (!URL.canParse(options.url) || !/^https?:$/.test(new URL(options.url).protocol)) throw new SteamharnessError("input_validation", "[steamharness] [approvals] the escalation webhook url must be http(s)", { field: "url" });
  if (typeof options.secret !== "string" || options.secret.length < 16) throw new SteamharnessError("input_validation", "[steamharness] [approvals] the escalation webhook secret must be at least 16 characters", { field: "secret" });
  const attempts = options.attempts ?? 3;
  const now = options.now ?? Date.now;
  return async (request, group) => {
    const body = JSON.stringify({ type: "approval.escalated", group, request: { id: request.id, tenant: request.tenant, runId: request.runId, sessionId: request.sessionId, toolId: request.toolId, argumentsHash: request.argumentsHash, policyVersion: request.policyVersion, requestedBy: request.requestedBy, createdAt: request.createdAt, expiresAt: request.expiresAt } });
    const delivery = randomUUID();
    let failure = "";
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) await sleep((options.retryDelayMs ?? 500) * 2 ** (attempt - 2));
      const timestamp = String(now());
      try {
        const response = await fetch(options.url, {
          method: "POST",
          body,
          headers: { "content-type": "application/json", "x-steamharness-delivery": delivery, "x-steamharness-timestamp": timestamp, "x-steamharness-signature": webhookSignature(options.secret, timestamp, body) },
          signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
        });
        await response.body?.cancel();
        if (response.ok) return;
        failure = `HTTP ${response.status}`;
        if (response.status !== 429 && response.status < 500) break;
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error);
      }
    }
    throw new SteamharnessError("unavailable", `[steamharness] [approvals] the escalation webhook was not delivered (${failure})`, { data: { delivery } });
  };
}
