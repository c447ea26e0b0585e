/**
 * The API-key store written once (BUD-4, ARCH-3): secrets, digests, tenant limits, rate windows
 * and slot decisions live here; memory, SQLite and PostgreSQL only read, lock and write rows.
 */
import { SteamharnessError } from "../../../domain/errors.js";
import type { ApiKeyRecord, ApiKeyStore, ApiLimitOutcome, ApiRateUnit, ApiTenant, ApiTenantLimits } from "../../../ports/api-keys.js";
import { then, type SqlDriver, type SqlStatement } from "./sql-driver.js";
import type { Awaitable, StoreCall } from "./store-call.js";

/** A key row: the secret's SHA-256 digest (hex), never the secret. */
export interface ApiKeyRow {
  id: string;
  hash: string;
  tenantId: string;
  createdAt: number;
  revokedAt: number | null;
}

/** A tenant row: its limits as JSON text. */
export interface ApiTenantRow {
  id: string;
  limits: string;
}

/** A rate window row: `key` is `<tenant> <unit>` (ids have no spaces), `window` the window's start (epoch ms). */
export interface ApiCounterRow {
  key: string;
  window: number;
  count: number;
}

/** A held concurrency slot. */
export interface ApiSlotRow {
  id: string;
  tenantId: string;
  expiresAt: number;
}

/** Row access of the store. */
export interface ApiKeyRows {
  /** Writes the tenant row (insert or replace) and inserts the key row, in one transaction. */
  insertKey(key: ApiKeyRow, tenant: ApiTenantRow): Awaitable<void>;
  keys(): Awaitable<ApiKeyRow[]>;
  keyByHash(hash: string): Awaitable<ApiKeyRow | null>;
  tenant(id: string): Awaitable<ApiTenantRow | null>;
  /** Sets `revokedAt` of the key `id` when it is not revoked yet; true when a row changed. */
  revoke(id: string, at: number): Awaitable<boolean>;
  /** One atomic step on the counter row of `key` (locked while `decide` runs): writes what `decide` returns. */
  counterStep<T>(key: string, decide: (row: ApiCounterRow | null) => { result: T; write: ApiCounterRow | null }): Awaitable<T>;
  /**
   * One atomic step on the tenant's slots, serialised with every other step on them: deletes the
   * tenant's slots expired at `at`, counts those left, and inserts what `decide` returns.
   */
  slotStep<T>(tenantId: string, at: number, decide: (held: number) => { result: T; insert: ApiSlotRow | null }): Awaitable<T>;
  /** Sets the expiry of a slot that has not expired at `at`; true when it did. */
  renewSlot(id: string, at: number, expiresAt: number): Awaitable<boolean>;
  deleteSlot(id: string): Awaitable<void>;
}

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

const recordOf = (row: ApiKeyRow): ApiKeyRecord => ({ id: row.id, tenantId: row.tenantId, createdAt: row.createdAt, revokedAt: row.revokedAt });
const tenantOf = (row: ApiTenantRow): ApiTenant => ({ ...(JSON.parse(row.limits) as ApiTenantLimits), id: row.id });
const windowOf = (at: number): number => at - (at % API_RATE_WINDOW_MS);

/**
 * The store over `rows`, each step run through `call`.
 *
 * @example
 * const keys = createApiKeyStore(sqlApiKeyRows(driver), createKeySecrets(), sqliteCall(state), close);
 */
