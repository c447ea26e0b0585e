import { afterAll, beforeAll, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import { resolveDataDirs } from "../../src/adapters/driven/worker-process/data-dirs.js";
import { dataDirDefaults, projectFiles } from "../../src/compose/workflow-runs.js";
import { WorkerPool } from "../../src/app/workflow-runs/worker-pool.js";
import type { WorkerRunRequest } from "../../src/domain/workflow/worker-protocol.js";
import { createSqliteProjectConfigurationStore } from "../../src/adapters/driven/sqlite/configuration/sqlite-project-configuration-store.js";
import type { ProjectConfigurationStore } from "../../src/ports/project-configuration-store.js";
import { cleanEnv, cleanup, tempDir, writeProject } from "../cli/helpers.js";
import { testWorkflowRunPorts } from "../fixtures/workflow-run-ports.js";

// CFG-2 / MCP-9: a reused worker keeps its configuration store open and answers an unchanged
// configuration from memory; a configuration written by another process (this test's) is in
// the snapshot of the very next run.
jest.setTimeout(60_000);

const PROJECT_ID = "66666666-6666-4666-8666-666666666666";
let tmp: string;
let pool: WorkerPool;
let store: ProjectConfigurationStore;
const handlers = { onInput: () => Promise.reject(new Error("no input")), onApproval: () => Promise.reject(new Error("no approval")) };
let runs = 0;
const request = (): WorkerRunRequest => ({ runId: `20261202-${String(++runs).padStart(12, "0")}`, entrypointId: "title", params: {}, files: {}, newRun: true });

beforeAll(async () => {
  tmp = await tempDir("sh-worker-config-");
  const projectDir = await writeProject(join(tmp, "project"), {
    "package.json": JSON.stringify({ type: "module", id: PROJECT_ID, projectType: "workflow", main: "workflow.mjs" }),
    "workflow.mjs": `export default { entrypoints: { title: { title: "Title", run: (_params, context) => ({ title: context.configuration.values.title ?? null }) } } };\n`,
  });
  const dirs = resolveDataDirs({ dataDir: join(tmp, "data") }, { ...dataDirDefaults(), home: tmp }, projectDir);
  store = createSqliteProjectConfigurationStore({ dataDir: dirs.dataDir });
  await store.setFields(PROJECT_ID, [{ key: "title", type: "string" }], { expectedRevision: 0 });
  await store.create(PROJECT_ID, { configurationId: "main", name: "Main", values: { title: "first" } });
  pool = new WorkerPool({ config: { projectDir, dirs, relatedProjects: [], openStorage: true }, env: cleanEnv() }, { workers: testWorkflowRunPorts().workers, size: 1 });
  pool.start();
});
afterAll(async () => {
  await pool.close();
  await store.close?.();
  await cleanup(tmp);
});

async function titleOfRun(): Promise<{ title: unknown; pid: number | undefined }> {
  const lease = await pool.acquire();
  try {
    const outcome = await lease.worker.run(request(), handlers);
    if (outcome.kind !== "report") throw new Error(outcome.message);
    return { title: (outcome.report.result.data.output as { title: unknown }).title, pid: lease.worker.pid };
  } finally {
    lease.release();
  }
}

it("CFG-2 a configuration written by another process is in the very next run's snapshot, in the same reused worker", async () => {
  const first = await titleOfRun();
  expect(first.title).toBe("first");
  expect((await titleOfRun()).title).toBe("first");
  await store.update(PROJECT_ID, "main", { expectedRevision: 1, values: { title: "second" } });
  const next = await titleOfRun();
  expect(next).toEqual({ title: "second", pid: first.pid });
  await store.update(PROJECT_ID, "main", { expectedRevision: 2, values: { title: "third" } });
  expect(await titleOfRun()).toEqual({ title: "third", pid: first.pid });
});
