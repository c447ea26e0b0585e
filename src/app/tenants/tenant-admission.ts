/**
 * Tenant admission of API keys (BUD-4), shared by every HTTP surface (the gateway, `mcp --http`):
 * a key's tenant is admitted against its request rate, token rate, concurrency and budget, all
 * kept in the shared key store, so they hold across every host on the store. A refusal is a
 * {@link TenantAdmissionError}; each surface maps it to its own HTTP answer.
 *
 * - Verified keys are cached for `cacheMs` (default 2 s): a key revoked on any host is refused by
 *   every host within that bound. Unknown keys are not cached (a key added on another host works at
 *   once).
 * - Request rate: one count per request in the tenant's one-minute window, refused past the limit.
 * - Token rate: a request is refused while the tenant's window already holds its token limit; the
 *   tokens a request used are charged when it ends (requests running when the window fills may
 *   pass it by what they use).
 * - Concurrency: a slot leased for `slotTtlMs` (default 30 s), renewed every third of it while the
 *   request runs and freed when it ends; a host that dies frees its slots within `slotTtlMs`.
 */
import { randomUUID } from "node:crypto";
import type { ApiKeyIdentity, ApiKeyStore, ApiLimitOutcome, ApiTenant } from "../../ports/api-keys.js";
import type { BudgetLedger } from "../../ports/budget-ledger.js";
import { usdToMicros } from "../../domain/budget/model-price.js";
import { SteamharnessError } from "../../domain/errors.js";

/** Options of {@link createTenantAdmission}. */
export interface TenantAdmissionOptions {
  keys: ApiKeyStore;
  /** The ledger tenant budgets are read from (the runs reserve in it). */
  budgets: BudgetLedger;
  /** How long a verified key is trusted without asking the store again (the revocation bound). */
  cacheMs: number;
  /** How long a concurrency slot is held without renewal (a dead host's slots free themselves after it). */
  slotTtlMs: number;
  now: () => number;
}

/** An admitted request: call `finish` once it ended. */
export interface TenantAdmission {
  tenant: ApiTenant;
  /** False for a tenant with no limit and no budget: `finish` does nothing, so a surface need not count its tokens. */
  limited: boolean;
  /** Charges the tokens the request used and frees its concurrency slot; idempotent. */
  finish(tokens: number): Promise<void>;
}

const MAX_CACHED = 10_000;

/** Why a request was refused: a rate or concurrency limit (retry later), or the spent budget. */
export type TenantRefusalKind = "requests_per_minute" | "tokens_per_minute" | "concurrency" | "budget";

/**
 * A refused admission (`rate_limited` with `retryAfterSeconds`, or `budget_exceeded`); the
 * gateway answers it as an OpenAI-shaped 429, `mcp --http` as a JSON-RPC 429.
 */
export class TenantAdmissionError extends SteamharnessError {
  readonly kind: TenantRefusalKind;
  /** Whole seconds until a retry may pass (≥ 1); 0 for a spent budget. */
  readonly retryAfterSeconds: number;
  /** The human text of the refusal, without the area prefix (what API clients show). */
  readonly reason: string;

  /**
   * The OpenAI-shaped error `type` and `code` every HTTP surface answers it with:
   * `insufficient_quota` for a spent budget, else `rate_limit_exceeded` of `tokens` or `requests`.
   */
  get wire(): { type: "insufficient_quota" | "tokens" | "requests"; code: "insufficient_quota" | "rate_limit_exceeded" } {
    if (this.kind === "budget") return { type: "insufficient_quota", code: "insufficient_quota" };
    return { type: this.kind === "tokens_per_minute" ? "tokens" : "requests", code: "rate_limit_exceeded" };
  }