export function createApiKeyStore(rows: ApiKeyRows, secrets: ApiKeySecrets, call: StoreCall, close: () => Promise<void>): ApiKeyStore {
  const counterKey = (tenantId: string, unit: ApiRateUnit) => {
    if (unit !== "requests" && unit !== "tokens") throw invalid("unit", "unit must be requests or tokens");
    return `${checkId(tenantId, "tenantId")} ${unit}`;
  };
  const retryAfter = (at: number): ApiLimitOutcome => ({ ok: false, retryAfterMs: windowOf(at) + API_RATE_WINDOW_MS - at });
  return {
    async add(tenant, at) {
      const id = checkId(tenant.id, "tenant");
      const limits = checkTenantLimits(tenant);
      const secret = `sh_${secrets.random()}`;
      const key: ApiKeyRow = { id: secret.slice(0, 11), hash: secrets.digest(secret), tenantId: id, createdAt: checkCount(at, "at"), revokedAt: null };
      await call("api key add", async () => {
        const existing = await rows.tenant(id);
        const merged = { ...(existing ? (JSON.parse(existing.limits) as ApiTenantLimits) : {}), ...limits };
        await rows.insertKey(key, { id, limits: JSON.stringify(merged) });
      });
      return { key: recordOf(key), secret };
    },
    list: async () => (await call("api key list", () => rows.keys())).map(recordOf),
    revoke: (id, at) => call("api key revoke", () => rows.revoke(checkId(id, "id"), checkCount(at, "at"))),
    async verify(secret) {
      if (typeof secret !== "string" || !SECRET.test(secret)) return null;
      return call("api key verify", async () => {
        const row = await rows.keyByHash(secrets.digest(secret));
        if (!row || row.revokedAt !== null) return null;
        const tenant = await rows.tenant(row.tenantId);
        return { key: recordOf(row), tenant: tenant ? tenantOf(tenant) : { id: row.tenantId } };
      });
    },
    tenant: async (id) => {
      const row = await call("api tenant read", () => rows.tenant(checkId(id, "id")));
      return row ? tenantOf(row) : null;
    },
    take(tenantId, unit, amount, limit, at) {
      const key = counterKey(tenantId, unit);
      checkCount(amount, "amount");
      checkCount(limit, "limit", 1);
      const window = windowOf(checkCount(at, "at"));
      return call("api rate take", () =>
        rows.counterStep<ApiLimitOutcome>(key, (row) => {
          const count = row?.window === window ? row.count : 0;
          // amount 0 asks whether anything is left; otherwise the amount must fit whole.
          if (amount === 0 ? count >= limit : count + amount > limit) return { result: retryAfter(at), write: null };
          return { result: { ok: true }, write: amount === 0 ? null : { key, window, count: count + amount } };
        }),
      );
    },
    async charge(tenantId, unit, amount, at) {
      const key = counterKey(tenantId, unit);
      checkCount(amount, "amount");
      const window = windowOf(checkCount(at, "at"));
      if (amount === 0) return;
      await call("api rate charge", () => rows.counterStep(key, (row) => ({ result: undefined, write: { key, window, count: (row?.window === window ? row.count : 0) + amount } })));
    },
    acquire(tenantId, slotId, limit, at, ttlMs) {
      const tenant = checkId(tenantId, "tenantId");
      const id = checkId(slotId, "slotId");
      checkCount(limit, "limit", 1);
      checkCount(at, "at");
      checkCount(ttlMs, "ttlMs", 1);
      return call("api slot acquire", () =>
        rows.slotStep<ApiLimitOutcome>(tenant, at, (held) =>
          held >= limit ? { result: { ok: false, retryAfterMs: 1000 }, insert: null } : { result: { ok: true }, insert: { id, tenantId: tenant, expiresAt: at + ttlMs } },
        ),
      );
    },
    renew: (slotId, at, ttlMs) => call("api slot renew", () => rows.renewSlot(checkId(slotId, "slotId"), checkCount(at, "at"), at + checkCount(ttlMs, "ttlMs", 1))),
    release: (slotId) => call("api slot release", () => rows.deleteSlot(checkId(slotId, "slotId"))),
    close,
  };
}

