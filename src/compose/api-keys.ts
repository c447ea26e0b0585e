/**
 * The gateway's key store (BUD-4) for the CLI: PostgreSQL when a URL is given, else a SQLite store
 * directory; each backend loads only when chosen. The store brings the ledger its tenants' budgets
 * are reserved in (the same database), so keys, limits and budgets are shared by the same hosts.
 */
import type { KeyStore, ServerStateLocation } from "../ports/surface-services.js";

/** Where the keys live: a SQLite store directory (its `store.sqlite`), or PostgreSQL when `postgres` is given. */
export type GatewayKeyStoreLocation = ServerStateLocation;
/** An opened key store and the ledger of its tenants' budgets. */
export type GatewayKeyStore = KeyStore;

/**
 * Opens the key store at `location` (migrations applied on open).
 *
 * @example
 * const store = await openGatewayKeyStore({ directory: join(dataDir, "gateway") });
 * await store.keys.list();
 * await store.close();
 */
export async function openGatewayKeyStore(location: GatewayKeyStoreLocation): Promise<GatewayKeyStore> {
  if (location.postgres !== undefined) {
    const [{ createPostgresApiKeyStore }, { createPostgresStorage }] = await Promise.all([import("../adapters/driven/postgres/postgres-sql-driver.js"), import("../adapters/driven/postgres/postgres-storage.js")]);
    const connection = { connectionString: location.postgres, ...(location.schema ? { schema: location.schema } : {}) };
    const keys = await createPostgresApiKeyStore(connection);
    const storage = await createPostgresStorage(connection).catch(async (error: unknown) => {
      await keys.close();
      throw error;
    });
    return { keys, budgets: storage.budgets!, close: async () => (await keys.close(), await storage.close()) };
  }
  const { createSqliteApiKeyStore } = await import("../adapters/driven/sqlite/store/sqlite-api-keys.js");
  const keys = createSqliteApiKeyStore({ directory: location.directory });
  return { keys, budgets: keys.budgets, close: () => keys.close() };
}
