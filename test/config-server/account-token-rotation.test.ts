// CFG-4: `replaceTokenHash` of the account store port (token rotation) on every adapter — memory,
// SQLite and PostgreSQL: the new hash finds the account and the old one no longer does; an
// unknown account is `not_found`, a hash in use is `conflict`, and neither writes anything; a
// fault of the backend is `storage_failure` with its cause.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import Database from "better-sqlite3";
import { createMemoryConfigurationAccounts } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import { createPostgresConfigurationAccounts } from "../../src/adapters/driven/postgres/postgres-sql-driver.js";
import { createSqliteConfigurationAccounts } from "../../src/adapters/driven/sqlite/configuration/sqlite-project-configuration-store.js";
import type { ConfigurationAccountStore } from "../../src/ports/configuration-accounts.js";
import { cleanup, tempDir } from "../cli/helpers.js";
import { describePostgres, quoteIdentifier } from "../fixtures/postgres.js";

/** How a case gets its store, and (for the SQL adapters) how it breaks the backend under it. */
interface Subject {
  open(): Promise<ConfigurationAccountStore>;
  /** Drops the accounts table behind the store's back, so its next call is a backend fault. */
  breakBackend?(): Promise<void>;
}

const errorOf = async (action: () => Promise<unknown>) => action().then(() => null, (error: { code?: string; cause?: unknown }) => error);

/** The cases every adapter passes, on one fresh store (inside the adapter's own `describe`). */
function replaceTokenHashCases(subject: Subject): void {
  let accounts: ConfigurationAccountStore;
  beforeAll(async () => {
    accounts = await subject.open();
    await accounts.createAccount({ accountId: "id-a", name: "team-a", tokenHash: "hash-a1", createdAt: 1 });
    await accounts.createAccount({ accountId: "id-b", name: "team-b", tokenHash: "hash-b1", createdAt: 2 });
  });
  afterAll(async () => {
    await accounts.close();
  });

  it("CFG-4 replaceTokenHash: the new hash finds the account, the old one no longer does", async () => {
    const before = await accounts.account("id-a");
    expect(await accounts.replaceTokenHash("id-a", "hash-a2")).toEqual(before);
    expect(await accounts.accountByTokenHash("hash-a2")).toEqual(before);
    expect(await accounts.accountByTokenHash("hash-a1")).toBeNull();
    // The other account is untouched; the list is the same accounts in the same order.
    expect(await accounts.accountByTokenHash("hash-b1")).toEqual(await accounts.account("team-b"));
    expect((await accounts.listAccounts()).map((account) => account.name)).toEqual(["team-a", "team-b"]);
  });

  it("CFG-4 replaceTokenHash of an unknown account is not_found and writes nothing", async () => {
    expect(await errorOf(() => accounts.replaceTokenHash("id-nobody", "hash-new"))).toMatchObject({ code: "not_found" });
    expect(await accounts.accountByTokenHash("hash-new")).toBeNull();
    expect(await accounts.listAccounts()).toHaveLength(2);
  });

  it("CFG-4 replaceTokenHash to a hash any account has is a conflict and writes nothing", async () => {
    const current = await accounts.accountByTokenHash("hash-a2");
    expect(await errorOf(() => accounts.replaceTokenHash("id-a", "hash-b1"))).toMatchObject({ code: "conflict" });
    expect(await errorOf(() => accounts.replaceTokenHash("id-a", "hash-a2"))).toMatchObject({ code: "conflict" });
    expect(await accounts.accountByTokenHash("hash-a2")).toEqual(current);
    expect((await accounts.accountByTokenHash("hash-b1"))?.accountId).toBe("id-b");
  });

  if (subject.breakBackend) {
    const breakBackend = subject.breakBackend;
    it("CFG-4 replaceTokenHash on a broken backend is storage_failure with the cause", async () => {
      await breakBackend();
      const error = await errorOf(() => accounts.replaceTokenHash("id-a", "hash-a3"));
      expect(error).toMatchObject({ code: "storage_failure" });
      // The driver's own error (matched by its message: it may come from another realm than this test's `Error`).
      expect(error?.cause).toMatchObject({ message: expect.stringContaining("configuration_accounts") });
    });
  }

  it("CFG-4 replaceTokenHash after close is storage_failure", async () => {
    await accounts.close();
    expect(await errorOf(() => accounts.replaceTokenHash("id-b", "hash-b2"))).toMatchObject({ code: "storage_failure" });
  });
}

describe("CFG-4 replaceTokenHash on the memory account store", () => {
  replaceTokenHashCases({ open: async () => createMemoryConfigurationAccounts() });
});

describe("CFG-4 replaceTokenHash on the SQLite account store", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await tempDir("sh-cfg-rotate-");
  });
  afterAll(async () => {
    await cleanup(dir);
  });
  const path = () => join(dir, "server.sqlite");
  replaceTokenHashCases({
    open: async () => createSqliteConfigurationAccounts({ path: path() }),
    async breakBackend() {
      const client = new Database(path());
      try {
        client.exec("DROP TABLE configuration_accounts");
      } finally {
        client.close();
      }
    },
  });
});

describePostgres("CFG-4 replaceTokenHash on the PostgreSQL account store", (database) => {
  const schema = database.freshSchema();
  replaceTokenHashCases({
    open: () => createPostgresConfigurationAccounts({ pool: database.pool, schema }),
    async breakBackend() {
      await database.raw.query(`DROP TABLE ${quoteIdentifier(schema)}.configuration_accounts`);
    },
  });
});
