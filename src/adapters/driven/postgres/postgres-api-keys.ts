import { and, asc, count, eq, gt, isNull, lte, sql } from "drizzle-orm";
import type { ApiKeyStore } from "../../../ports/api-keys.js";
import { createApiKeyStore, type ApiKeyRows } from "../kernel/api-keys.js";
import { createSystemClock } from "../system/clock.js";
import { openPostgres, postgresCall, type PostgresConnectionOptions, type PostgresStoreContext } from "./postgres-database.js";
import { createKeySecrets } from "../system/key-secrets.js";

/**
 * The API-key rows on PostgreSQL (BUD-4): a counter step row-locks its rate window (one `INSERT …
 * ON CONFLICT DO UPDATE … RETURNING`, which also creates an absent row) before the kernel decides;
 * a slot step takes the same lock on the tenant's `slots` row first, so hosts acquiring a
 * tenant's slots serialise on it and never hold more than its limit.
 *
 * @example
 * const rows = createPostgresApiKeyRows(context);
 */
export function createPostgresApiKeyRows({ db, tables }: Pick<PostgresStoreContext, "db" | "tables">): ApiKeyRows {
  const { apiKeys, apiTenants, apiRateWindows, apiSlots } = tables;
  type Tx = Parameters<Parameters<typeof db.transaction>[0]>[0];
  const lock = async (tx: Tx, key: string) =>
    (await tx.insert(apiRateWindows).values({ key, window: 0, count: 0 }).onConflictDoUpdate({ target: apiRateWindows.key, set: { key: sql`excluded.key` } }).returning())[0]!;
  return {
    insertKey: (key, tenant) =>
      db.transaction(async (tx) => {
        await tx.insert(apiTenants).values(tenant).onConflictDoUpdate({ target: apiTenants.id, set: { limits: tenant.limits } });
        await tx.insert(apiKeys).values(key);
      }),
    keys: () => db.select().from(apiKeys).orderBy(asc(apiKeys.createdAt), asc(apiKeys.id)),
    keyByHash: async (hash) => (await db.select().from(apiKeys).where(eq(apiKeys.hash, hash)).limit(1))[0] ?? null,
    tenant: async (id) => (await db.select().from(apiTenants).where(eq(apiTenants.id, id)).limit(1))[0] ?? null,
    revoke: async (id, at) => (await db.update(apiKeys).set({ revokedAt: at }).where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt))).returning({ id: apiKeys.id })).length > 0,
    counterStep: (key, decide) =>
      db.transaction(async (tx) => {
        const row = await lock(tx, key);
        // A row created by this lock (window 0) is a window never counted: the kernel starts it at 0.
        const { result, write } = decide(row);
        if (write) await tx.update(apiRateWindows).set({ window: write.window, count: write.count }).where(eq(apiRateWindows.key, key));
        return result;
      }),
    slotStep: (tenantId, at, decide) =>
      db.transaction(async (tx) => {
        await lock(tx, `${tenantId} slots`);
        await tx.delete(apiSlots).where(and(eq(apiSlots.tenantId, tenantId), lte(apiSlots.expiresAt, at)));
        const held = (await tx.select({ n: count() }).from(apiSlots).where(eq(apiSlots.tenantId, tenantId)))[0]?.n ?? 0;
        const { result, insert } = decide(held);
        if (insert) await tx.insert(apiSlots).values(insert).onConflictDoUpdate({ target: apiSlots.id, set: { expiresAt: insert.expiresAt } });
        return result;
      }),
    renewSlot: async (id, at, expiresAt) => (await db.update(apiSlots).set({ expiresAt }).where(and(eq(apiSlots.id, id), gt(apiSlots.expiresAt, at))).returning({ id: apiSlots.id })).length > 0,
    deleteSlot: async (id) => void (await db.delete(apiSlots).where(eq(apiSlots.id, id))),
  };
}

/**
 * The API-key store in a PostgreSQL schema (BUD-4; default `"steamharness"`, migrated on open like
 * {@link createPostgresStorage}): every gateway host on the database shares keys, tenants, rate
 * windows and slots. Opening faults throw `storage_failure`.
 *
 * @example
 * const keys = await createPostgresApiKeyStore({ connectionString: "postgres://app@db.internal/app" });
 * const { secret } = await keys.add({ id: "acme", concurrency: 4 }, Date.now());
 * await keys.close();
 */
export async function createPostgresApiKeyStore(options: PostgresConnectionOptions = {}): Promise<ApiKeyStore> {
  const connection = await openPostgres(options);
  const state = { closed: false };
  const context = { db: connection.db, tables: connection.tables, clock: createSystemClock(), state };
  return createApiKeyStore(createPostgresApiKeyRows(context), createKeySecrets(), postgresCall(state), async () => {
    if (state.closed) return;
    state.closed = true;
    await connection.release();
  });
}
