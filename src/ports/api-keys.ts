/**
 * API keys and tenants (BUD-4): who may call the gateway, and the limits of each tenant — its
 * budget, request and token rates and concurrency — kept in a store every gateway host shares
 * (the SQLite store file, or the PostgreSQL schema), so a limit or a revocation holds across hosts.
 *
 * A key's secret is shown once, by `add`, and stored only as its SHA-256 digest. The secret is 32
 * random bytes (256 bits), so a digest cannot be reversed by guessing: a slow KDF (scrypt,
 * argon2) protects low-entropy passwords against offline guessing, which random keys do not need,
 * and it would cost every request tens of milliseconds of CPU. The short public `id` (the
 * secret's first characters after `sh_`) names a key in listings and revocations.
 */
import type { BudgetPeriod } from "./budget-ledger.js";

/** A tenant's limits; an absent field means no limit of that kind. */
export interface ApiTenantLimits {
  /** Tenant budget in tokens (BUD-2's `tenant` scope). */
  budgetTokens?: number;
  /** Tenant budget in USD. */
  budgetUsd?: number;
  /** The budget starts again each UTC day or month; none = for ever. */
  budgetPeriod?: BudgetPeriod;
  /** Requests per minute. */
  requestsPerMinute?: number;
  /** Tokens (as runs report them) per minute. */
  tokensPerMinute?: number;
  /** Requests running at once. */
  concurrency?: number;
}

/** A tenant: its id and limits. */
export interface ApiTenant extends ApiTenantLimits {
  id: string;
}

/** A key as listings show it: never its secret. */
export interface ApiKeyRecord {
  /** The public id (`sh_` and 8 characters of the secret); the secret starts with it. */
  id: string;
  tenantId: string;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms, or null while the key is valid. */
  revokedAt: number | null;
}

/** A verified key and its tenant. */
export interface ApiKeyIdentity {
  key: ApiKeyRecord;
  tenant: ApiTenant;
}

/** What a rate counter or a slot answers: granted, or refused with the ms until it may be. */
export type ApiLimitOutcome = { ok: true } | { ok: false; retryAfterMs: number };

/** A counted rate: requests, or tokens. */
export type ApiRateUnit = "requests" | "tokens";

/**
 * The API-key port.
 *
 * - `add` creates the key (and the tenant when it is new); limits given in `tenant` replace those
 *   of that kind, the others stay. It resolves the secret, which no other member ever returns.
 * - `verify` resolves null for an unknown, malformed or revoked secret (it never throws for those).
 * - `revoke` takes the key's id; resolves false when no valid key has it (already revoked or unknown).
 * - Rate windows are fixed one-minute windows per tenant and unit (the window of `at`), counted
 *   atomically across every host on the store: `take` adds `amount` only if the window's count
 *   plus `amount` stays within `limit` (`amount` 0 asks whether the window is below its limit);
 *   `charge` adds without checking (the tokens a finished request used).
 * - Slots hold a tenant's concurrency: `acquire` grants a slot when fewer than `limit` unexpired
 *   slots of the tenant are held; a slot expires at `at + ttlMs` unless `renew`ed, so the slots of
 *   a host that died free themselves within `ttlMs`. `release` of an unknown slot is a no-op.
 * - Invalid input rejects with `input_validation` and changes nothing; adapter faults reject with
 *   `storage_failure`.
 */
export interface ApiKeyStore {
  /** Creates a key for `tenant.id`; resolves its record and its secret (shown once). */
  add(tenant: ApiTenant, at: number): Promise<{ key: ApiKeyRecord; secret: string }>;
  /** Every key, oldest first. */
  list(): Promise<ApiKeyRecord[]>;
  /** Revokes the key of `id`; false when no valid key has it. */
  revoke(id: string, at: number): Promise<boolean>;
  /** The key of `secret` and its tenant, or null (unknown, malformed or revoked). */
  verify(secret: string): Promise<ApiKeyIdentity | null>;
  /** The tenant of `id`, or null. */
  tenant(id: string): Promise<ApiTenant | null>;
  /** Counts `amount` in the tenant's window of `at` if it stays within `limit`. */
  take(tenantId: string, unit: ApiRateUnit, amount: number, limit: number, at: number): Promise<ApiLimitOutcome>;
  /** Counts `amount` in the tenant's window of `at` unconditionally. */
  charge(tenantId: string, unit: ApiRateUnit, amount: number, at: number): Promise<void>;
  /** Holds slot `slotId` of the tenant until `at + ttlMs` when fewer than `limit` are held. */
  acquire(tenantId: string, slotId: string, limit: number, at: number, ttlMs: number): Promise<ApiLimitOutcome>;
  /** Extends a held slot to `at + ttlMs`; false when it is no longer held (expired and taken). */
  renew(slotId: string, at: number, ttlMs: number): Promise<boolean>;
  /** Frees a slot. */
  release(slotId: string): Promise<void>;
  /** Closes what the store opened. */
  close(): Promise<void>;
}
