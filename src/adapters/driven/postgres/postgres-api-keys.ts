import type { ApiKeyStore } from "../../../ports/api-keys.js";
import { createApiKeyStore } from "../kernel/api-keys.js";
import type { PostgresConnectionOptions } from "./postgres-database.js";
import { openPostgresStore } from "./postgres-sql-driver.js";
import { createKeySecrets } from "../system/key-secrets.js";

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
  return createApiKeyStore(await openPostgresStore(options), createKeySecrets());
}
