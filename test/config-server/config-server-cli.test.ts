// CFG-4: the CLI against a real `steamharness server`: `login` saves workflow-auth.json (0600)
// in --auth-dir; `config` then writes to the server, not the local store; explicit
// STEAMHARNESS_SERVER_* variables beat the saved login; a server URL without a credential is a
// typed error that opens no local store.
import { existsSync, statSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { createHttpProjectConfigurationStore } from "../../src/adapters/driven/config-server-client/http-project-configuration-store.js";
import { createSqliteProjectConfigurationStore } from "../../src/adapters/driven/sqlite/configuration/sqlite-project-configuration-store.js";
import { cleanEnv, runCli, writeProject } from "../cli/helpers.js";
import { ADMIN_KEY, createAccount, type ServerProcess, useServerInTempDir } from "./server-process.js";

const PROJECT = "2b4d6f80-1a3c-4e5f-9a7b-8c9d0e1f2a3b";
const documentWith = (title: string) => ({
  format: "steamharness.project-configuration",
  version: 1,
  fields: [{ key: "title", type: "string" }],
  currentConfigurationId: "main",
  configurations: [{ configurationId: "main", name: "Main", values: { title } }],
});

describe("CFG-4 the CLI uses the configuration server", () => {
  let dir = "";
  let server: ServerProcess;
  useServerInTempDir("sh-cfg-cli-", (started) => ({ dir, server } = started));

  it("CFG-4 login saves the account in --auth-dir; config writes to the server; server variables beat the saved login", async () => {
    const a = await createAccount(server.url, "env-account");
    const b = await createAccount(server.url, "saved-account");
    const projectDir = await writeProject(join(dir, "project"), { "package.json": JSON.stringify({ id: PROJECT, projectType: "workflow", main: "w.mjs" }) });
    const dataDir = join(dir, "data");
    const authDir = join(dir, "auth");
    const file = join(dir, "import.json");
    const storeA = createHttpProjectConfigurationStore({ url: server.url, credential: { token: a.token } });
    const storeB = createHttpProjectConfigurationStore({ url: server.url, credential: { token: b.token } });

    const refused = await runCli(["login", "--server", server.url, "--token", "sht_wrong", "--auth-dir", authDir]);
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining("not an account token")]);
    expect(existsSync(join(authDir, "workflow-auth.json"))).toBe(false);
    const login = await runCli(["login", "--server", server.url, "--token", b.token, "--auth-dir", authDir]);
    expect([login.code, login.stdout]).toEqual([0, expect.stringContaining("as saved-account")]);
    const saved = join(authDir, "workflow-auth.json");
    expect(statSync(saved).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(saved, "utf8"))).toEqual({ serverUrl: server.url, token: b.token });

    // Saved login only: the import lands in account B on the server; no local store is made.
    await writeFile(file, JSON.stringify(documentWith("from the saved login")));
    const viaSaved = await runCli(["config", "import", projectDir, file, "--expected-revision", "0", "--data-dir", dataDir, "--auth-dir", authDir]);
    expect([viaSaved.code, viaSaved.stderr]).toEqual([0, expect.stringMatching(/^\[steamharness\] configuration store: server .* as account saved-account \(saved login .*\)\n$/)]);
    expect((await storeB.get(PROJECT, "main"))?.values).toEqual({ title: "from the saved login" });
    expect((await storeA.read(PROJECT)).revision).toBe(0);
    expect(existsSync(join(dataDir, "configurations.sqlite"))).toBe(false);
    const shown = await runCli(["config", "show", projectDir, "--data-dir", dataDir, "--auth-dir", authDir]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ projectId: PROJECT, currentConfigurationId: "main", configurations: [{ values: { title: "from the saved login" } }] });

    // Explicit variables beat the saved login: the same command now writes to account A.
    await writeFile(file, JSON.stringify(documentWith("from the environment")));
    const envA = cleanEnv({ STEAMHARNESS_SERVER_URL: server.url, STEAMHARNESS_SERVER_TOKEN: a.token });
    const viaEnv = await runCli(["config", "import", projectDir, file, "--expected-revision", "0", "--data-dir", dataDir, "--auth-dir", authDir], { env: envA });
    expect([viaEnv.code, viaEnv.stderr]).toEqual([0, expect.stringContaining("as account env-account (STEAMHARNESS_SERVER_* variables)")]);
    expect((await storeA.get(PROJECT, "main"))?.values).toEqual({ title: "from the environment" });
    expect((await storeB.get(PROJECT, "main"))?.values).toEqual({ title: "from the saved login" });

    // The admin key acts as the account STEAMHARNESS_SERVER_ACCOUNT names.
    const envAdmin = cleanEnv({ STEAMHARNESS_SERVER_URL: server.url, STEAMHARNESS_SERVER_ADMIN_KEY: ADMIN_KEY, STEAMHARNESS_SERVER_ACCOUNT: "env-account" });
    const asAdmin = await runCli(["config", "show", projectDir, "--data-dir", dataDir, "--auth-dir", authDir], { env: envAdmin });
    expect(JSON.parse(asAdmin.stdout).configurations[0].values).toEqual({ title: "from the environment" });

    // Bad input through the server: a malformed document is exit 2 and changes nothing.
    const revision = (await storeA.read(PROJECT)).revision;
    await writeFile(file, JSON.stringify({ ...documentWith("x"), version: 99 }));
    const bad = await runCli(["config", "import", projectDir, file, "--expected-revision", String(revision), "--data-dir", dataDir], { env: envA });
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining("version")]);
    expect((await storeA.read(PROJECT)).revision).toBe(revision);

    // A server URL without a credential never falls back to the local store.
    const noCredential = await runCli(["config", "show", projectDir, "--data-dir", dataDir, "--auth-dir", authDir], { env: cleanEnv({ STEAMHARNESS_SERVER_URL: server.url }) });
    expect([noCredential.code, noCredential.stderr]).toEqual([2, expect.stringContaining("STEAMHARNESS_SERVER_TOKEN")]);
    expect(existsSync(join(dataDir, "configurations.sqlite"))).toBe(false);

    // Logged out, the CLI is back on the local store.
    expect((await runCli(["logout", "--auth-dir", authDir])).code).toBe(0);
    const local = await runCli(["config", "show", projectDir, "--data-dir", dataDir, "--auth-dir", authDir]);
    expect(JSON.parse(local.stdout)).toMatchObject({ revision: 0, configurations: [] });
    const localStore = createSqliteProjectConfigurationStore({ dataDir });
    expect((await localStore.read(PROJECT)).revision).toBe(0);
    await localStore.close?.();
  }, 240_000);
});
