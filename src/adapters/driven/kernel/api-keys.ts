/**
 * The API-key store written once on the SQL row driver (BUD-4, ARCH-8): secrets, digests, tenant
 * limits, rate windows and slot decisions, for SQLite (files and in-memory) and PostgreSQL. A
 * counter step locks its rate window's row before the store decides; a slot step first takes the
 * same lock on the tenant's `<tenant> slots` row (PostgreSQL; SQLite's transaction already holds
 * the file's write lock), so hosts acquiring a tenant's slots serialise and never hold more than
 * its limit.
 */
import { SteamharnessError } from "../../../domain/errors.js";
import type { ApiKeyRecord, ApiKeyStore, ApiLimitOutcome, ApiRateUnit, ApiTenant, ApiTenantLimits } from "../../../ports/api-keys.js";
import { then, type SqlStatement, type SqlStore } from "./sql-driver.js";
import type { Awaitable } from "./store-call.js";

/** The length of a rate window. */
export const API_RATE_WINDOW_MS = 60_000;
const SECRET = /^sh_[A-Za-z0-9_-]{43}$/;
const LIMIT_FIELDS = ["budgetTokens", "budgetUsd", "requestsPerMinute", "tokensPerMinute", "concurrency"] as const;

const invalid = (field: string, message: string) => new SteamharnessError("input_validation", `[steamharness] [api-keys] ${message}`, { field });

/** How secrets are made and digested (node:crypto, supplied by the storage family). */
export interface ApiKeySecrets {
  /** 32 random bytes, base64url (43 characters). */
  random(): string;
  /** The SHA-256 digest (hex). */
  digest(secret: string): string;
}

function checkId(value: unknown, field: string): string {
  if (typeof value !== "string" || !/^[\x21-\x7e]{1,200}$/.test(value)) throw invalid(field, `${field} must be 1-200 printable ASCII characters`);
  return value;
}

function checkCount(value: unknown, field: string, min = 0): number {
  if (!Number.isSafeInteger(value) || (value as number) < min) throw invalid(field, `${field} must be an integer ≥ ${min}`);
  return value as number;
}

/** A tenant's limits checked: whole numbers ≥ 1 (USD > 0), a known period. Throws `input_validation`. */
export function checkTenantLimits(limits: ApiTenantLimits): ApiTenantLimits {
  const checked: ApiTenantLimits = {};
  for (const field of LIMIT_FIELDS) {
    const value = limits[field];
    if (value === undefined) continue;
    if (field === "budgetUsd") {
      if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) throw invalid(field, "budgetUsd must be a number > 0");
    } else checkCount(value, field, 1);
    checked[field] = value;
  }
  if (limits.budgetPeriod !== undefined) {
    if (limits.budgetPeriod !== "day" && limits.budgetPeriod !== "month") throw invalid("budgetPeriod", "budgetPeriod must be day or month");
    checked.budgetPeriod = limits.budgetPeriod;
  }
  return checked;
}

type ApiKeyRow = ApiKeyRecord & { hash: string };
const recordOf = (row: ApiKeyRow): ApiKeyRecord => ({ id: row.id, tenantId: row.tenantId, createdAt: row.createdAt, revokedAt: row.revokedAt });
const tenantOf = (row: { id: string; limits: string }): ApiTenant => ({ ...(JSON.parse(row.limits) as ApiTenantLimits), id: row.id });
const windowOf = (at: number): number => at - (at % API_RATE_WINDOW_MS);

// The gateway's hot statements (a key and its tenant per request, a counter step per unit): each driver builds them once.
const KEY_BY_HASH: SqlStatement<{ hash: string }> = { mode: "get", build: ({ db, tables: { apiKeys }, ops }, param) => db.select().from(apiKeys).where(ops.eq(apiKeys.hash, param("hash"))) };
const TENANT: SqlStatement<{ id: string }> = { mode: "get", build: ({ db, tables: { apiTenants }, ops }, param) => db.select().from(apiTenants).where(ops.eq(apiTenants.id, param("id"))) };
// Locks the counter row, creating an absent one as window 0 (never counted: the store starts it at 0); PostgreSQL's row lock, inside SQLite's write lock.
const LOCK_COUNTER: SqlStatement<{ key: string }> = {
  mode: "get",
  build: ({ db, tables: { apiRateWindows: windows }, ops: { sql } }, param) =>
    db.insert(windows).values({ key: param("key"), window: 0, count: 0 }).onConflictDoUpdate({ target: windows.key, set: { key: sql`excluded.key` } }).returning(),
};
const PUT_COUNTER: SqlStatement<{ key: string; window: number; count: number }> = {
  mode: "run",
  build: ({ db, tables: { apiRateWindows: windows }, ops }, param) => db.update(windows).set({ window: param("window"), count: param("count") }).where(ops.eq(windows.key, param("key"))),
};

/**
 * The store on an open database: each step on its row driver, run through the family's call.
 *
 * @example
 * const keys = createApiKeyStore(openStoreFile({ directory }), createKeySecrets());
 */
