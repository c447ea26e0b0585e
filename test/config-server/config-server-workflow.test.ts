// CFG-4 with WF-2: `steamharness run` with a saved login (`login --auth-dir`) takes the run's
// configuration snapshot from the configuration server — the account's STEAMHARNESS_AGENT_MODELS —
// and not from the local store of the data dir (real server, real CLI and worker processes).
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { createHttpProjectConfigurationStore } from "../../src/adapters/driven/config-server-client/http-project-configuration-store.js";
import { createSqliteProjectConfigurationStore } from "../../src/adapters/driven/sqlite/configuration/sqlite-project-configuration-store.js";
import { CLI_SOURCE, runCli, writeProject } from "../cli/helpers.js";
import { createAccount, type ServerProcess, useServerInTempDir } from "./server-process.js";

const PROJECT_ID = "8e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b";
const WORKFLOW = `export default {
  entrypoints: {
    probe: {
      run(_params, context) {
        return { models: (context.node.configuration?.snapshot.STEAMHARNESS_AGENT_MODELS ?? []).map((entry) => entry.id), configurationId: context.configuration?.configurationId ?? null };
      },
    },
  },
};
`;
const entry = (id: string) => ({ id, provider: "openai", model: `m-${id}`, apiKind: "openai-responses" as const, system: true });

describe("CFG-4 workflow runs on the configuration server", () => {
  let root = "";
  let server: ServerProcess;
  useServerInTempDir("sh-cfg-wf-", (started) => ({ dir: root, server } = started));

  it("CFG-4 `steamharness run` with a saved login reads the account's configuration, not the local store", async () => {
    const account = await createAccount(server.url, "workflow-owner");
    const project = await writeProject(join(root, "project"), {
      "package.json": JSON.stringify({ name: "cfg4-workflow", type: "module", id: PROJECT_ID, projectType: "workflow", main: "workflow.mjs" }),
      "workflow.mjs": WORKFLOW,
    });
    const dataDir = join(root, "data");
    const authDir = join(root, "auth");
    const local = createSqliteProjectConfigurationStore({ dataDir });
    await local.create(PROJECT_ID, { configurationId: "local", name: "Local", values: { STEAMHARNESS_AGENT_MODELS: [entry("local-entry")] } });
    await local.close?.();
    const remote = createHttpProjectConfigurationStore({ url: server.url, credential: { token: account.token } });
    await remote.create(PROJECT_ID, { configurationId: "remote", name: "Remote", values: { STEAMHARNESS_AGENT_MODELS: [entry("server-entry")] } });

    const before = await runCli(["run", project, "probe", "--json", "--data-dir", dataDir, "--auth-dir", authDir], { argsPrefix: CLI_SOURCE });
    expect(JSON.parse(before.stdout).result.data.output).toEqual({ models: ["local-entry"], configurationId: "local" });

    expect((await runCli(["login", "--server", server.url, "--token", account.token, "--auth-dir", authDir])).code).toBe(0);
    const after = await runCli(["run", project, "probe", "--json", "--data-dir", dataDir, "--auth-dir", authDir], { argsPrefix: CLI_SOURCE });
    expect([after.code, after.stderr]).toEqual([0, ""]);
    expect(JSON.parse(after.stdout).result.data.output).toEqual({ models: ["server-entry"], configurationId: "remote" });
  }, 240_000);
});
