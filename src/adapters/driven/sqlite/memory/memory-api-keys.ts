import type { ApiKeyStore } from "../../../../ports/api-keys.js";
import { createApiKeyStore } from "../../kernel/api-keys.js";
import { createKeySecrets } from "../../system/key-secrets.js";
import { storeTables } from "../store/schema.js";
import { openMemoryDatabase } from "./memory-database.js";

/**
 * The in-memory API-key store (BUD-4), for tests and single-process gateways: the SQLite key store
 * on an in-memory store database ({@link openMemoryDatabase}).
 *
 * @example
 * const keys = createMemoryApiKeyStore();
 * const { secret } = await keys.add({ id: "acme", requestsPerMinute: 60 }, Date.now());
 */
export function createMemoryApiKeyStore(): ApiKeyStore {
  return createApiKeyStore(openMemoryDatabase("", storeTables()), createKeySecrets());
}