export function createApiKeyStore({ driver, call, close }: SqlStore, secrets: ApiKeySecrets): ApiKeyStore {
  const { db, tables: { apiKeys, apiTenants, apiSlots }, ops: { and, asc, count, eq, gt, isNull, lte } } = driver;
  const changed = (rows: Awaitable<number>) => then(rows, (n) => n > 0);
  const counterKey = (tenantId: string, unit: ApiRateUnit) => {
    if (unit !== "requests" && unit !== "tokens") throw invalid("unit", "unit must be requests or tokens");
    return `${checkId(tenantId, "tenantId")} ${unit}`;
  };
  // One atomic step on the counter row of `key` (locked while `decide` runs): writes what `decide` returns.
  const counterStep = <T>(what: string, key: string, decide: (row: { window: number; count: number }) => { result: T; write: { window: number; count: number } | null }) =>
    call(what, () =>
      driver.transaction(function* (tx) {
        const { result, write } = decide(yield tx.execute(LOCK_COUNTER, { key }));
        if (write) yield tx.execute(PUT_COUNTER, { key, ...write });
        return result;
      }),
    );
  const retryAfter = (at: number): ApiLimitOutcome => ({ ok: false, retryAfterMs: windowOf(at) + API_RATE_WINDOW_MS - at });
  return {
    async add(tenant, at) {
      const id = checkId(tenant.id, "tenant");
      const limits = checkTenantLimits(tenant);
      const secret = `sh_${secrets.random()}`;
      const key: ApiKeyRow = { id: secret.slice(0, 11), hash: secrets.digest(secret), tenantId: id, createdAt: checkCount(at, "at"), revokedAt: null };
      await call("api key add", () =>
        driver.transaction(function* (tx) {
          const existing = yield tx.execute(TENANT, { id });
          const merged = JSON.stringify({ ...(existing ? (JSON.parse(existing.limits) as ApiTenantLimits) : {}), ...limits });
          yield tx.run(tx.db.insert(apiTenants).values({ id, limits: merged }).onConflictDoUpdate({ target: apiTenants.id, set: { limits: merged } }));
          yield tx.run(tx.db.insert(apiKeys).values(key));
        }),
      );
      return { key: recordOf(key), secret };
    },
    list: async () => (await call("api key list", () => driver.all(db.select().from(apiKeys).orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))))).map(recordOf),
    revoke: (id, at) => call("api key revoke", () => changed(driver.run(db.update(apiKeys).set({ revokedAt: checkCount(at, "at") }).where(and(eq(apiKeys.id, checkId(id, "id")), isNull(apiKeys.revokedAt)))))),
    async verify(secret) {
      if (typeof secret !== "string" || !SECRET.test(secret)) return null;
      return call("api key verify", async () => {
        const row: ApiKeyRow | undefined = await driver.execute(KEY_BY_HASH, { hash: secrets.digest(secret) });
        if (!row || row.revokedAt !== null) return null;
        const tenant = await driver.execute(TENANT, { id: row.tenantId });
        return { key: recordOf(row), tenant: tenant ? tenantOf(tenant) : { id: row.tenantId } };
      });
    },
    tenant: async (id) => {
      const row = await call("api tenant read", () => driver.execute(TENANT, { id: checkId(id, "id") }));
      return row ? tenantOf(row) : null;
    },
    take(tenantId, unit, amount, limit, at) {
      const key = counterKey(tenantId, unit);
      checkCount(amount, "amount");
      checkCount(limit, "limit", 1);
      const window = windowOf(checkCount(at, "at"));
      return counterStep<ApiLimitOutcome>("api rate take", key, (row) => {
        const count = row.window === window ? row.count : 0;
        // amount 0 asks whether anything is left; otherwise the amount must fit whole.
        if (amount === 0 ? count >= limit : count + amount > limit) return { result: retryAfter(at), write: null };
        return { result: { ok: true }, write: amount === 0 ? null : { window, count: count + amount } };
      });
    },
    async charge(tenantId, unit, amount, at) {
      const key = counterKey(tenantId, unit);
      checkCount(amount, "amount");
      const window = windowOf(checkCount(at, "at"));
      if (amount === 0) return;
      await counterStep("api rate charge", key, (row) => ({ result: undefined, write: { window, count: (row.window === window ? row.count : 0) + amount } }));
    },
    acquire(tenantId, slotId, limit, at, ttlMs) {
      const tenant = checkId(tenantId, "tenantId");
      const id = checkId(slotId, "slotId");
      checkCount(limit, "limit", 1);
      checkCount(at, "at");
      checkCount(ttlMs, "ttlMs", 1);
      // One step on the tenant's slots, serialised with every other: expired slots deleted, the rest counted, one inserted when there is room.
      return call("api slot acquire", () =>
        driver.transaction(function* (tx) {
          if (tx.dialect === "postgres") yield tx.execute(LOCK_COUNTER, { key: `${tenant} slots` });
          yield tx.run(tx.db.delete(apiSlots).where(and(eq(apiSlots.tenantId, tenant), lte(apiSlots.expiresAt, at))));
          const held = (yield tx.get(tx.db.select({ n: count() }).from(apiSlots).where(eq(apiSlots.tenantId, tenant))))?.n ?? 0;
          if (held >= limit) return { ok: false, retryAfterMs: 1000 } satisfies ApiLimitOutcome;
          yield tx.run(tx.db.insert(apiSlots).values({ id, tenantId: tenant, expiresAt: at + ttlMs }).onConflictDoUpdate({ target: apiSlots.id, set: { expiresAt: at + ttlMs } }));
          return { ok: true } satisfies ApiLimitOutcome;
        }),
      );
    },
    renew: (slotId, at, ttlMs) =>
      call("api slot renew", () => changed(driver.run(db.update(apiSlots).set({ expiresAt: at + checkCount(ttlMs, "ttlMs", 1) }).where(and(eq(apiSlots.id, checkId(slotId, "slotId")), gt(apiSlots.expiresAt, checkCount(at, "at"))))))),
    release: (slotId) => call("api slot release", () => then(driver.run(db.delete(apiSlots).where(eq(apiSlots.id, checkId(slotId, "slotId")))), () => undefined)),
    close,
  };
}
