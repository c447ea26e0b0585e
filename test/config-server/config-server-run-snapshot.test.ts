// CFG-4 with CFG-2: a run's configuration snapshot taken through the configuration server's client
// (real server process) is kept with the run; the same run id gets it back after the
// configuration on the server changed, a new run sees the change.
import { describe, expect, it } from "@jest/globals";
import { createHttpProjectConfigurationStore } from "../../src/adapters/driven/config-server-client/http-project-configuration-store.js";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { createSystemClock } from "../../src/adapters/driven/system/clock.js";
import { snapshotForRun } from "../../src/domain/configuration/run-snapshot.js";
import { createAccount, type ServerProcess, useServerInTempDir } from "./server-process.js";

describe("CFG-4 run snapshots from the configuration server", () => {
  let dir = "";
  let server: ServerProcess;
  useServerInTempDir("sh-cfg-snapshot-", (started) => ({ dir, server } = started));

  it("CFG-4 a run keeps the snapshot it took from the server; a new run reads the current configuration", async () => {
    const account = await createAccount(server.url, "runner");
    const store = createHttpProjectConfigurationStore({ url: server.url, credential: { token: account.token } });
    const projectId = "3c5e7a9b-2d4f-4a6c-8e0a-1b3d5f7a9c2e";
    const models = (model: string) => [{ id: "main", provider: "openai", model, apiKind: "openai-responses" as const, system: true }];
    await store.create(projectId, { configurationId: "main", name: "Main", values: { STEAMHARNESS_AGENT_MODELS: models("first-model") } });
    const { values } = new MemoryStorage();
    const clock = createSystemClock();
    const first = await snapshotForRun({ store, values, projectId, runId: "run-1", clock });
    expect(first).toMatchObject({ projectId, configurationId: "main", configurationRevision: 1, STEAMHARNESS_AGENT_MODELS: [{ model: "first-model" }] });

    await store.update(projectId, "main", { expectedRevision: 1, values: { STEAMHARNESS_AGENT_MODELS: models("second-model") } });
    expect(await snapshotForRun({ store, values, projectId, runId: "run-1", clock })).toEqual(first);
    expect(await snapshotForRun({ store, values, projectId, runId: "run-2", clock })).toMatchObject({ configurationRevision: 2, STEAMHARNESS_AGENT_MODELS: [{ model: "second-model" }] });
  });
});
