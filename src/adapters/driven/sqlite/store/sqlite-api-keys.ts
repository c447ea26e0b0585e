import { wrapAdapterError } from "../../../../domain/errors.js";
import type { ApiKeyStore } from "../../../../ports/api-keys.js";
import type { BudgetLedger } from "../../../../ports/budget-ledger.js";
import { createSystemClock } from "../../system/clock.js";
import { createSqliteBudgetLedger } from "./sqlite-budget-ledger.js";
import { createApiKeyStore, type ApiKeyRows } from "../../kernel/api-keys.js";
import { drizzleOrm } from "../shared/drizzle-modules.js";
import { storeTables } from "./schema.js";
import { openStoreFile, type StoreFileOptions } from "./sqlite-database.js";
import type { SqliteStoreContext } from "./sqlite-kv-store.js";
import { sqliteCall } from "./sqlite-support.js";
import { createKeySecrets } from "../../system/key-secrets.js";

/**
 * The API-key rows on SQLite (BUD-4): counter and slot steps are `BEGIN IMMEDIATE` transactions,
 * which take the file's write lock before reading, so no connection of any process on the same
 * file reads or writes a rate window or a tenant's slots between a step's check and its write.
 *
 * @example
 * const rows = createSqliteApiKeyRows(context);
 */
export function createSqliteApiKeyRows({ db }: Pick<SqliteStoreContext, "db">): ApiKeyRows {
  const { and, asc, eq, gt, isNull, lte, sql, count } = drizzleOrm();
  const { apiKeys, apiTenants, apiRateWindows, apiSlots } = storeTables();
  const p = sql.placeholder;
  const byHash = db.select().from(apiKeys).where(eq(apiKeys.hash, p("hash"))).prepare();
  const tenantById = db.select().from(apiTenants).where(eq(apiTenants.id, p("id"))).prepare();
  const counterByKey = db.select().from(apiRateWindows).where(eq(apiRateWindows.key, p("key"))).prepare();
  const putCounter = db
    .insert(apiRateWindows)
    .values({ key: p("key"), window: p("window"), count: p("count") })
    .onConflictDoUpdate({ target: apiRateWindows.key, set: { window: sql`excluded.window`, count: sql`excluded.count` } })
    .prepare();
  const immediate = { behavior: "immediate" } as const;
  return {
    insertKey: (key, tenant) =>
      db.transaction(() => {
        db.insert(apiTenants).values(tenant).onConflictDoUpdate({ target: apiTenants.id, set: { limits: tenant.limits } }).run();
        db.insert(apiKeys).values(key).run();
      }, immediate),
    keys: () => db.select().from(apiKeys).orderBy(asc(apiKeys.createdAt), asc(apiKeys.id)).all(),
    keyByHash: (hash) => byHash.get({ hash }) ?? null,
    tenant: (id) => tenantById.get({ id }) ?? null,
    revoke: (id, at) => db.update(apiKeys).set({ revokedAt: at }).where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt))).run().changes > 0,
    counterStep: (key, decide) =>
      db.transaction(() => {
        const { result, write } = decide(counterByKey.get({ key }) ?? null);
        if (write) putCounter.run({ ...write });
        return result;
      }, immediate),
    slotStep: (tenantId, at, decide) =>
      db.transaction(() => {
        db.delete(apiSlots).where(and(eq(apiSlots.tenantId, tenantId), lte(apiSlots.expiresAt, at))).run();
        const held = db.select({ n: count() }).from(apiSlots).where(eq(apiSlots.tenantId, tenantId)).get()?.n ?? 0;
        const { result, insert } = decide(held);
        if (insert) db.insert(apiSlots).values(insert).onConflictDoUpdate({ target: apiSlots.id, set: { expiresAt: insert.expiresAt } }).run();
        return result;
      }, immediate),
    renewSlot: (id, at, expiresAt) => db.update(apiSlots).set({ expiresAt }).where(and(eq(apiSlots.id, id), gt(apiSlots.expiresAt, at))).run().changes > 0,
    deleteSlot: (id) => void db.delete(apiSlots).where(eq(apiSlots.id, id)).run(),
  };
}

/** Options of {@link createSqliteApiKeyStore}. */
export type SqliteApiKeyStoreOptions = StoreFileOptions;

/**
 * The API-key store on a SQLite store file (BUD-4): the same file, migrations and WAL mode as
 * {@link createSqliteStorage}, so every process on one machine that opens it shares keys,
 * tenants, rate windows and slots; `budgets` is the budget ledger of the same file (where a
 * gateway reserves tenant budgets). Opening faults throw `storage_failure`.
 *
 * @example
 * const keys = createSqliteApiKeyStore({ directory: "~/.steamharness/gateway" });
 * const { secret } = await keys.add({ id: "acme", requestsPerMinute: 60 }, Date.now());
 * await keys.close();
 */
export function createSqliteApiKeyStore(options: SqliteApiKeyStoreOptions): ApiKeyStore & { readonly budgets: BudgetLedger } {
  const { db, sqlite, state, close } = openStoreFile(options);
  const store = createApiKeyStore(createSqliteApiKeyRows({ db }), createKeySecrets(), sqliteCall(state), close);
  // The tenant budgets' ledger on the same file and connection (the gateway reserves in it).
  return Object.assign(store, { budgets: createSqliteBudgetLedger({ db, sqlite, clock: createSystemClock(), state }) });
}
