// DX-13: every `config` command says on stderr which store it read — the local file, or the
// server URL and account — and, when STEAMHARNESS_SERVER_* variables hide a saved login, that
// they take precedence over it. A real `steamharness server`, `login`, and `config show` with
// the admin key exported as docs/configuration-server.md's first block does.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, jest } from "@jest/globals";
import { cleanEnv, runCli, writeProject } from "../cli/helpers.js";
import { ADMIN_KEY, createAccount, type ServerProcess, useServerInTempDir } from "./server-process.js";

jest.setTimeout(120_000);

const PROJECT = "6c1e2f3a-4b5d-4e6f-8a9b-0c1d2e3f4a5b";
const document = {
  format: "steamharness.project-configuration",
  version: 1,
  fields: [{ key: "title", type: "string" }],
  currentConfigurationId: "main",
  configurations: [{ configurationId: "main", name: "Main", values: { title: "on the server" } }],
};

describe("DX-13 config commands say which store they read", () => {
  let dir = "";
  let server: ServerProcess;
  useServerInTempDir("sh-dx13-", (started) => ({ dir, server } = started));

  it("DX-13: config show names the local file, then the server and account of the saved login, and says when the admin key in the environment takes precedence", async () => {
    const team = await createAccount(server.url, "team-a");
    const project = await writeProject(join(dir, "project"), { "package.json": JSON.stringify({ id: PROJECT, projectType: "workflow", main: "w.mjs" }) });
    const dataDir = join(dir, "data");
    const dirs = ["--data-dir", dataDir, "--auth-dir", dataDir];
    const show = (env: Record<string, string> = cleanEnv()) => runCli(["config", "show", project, ...dirs], { env });
    const local = `[steamharness] configuration store: local ${join(dataDir, "configurations.sqlite")}`;

    const before = await show();
    expect([before.code, before.stderr]).toEqual([0, `${local}\n`]);

    const login = await runCli(["login", "--server", server.url, "--token", team.token, "--auth-dir", dataDir]);
    expect(login.code).toBe(0);
    const saved = join(dataDir, "workflow-auth.json");
    const file = join(dir, "import.json");
    await writeFile(file, JSON.stringify(document));
    const imported = await runCli(["config", "import", project, file, "--expected-revision", "0", ...dirs]);
    expect([imported.code, imported.stderr]).toEqual([0, `[steamharness] configuration store: server ${server.url} as account team-a (saved login ${saved})\n`]);
    const viaLogin = await show();
    expect(JSON.parse(viaLogin.stdout)).toMatchObject({ revision: 1 });
    expect(viaLogin.stderr).toBe(imported.stderr);

    // The trap: the admin key exported for `steamharness server` hides the saved login.
    const withAdminKey = await show(cleanEnv({ STEAMHARNESS_SERVER_ADMIN_KEY: ADMIN_KEY }));
    expect(JSON.parse(withAdminKey.stdout)).toMatchObject({ revision: 0 });
    expect(withAdminKey.stderr).toBe(
      `${local}; the environment's STEAMHARNESS_SERVER_ADMIN_KEY take precedence over the saved login ${saved} (${server.url}); unset STEAMHARNESS_SERVER_ADMIN_KEY to use the saved login\n`,
    );

    const asAdmin = await show(cleanEnv({ STEAMHARNESS_SERVER_URL: server.url, STEAMHARNESS_SERVER_ADMIN_KEY: ADMIN_KEY, STEAMHARNESS_SERVER_ACCOUNT: "team-a" }));
    expect(JSON.parse(asAdmin.stdout)).toMatchObject({ revision: 1 });
    expect(asAdmin.stderr).toBe(
      `[steamharness] configuration store: server ${server.url} as account team-a (STEAMHARNESS_SERVER_* variables); the environment's STEAMHARNESS_SERVER_URL, STEAMHARNESS_SERVER_ADMIN_KEY, STEAMHARNESS_SERVER_ACCOUNT take precedence over the saved login ${saved} (${server.url})\n`,
    );
    expect(asAdmin.stderr).not.toContain(ADMIN_KEY);
  });
});
