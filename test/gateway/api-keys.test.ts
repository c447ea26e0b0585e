import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { createMemoryApiKeyStore } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import { createSqliteApiKeyStore } from "../../src/adapters/driven/sqlite/store/sqlite-api-keys.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createPostgresApiKeyStore } from "../../src/adapters/driven/postgres/postgres-sql-driver.js";
import { runApiKeyStoreContract } from "../../src/testing/api-keys.contract.js";
import { describePostgres } from "../fixtures/postgres.js";

const api = { describe, it, expect };

describe("BUD-4 API-key store on memory", () => {
  runApiKeyStoreContract(api, () => ({ store: createMemoryApiKeyStore() }));
});

describe("BUD-4 API-key store on SQLite", () => {
  runApiKeyStoreContract(api, () => {
    const directory = mkdtempSync(join(tmpdir(), "sh-keys-"));
    const store = createSqliteApiKeyStore({ directory });
    const peer = createSqliteApiKeyStore({ file: join(directory, "store.sqlite") });
    return { store, inspect: { peer }, dispose: async () => (await store.close(), await peer.close(), rmSync(directory, { recursive: true, force: true })) };
  });
  it("BUD-4 the keys live in the store file a storage opens (same migrations)", async () => {
    const directory = mkdtempSync(join(tmpdir(), "sh-keys-"));
    try {
      const storage = createSqliteStorage({ directory });
      const keys = createSqliteApiKeyStore({ directory });
      const { secret } = await keys.add({ id: "acme" }, Date.now());
      expect((await keys.verify(secret))?.tenant.id).toBe("acme");
      await keys.close();
      await storage.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describePostgres("BUD-4 API-key store on PostgreSQL", (database) => {
  runApiKeyStoreContract(api, async () => {
    const store = await createPostgresApiKeyStore({ pool: database.pool, schema: database.schema });
    const peer = await createPostgresApiKeyStore({ connectionString: database.url, schema: database.schema });
    return { store, inspect: { peer }, dispose: async () => (await store.close(), await peer.close()) };
  });
});