// The gateway's hot statements (a key and its tenant per request, a counter step per unit): SQLite prepares each once.
const KEY_BY_HASH: SqlStatement<{ hash: string }> = { mode: "get", build: ({ db, tables: { apiKeys }, ops }, param) => db.select().from(apiKeys).where(ops.eq(apiKeys.hash, param("hash"))) };
const TENANT: SqlStatement<{ id: string }> = { mode: "get", build: ({ db, tables: { apiTenants }, ops }, param) => db.select().from(apiTenants).where(ops.eq(apiTenants.id, param("id"))) };
// Locks the counter row, creating an absent one as window 0 (never counted: the store starts it at 0); PostgreSQL's row lock, inside SQLite's write lock.
const LOCK_COUNTER: SqlStatement<{ key: string }> = {
  mode: "get",
  build: ({ db, tables: { apiRateWindows: windows }, ops: { sql } }, param) =>
    db.insert(windows).values({ key: param("key"), window: 0, count: 0 }).onConflictDoUpdate({ target: windows.key, set: { key: sql`excluded.key` } }).returning(),
};
const PUT_COUNTER: SqlStatement<{ [K in keyof ApiCounterRow]: ApiCounterRow[K] }> = {
  mode: "run",
  build: ({ db, tables: { apiRateWindows: windows }, ops }, param) => db.update(windows).set({ window: param("window"), count: param("count") }).where(ops.eq(windows.key, param("key"))),
};

/**
 * The API-key rows on a SQL driver (BUD-4): a counter step locks its rate window's row before the
 * store decides; a slot step first takes the same lock on the tenant's `<tenant> slots` row
 * (PostgreSQL; SQLite's transaction already holds the file's write lock), so hosts acquiring a
 * tenant's slots serialise and never hold more than its limit.
 *
 * @example
 * const keys = createApiKeyStore(sqlApiKeyRows(driver), createKeySecrets(), postgresCall(state), close);
 */
export function sqlApiKeyRows(driver: SqlDriver): ApiKeyRows {
  const { db, tables: { apiKeys, apiTenants, apiSlots }, ops: { and, asc, count, eq, gt, isNull, lte } } = driver;
  const changed = (count: Awaitable<number>) => then(count, (n) => n > 0);
  return {
    insertKey: (key, tenant) =>
      driver.transaction(function* (tx) {
        yield tx.run(tx.db.insert(apiTenants).values(tenant).onConflictDoUpdate({ target: apiTenants.id, set: { limits: tenant.limits } }));
        yield tx.run(tx.db.insert(apiKeys).values(key));
      }),
    keys: () => driver.all(db.select().from(apiKeys).orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))),
    keyByHash: (hash) => then(driver.execute(KEY_BY_HASH, { hash }), (row) => row ?? null),
    tenant: (id) => then(driver.execute(TENANT, { id }), (row) => row ?? null),
    revoke: (id, at) => changed(driver.run(db.update(apiKeys).set({ revokedAt: at }).where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt))))),
    counterStep: (key, decide) =>
      driver.transaction(function* (tx) {
        const { result, write } = decide(yield tx.execute(LOCK_COUNTER, { key }));
        if (write) yield tx.execute(PUT_COUNTER, { ...write });
        return result;
      }),
    slotStep: (tenantId, at, decide) =>
      driver.transaction(function* (tx) {
        if (tx.dialect === "postgres") yield tx.execute(LOCK_COUNTER, { key: `${tenantId} slots` });
        yield tx.run(tx.db.delete(apiSlots).where(and(eq(apiSlots.tenantId, tenantId), lte(apiSlots.expiresAt, at))));
        const held = (yield tx.get(tx.db.select({ n: count() }).from(apiSlots).where(eq(apiSlots.tenantId, tenantId))))?.n ?? 0;
        const { result, insert } = decide(held);
        if (insert) yield tx.run(tx.db.insert(apiSlots).values(insert).onConflictDoUpdate({ target: apiSlots.id, set: { expiresAt: insert.expiresAt } }));
        return result;
      }),
    renewSlot: (id, at, expiresAt) => changed(driver.run(db.update(apiSlots).set({ expiresAt }).where(and(eq(apiSlots.id, id), gt(apiSlots.expiresAt, at))))),
    deleteSlot: (id) => then(driver.run(db.delete(apiSlots).where(eq(apiSlots.id, id))), () => undefined),
  };
}