  constructor(kind: TenantRefusalKind, reason: string, retryAfterSeconds: number) {
    super(kind === "budget" ? "budget_exceeded" : "rate_limited", `[steamharness] [tenants] ${reason}`);
    this.name = "TenantAdmissionError";
    this.kind = kind;
    this.reason = reason;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

const LIMIT_TEXT: Record<Exclude<TenantRefusalKind, "budget">, string> = { requests_per_minute: "requests per minute", tokens_per_minute: "tokens per minute", concurrency: "concurrent requests" };

const limited = (kind: Exclude<TenantRefusalKind, "budget">, outcome: Extract<ApiLimitOutcome, { ok: false }>): TenantAdmissionError => {
  const wait = Math.max(1, Math.ceil(outcome.retryAfterMs / 1000));
  return new TenantAdmissionError(kind, `Rate limit reached for ${LIMIT_TEXT[kind]}: try again in ${wait} s.`, wait);
};

/** The limits of a tenant budget in the ledger's terms, or null without a budget. */
export function tenantBudgetLimit(tenant: ApiTenant): { tokens?: number; costUsd?: number; period?: "day" | "month" } | null {
  if (tenant.budgetTokens === undefined && tenant.budgetUsd === undefined) return null;
  return {
    ...(tenant.budgetTokens === undefined ? {} : { tokens: tenant.budgetTokens }),
    ...(tenant.budgetUsd === undefined ? {} : { costUsd: tenant.budgetUsd }),
    ...(tenant.budgetPeriod === undefined ? {} : { period: tenant.budgetPeriod }),
  };
}

const unlimitedFinish = async (): Promise<void> => {};

/**
 * Key verification (cached) and tenant admission of one host (gateway or MCP HTTP server).
 *
 * @example
 * const tenants = createTenantAdmission({ keys, budgets, cacheMs: 2000, slotTtlMs: 30_000, now: Date.now });
 * const identity = await tenants.identify(secret);
 */
export function createTenantAdmission(options: TenantAdmissionOptions) {
  const { keys, now } = options;
  const cache = new Map<string, { identity: ApiKeyIdentity; until: number }>();
  return {
    /** The key's identity, or null when the store does not know it (or it was revoked). */
    async identify(secret: string): Promise<ApiKeyIdentity | null> {
      const at = now();
      const cached = cache.get(secret);
      if (cached && cached.until > at) return cached.identity;
      cache.delete(secret);
      const identity = await keys.verify(secret);
      if (identity) {
        if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
        cache.set(secret, { identity, until: at + options.cacheMs });
      }
      return identity;
    },
    /**
     * Admits a request of `tenant`, or throws a {@link TenantAdmissionError}: `rate_limited`
     * (request rate, token rate, concurrency; with `retryAfterSeconds`) or `budget_exceeded`.
     */
    async admit(tenant: ApiTenant): Promise<TenantAdmission> {
      // A tenant with no limit and no budget has nothing to check, hold or charge.
      if (tenant.budgetTokens === undefined && tenant.budgetUsd === undefined && tenant.tokensPerMinute === undefined && tenant.requestsPerMinute === undefined && tenant.concurrency === undefined) return { tenant, limited: false, finish: unlimitedFinish };
      const at = now();
      const budget = tenantBudgetLimit(tenant);
      if (budget) {
        const state = await options.budgets.read({ scope: "tenant", id: tenant.id, ...(budget.period ? { period: budget.period } : {}) }, at);
        const tokensLeft = budget.tokens === undefined || state.spent.tokens + state.reserved.tokens < budget.tokens + state.granted.tokens;
        const moneyLeft = budget.costUsd === undefined || state.spent.costMicros + state.reserved.costMicros < usdToMicros(budget.costUsd) + state.granted.costMicros;
        if (!tokensLeft || !moneyLeft) {
          throw new TenantAdmissionError("budget", `You exceeded the ${budget.period ? `${budget.period}ly ` : ""}budget of tenant '${tenant.id}'.`, 0);
        }
      }
      if (tenant.tokensPerMinute !== undefined) {
        const outcome = await keys.take(tenant.id, "tokens", 0, tenant.tokensPerMinute, at);
        if (!outcome.ok) throw limited("tokens_per_minute", outcome);
      }
      if (tenant.requestsPerMinute !== undefined) {
        const outcome = await keys.take(tenant.id, "requests", 1, tenant.requestsPerMinute, at);
        if (!outcome.ok) throw limited("requests_per_minute", outcome);
      }
      let slot: string | null = null;
      let renewal: NodeJS.Timeout | undefined;
      if (tenant.concurrency !== undefined) {
        const id = `slot_${randomUUID()}`;
        const outcome = await keys.acquire(tenant.id, id, tenant.concurrency, at, options.slotTtlMs);
        if (!outcome.ok) throw limited("concurrency", outcome);
        slot = id;
        renewal = setInterval(() => void keys.renew(id, now(), options.slotTtlMs).catch(() => {}), Math.max(1, Math.floor(options.slotTtlMs / 3)));
        renewal.unref();
      }
      let finished: Promise<void> | null = null;
      return {
        tenant,
        limited: true,
        finish(tokens) {
          finished ??= (async () => {
            clearInterval(renewal);
            // A store fault here must not fail the response that already ended: the slot then expires.
            if (slot !== null) await keys.release(slot).catch(() => {});
            if (tenant.tokensPerMinute !== undefined && tokens > 0) await keys.charge(tenant.id, "tokens", tokens, now()).catch(() => {});
          })();
          return finished;
        },
      };
    },
  };
}

/** The admission engine returned by {@link createTenantAdmission}. */
export type TenantAdmissions = ReturnType<typeof createTenantAdmission>;
