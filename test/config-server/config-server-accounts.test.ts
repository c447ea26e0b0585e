// CFG-4: accounts, isolation by (account, project) and typed errors over real HTTP against a
// real `steamharness server` child process; bad input changes nothing.
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { createHttpProjectConfigurationStore } from "../../src/adapters/driven/config-server-client/http-project-configuration-store.js";
import { ADMIN_KEY, createAccount, request, type ServerProcess, useServerInTempDir } from "./server-process.js";

const PROJECT = "7d3c2b1a-0f9e-4d8c-8b7a-6f5e4d3c2b1a";
const admin = { authorization: `Bearer ${ADMIN_KEY}` };
const codeOf = async (action: () => Promise<unknown>) => action().then(() => "resolved", (error: { code?: string }) => error.code);

describe("CFG-4 configuration server accounts and isolation", () => {
  let dir = "";
  let server: ServerProcess;
  useServerInTempDir("sh-cfg-accounts-", (started) => ({ dir, server } = started));

  it("CFG-4 account A never reads or changes account B's project of the same id", async () => {
    const a = await createAccount(server.url, "team-a");
    const b = await createAccount(server.url, "team-b");
    const storeA = createHttpProjectConfigurationStore({ url: server.url, credential: { token: a.token } });
    const storeB = createHttpProjectConfigurationStore({ url: server.url, credential: { token: b.token } });
    await storeB.setFields(PROJECT, [{ key: "title", type: "string" }], { expectedRevision: 0 });
    await storeB.create(PROJECT, { configurationId: "main", name: "B's", values: { title: "secret of B" } });

    expect(await storeA.read(PROJECT)).toEqual({ projectId: PROJECT, revision: 0, fields: [], currentConfigurationId: null, configurations: [] });
    expect(await storeA.get(PROJECT, "main")).toBeNull();
    expect(await storeA.lookup(PROJECT, "main")).toEqual({ status: "absent", configurationId: "main" });
    expect(JSON.stringify(await storeA.exportProject(PROJECT))).not.toContain("secret of B");
    // A's writes name A's own revisions: B's revision 2 is stale for A, and A's project is its own.
    expect(await codeOf(() => storeA.update(PROJECT, "main", { expectedRevision: 1, values: { title: "A was here" } }))).toBe("not_found");
    await storeA.create(PROJECT, { configurationId: "main", name: "A's", values: {} });
    expect((await storeB.get(PROJECT, "main"))?.values).toEqual({ title: "secret of B" });
    expect((await storeB.read(PROJECT)).revision).toBe(2);
    expect((await storeA.read(PROJECT)).revision).toBe(1);

    // The admin key acts as an account only when it names one; an unknown one is a typed 404.
    const asA = createHttpProjectConfigurationStore({ url: server.url, credential: { adminKey: ADMIN_KEY, account: "team-a" } });
    expect((await asA.get(PROJECT, "main"))?.name).toBe("A's");
    const asNobody = createHttpProjectConfigurationStore({ url: server.url, credential: { adminKey: ADMIN_KEY, account: "nobody" } });
    expect(await codeOf(() => asNobody.read(PROJECT))).toBe("not_found");
    expect(await request(server.url, "GET", `/v1/projects/${PROJECT}`, admin)).toEqual({ status: 403, body: { error: expect.objectContaining({ code: "forbidden" }) } });
  });

  it("CFG-4 accounts are created with the admin key only; tokens are checked and stored hashed", async () => {
    const noKey = await request(server.url, "POST", "/v1/accounts", {}, { name: "intruder" });
    expect([noKey.status, noKey.body.error.code]).toEqual([401, "unauthorized"]);
    const wrongKey = await request(server.url, "POST", "/v1/accounts", { authorization: "Bearer not-the-admin-key-at-all" }, { name: "intruder" });
    expect([wrongKey.status, wrongKey.body.error.code]).toEqual([401, "unauthorized"]);
    const user = await createAccount(server.url, "plain-user");
    const withToken = await request(server.url, "POST", "/v1/accounts", { authorization: `Bearer ${user.token}` }, { name: "intruder" });
    expect([withToken.status, withToken.body.error.code]).toEqual([403, "forbidden"]);
    const listed = await request(server.url, "GET", "/v1/accounts", admin);
    expect(listed.body.accounts.map((account: { name: string }) => account.name)).not.toContain("intruder");
    expect(JSON.stringify(listed.body)).not.toContain(user.token);

    const duplicate = await request(server.url, "POST", "/v1/accounts", admin, { name: "plain-user" });
    expect([duplicate.status, duplicate.body.error.code]).toEqual([409, "conflict"]);
    const badName = await request(server.url, "POST", "/v1/accounts", admin, { name: "bad name/with slash" });
    expect([badName.status, badName.body.error]).toEqual([400, expect.objectContaining({ code: "input_validation", field: "name" })]);

    expect(await request(server.url, "GET", "/v1/account", { authorization: `Bearer ${user.token}` })).toEqual({
      status: 200,
      body: {
        account: expect.objectContaining({ accountId: user.accountId, name: "plain-user" }),
        via: "account",
        principal: { tenant: `account:${user.accountId}`, subject: user.accountId, credentialId: user.accountId, source: "account", surface: "config-server" },
      },
    });
    const forged = createHttpProjectConfigurationStore({ url: server.url, credential: { token: `${user.token}x` } });
    expect(await codeOf(() => forged.read(PROJECT))).toBe("unauthorized");

    // The database holds the token's SHA-256, never the token.
    const { default: Database } = await import("better-sqlite3");
    const { createHash } = await import("node:crypto");
    const client = new Database(join(dir, "server.sqlite"), { readonly: true });
    try {
      const row = client.prepare("SELECT token_hash FROM configuration_accounts WHERE account_id = ?").get(user.accountId) as { token_hash: string };
      expect(row.token_hash).toBe(createHash("sha256").update(user.token).digest("hex"));
      const dump = JSON.stringify(client.prepare("SELECT * FROM configuration_accounts").all());
      expect(dump).not.toContain(user.token);
    } finally {
      client.close();
    }
  });

  it("CFG-4 bad input is a typed error and writes nothing", async () => {
    const user = await createAccount(server.url, "careful");
    const auth = { authorization: `Bearer ${user.token}` };
    const store = createHttpProjectConfigurationStore({ url: server.url, credential: { token: user.token } });
    await store.setFields(PROJECT, [{ key: "title", type: "string", required: true }], { expectedRevision: 0 });
    await store.create(PROJECT, { configurationId: "main", name: "Main", values: { title: "kept" } });
    const before = await store.read(PROJECT);
    const cases: Array<[string, string, unknown, string]> = [
      ["PATCH", `/v1/projects/${PROJECT}/configurations/main`, "{ not json", "body"],
      ["PATCH", `/v1/projects/${PROJECT}/configurations/main`, [1, 2], "body"],
      ["PATCH", `/v1/projects/${PROJECT}/configurations/main`, { expectedRevision: "1", values: { title: "x" } }, "expectedRevision"],
      ["PATCH", `/v1/projects/${PROJECT}/configurations/main`, { expectedRevision: 1, values: { title: 5 } }, "values/title"],
      ["POST", `/v1/projects/${PROJECT}/configurations`, { configurationId: "bad\nid", name: "N", values: { title: "t" } }, "configurationId"],
      ["POST", `/v1/projects/${PROJECT}/import`, { expectedRevision: 2, document: { format: "other", version: 1, fields: [], currentConfigurationId: null, configurations: [] } }, "format"],
      ["POST", `/v1/projects/${PROJECT}/import`, { expectedRevision: 2 }, "document"],
      ["PUT", `/v1/projects/${PROJECT}/fields`, { expectedRevision: 2, fields: [{ key: "title", type: "colour" }] }, "fields/0/type"],
    ];
    for (const [method, path, body, field] of cases) {
      const answer = await request(server.url, method, path, auth, body);
      expect([method, path, answer.status, answer.body.error.code]).toEqual([method, path, 400, "input_validation"]);
      expect(answer.body.error.field ?? "").toContain(field);
    }
    const unknown = await request(server.url, "POST", `/v1/projects/${PROJECT}/nothing-here`, auth, {});
    expect([unknown.status, unknown.body.error.code]).toEqual([404, "not_found"]);
    expect(await store.read(PROJECT)).toEqual(before);
    // The server is still serving after all of it.
    expect((await request(server.url, "GET", "/healthz")).status).toBe(200);
  });

  it("TEN-1: each request is one principal: an account token is account:<id>; the admin key naming that account acts on the same tenant as subject admin; the admin key alone is no account", async () => {
    const user = await createAccount(server.url, "principal-user");
    const principal = async (headers: Record<string, string>) => (await request(server.url, "GET", "/v1/account", headers)).body.principal;
    expect(await principal({ authorization: `Bearer ${user.token}` })).toEqual({ tenant: `account:${user.accountId}`, subject: user.accountId, credentialId: user.accountId, source: "account", surface: "config-server" });
    expect(await principal({ ...admin, "x-steamharness-account": "principal-user" })).toEqual({ tenant: `account:${user.accountId}`, subject: "admin", credentialId: "admin-key", source: "account", surface: "config-server" });
    // The admin key alone is nobody's account: it reads no account and owns no project.
    const alone = await request(server.url, "GET", "/v1/account", admin);
    expect([alone.status, alone.body.error.code]).toEqual([403, "forbidden"]);
    expect((await request(server.url, "GET", `/v1/projects/${PROJECT}`, admin)).status).toBe(403);
  });
});
