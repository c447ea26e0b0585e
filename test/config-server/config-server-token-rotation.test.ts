// CFG-4: token rotation against a real `steamharness server` child process — `POST
// /v1/account/token` over HTTP (the account itself, or the admin key naming the account) and
// `steamharness rotate-token`, which saves the new token where `login` saved the old one. The old
// token is refused (401) from the rotation on.
import { readdirSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { createHttpProjectConfigurationStore } from "../../src/adapters/driven/config-server-client/http-project-configuration-store.js";
import { runCli, writeProject } from "../cli/helpers.js";
import { ADMIN_KEY, createAccount, request, type ServerProcess, useServerInTempDir } from "./server-process.js";

const PROJECT = "5e7a9c1b-3d5f-4a6b-8c7d-9e0f1a2b3c4d";
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe("CFG-4 rotating an account's token", () => {
  let dir = "";
  let server: ServerProcess;
  useServerInTempDir("sh-cfg-rotate-", (started) => ({ dir, server } = started));

  it("CFG-4 POST /v1/account/token with the account's token: a new token, shown once; the old one is 401 at once", async () => {
    const user = await createAccount(server.url, "rotating");
    await createHttpProjectConfigurationStore({ url: server.url, credential: { token: user.token } }).setFields(PROJECT, [{ key: "title", type: "string" }], { expectedRevision: 0 });
    const rotated = await request(server.url, "POST", "/v1/account/token", bearer(user.token));
    expect(rotated).toEqual({ status: 200, body: { account: expect.objectContaining({ accountId: user.accountId, name: "rotating" }), token: expect.stringMatching(/^sht_/) } });
    const fresh: string = rotated.body.token;
    expect(fresh).not.toBe(user.token);

    const old = await request(server.url, "GET", "/v1/account", bearer(user.token));
    expect([old.status, old.body.error.code]).toEqual([401, "unauthorized"]);
    const again = await request(server.url, "POST", "/v1/account/token", bearer(user.token));
    expect([again.status, again.body.error.code]).toEqual([401, "unauthorized"]);
    expect(await request(server.url, "GET", "/v1/account", bearer(fresh))).toEqual({ status: 200, body: { account: rotated.body.account, via: "account", principal: expect.objectContaining({ tenant: `account:${user.accountId}` }) } });
    // The account's projects stay with it: the new token reaches what the old one wrote.
    expect((await request(server.url, "GET", `/v1/projects/${PROJECT}`, bearer(fresh))).body.revision).toBe(1);
    // The account list never shows a token.
    expect(JSON.stringify((await request(server.url, "GET", "/v1/accounts", bearer(ADMIN_KEY))).body)).not.toContain(fresh);
  });

  it("CFG-4 the admin key rotates the token of the account its header names; without the header it is 403", async () => {
    const user = await createAccount(server.url, "admin-rotated");
    const other = await createAccount(server.url, "bystander");
    const withoutHeader = await request(server.url, "POST", "/v1/account/token", bearer(ADMIN_KEY));
    expect([withoutHeader.status, withoutHeader.body.error.code]).toEqual([403, "forbidden"]);
    const unknown = await request(server.url, "POST", "/v1/account/token", { ...bearer(ADMIN_KEY), "x-steamharness-account": "nobody" });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, "not_found"]);
    // Nothing above changed a token.
    expect((await request(server.url, "GET", "/v1/account", bearer(user.token))).status).toBe(200);

    const rotated = await request(server.url, "POST", "/v1/account/token", { ...bearer(ADMIN_KEY), "x-steamharness-account": "admin-rotated" });
    expect([rotated.status, rotated.body.account.accountId]).toEqual([200, user.accountId]);
    expect((await request(server.url, "GET", "/v1/account", bearer(user.token))).status).toBe(401);
    expect((await request(server.url, "GET", "/v1/account", bearer(rotated.body.token))).body.account.name).toBe("admin-rotated");
    expect((await request(server.url, "GET", "/v1/account", bearer(other.token))).body.account.name).toBe("bystander");
  });

  it("CFG-4 rotate-token saves the new token where login saved it (0600); the next command works and the old token is refused", async () => {
    const user = await createAccount(server.url, "cli-rotated");
    const authDir = join(dir, "auth");
    const dataDir = join(dir, "data");
    const projectDir = await writeProject(join(dir, "project"), { "package.json": JSON.stringify({ id: PROJECT, projectType: "workflow", main: "w.mjs" }) });
    await createHttpProjectConfigurationStore({ url: server.url, credential: { token: user.token } }).create(PROJECT, { configurationId: "main", name: "Main", values: {} });

    const missing = await runCli(["rotate-token", "--auth-dir", authDir]);
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining("steamharness login")]);

    expect((await runCli(["login", "--server", server.url, "--token", user.token, "--auth-dir", authDir])).code).toBe(0);
    const rotated = await runCli(["rotate-token", "--auth-dir", authDir]);
    const saved = join(authDir, "workflow-auth.json");
    expect([rotated.code, rotated.stdout, rotated.stderr]).toEqual([0, `rotated the token of cli-rotated on ${server.url}; saved ${saved}\n`, ""]);
    const auth = JSON.parse(await readFile(saved, "utf8")) as { serverUrl: string; token: string };
    expect(auth).toEqual({ serverUrl: server.url, token: expect.stringMatching(/^sht_/) });
    expect(auth.token).not.toBe(user.token);
    expect(statSync(saved).mode & 0o777).toBe(0o600);
    expect(readdirSync(authDir)).toEqual(["workflow-auth.json"]);

    // The old token is refused by the server; the saved (new) one serves the next command.
    expect((await request(server.url, "GET", "/v1/account", bearer(user.token))).status).toBe(401);
    const shown = await runCli(["config", "show", projectDir, "--data-dir", dataDir, "--auth-dir", authDir]);
    // DX-13: the one stderr line names the store read: the server, as the rotated account, through the saved login.
    expect([shown.code, shown.stderr]).toEqual([0, `[steamharness] configuration store: server ${server.url} as account cli-rotated (saved login ${saved})\n`]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ projectId: PROJECT, configurations: [{ configurationId: "main" }] });

    // A saved token the server no longer knows is a typed 401, and the saved file is left as it was.
    const stale = { serverUrl: server.url, token: auth.token };
    expect((await request(server.url, "POST", "/v1/account/token", bearer(auth.token))).status).toBe(200);
    const refused = await runCli(["rotate-token", "--auth-dir", authDir]);
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining("not an account token")]);
    expect(JSON.parse(await readFile(saved, "utf8"))).toEqual(stale);
  }, 120_000);
});
