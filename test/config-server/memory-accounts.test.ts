// CFG-4: the in-memory reference account store behind an in-process configuration server keeps
// the configuration contract through the HTTP client, and the account rules of the port.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { startConfigurationServer, type ConfigurationServer } from "../../src/adapters/driving/config-server/config-server.js";
import { createHttpProjectConfigurationStore } from "../../src/adapters/driven/config-server-client/http-project-configuration-store.js";
import { createMemoryConfigurationAccounts } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import { runProjectConfigurationStoreContract } from "../../src/testing/project-configuration-store.contract.js";

const ADMIN = "memory-admin-key-0123456789";

describe("CFG-4 configuration server on the memory account store", () => {
  const accounts = createMemoryConfigurationAccounts();
  let server: ConfigurationServer;
  let token = "";
  beforeAll(async () => {
    server = await startConfigurationServer({ accounts, adminKey: ADMIN });
    const answer = await fetch(`${server.url}/v1/accounts`, { method: "POST", headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" }, body: JSON.stringify({ name: "mem" }) });
    token = ((await answer.json()) as { token: string }).token;
  });
  afterAll(async () => {
    await server.close();
    await accounts.close();
  });

  runProjectConfigurationStoreContract({ describe, it, expect }, () => ({ store: createHttpProjectConfigurationStore({ url: server.url, credential: { token } }) }));

  it("CFG-4 a taken name, id or token hash is a conflict; lookups by id, name and hash", async () => {
    const created = await accounts.createAccount({ accountId: "id-1", name: "unique", tokenHash: "h1", createdAt: 1 });
    for (const clash of [{ accountId: "id-1", name: "other", tokenHash: "h2" }, { accountId: "id-2", name: "unique", tokenHash: "h3" }, { accountId: "id-3", name: "third", tokenHash: "h1" }]) {
      await expect(accounts.createAccount({ ...clash, createdAt: 2 })).rejects.toMatchObject({ code: "conflict" });
    }
    expect(await accounts.account("unique")).toEqual(created);
    expect(await accounts.account("id-1")).toEqual(created);
    expect(await accounts.accountByTokenHash("h1")).toEqual(created);
    expect(await accounts.accountByTokenHash("nope")).toBeNull();
  });
});
