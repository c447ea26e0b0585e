import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createHostRunSnapshots } from "../../src/app/workflow-runs/host-run-snapshots.js";
import { resolveDataDirs, type WorkflowDataDirs } from "../../src/adapters/driven/worker-process/data-dirs.js";
import { WorkerPool } from "../../src/app/workflow-runs/worker-pool.js";
import { WorkflowWorker } from "../../src/adapters/driven/worker-process/worker-process.js";
import type { WorkerRunRequest } from "../../src/domain/workflow/worker-protocol.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { dataDirDefaults, projectFiles, workflowRunPorts } from "../../src/compose/workflow-runs.js";
import { openProjectRunner } from "../../src/app/workflow-runs/project-runner.js";
import type { ProjectRunner } from "../../src/ports/project-runner.js";
import { createSqliteProjectConfigurationStore } from "../../src/adapters/driven/sqlite/configuration/sqlite-project-configuration-store.js";
import { RUN_SNAPSHOT_PREFIX } from "../../src/domain/configuration/run-snapshot.js";
import { parseProjectConfigurationSnapshot, type ProjectConfigurationSnapshot } from "../../src/domain/configuration/snapshot.js";
import { interactionRequired } from "../../src/domain/workflow/run-report.js";
import type { ProjectConfigurationStore } from "../../src/ports/project-configuration-store.js";
import { cleanEnv, cleanup, tempDir, writeProject } from "../cli/helpers.js";
import { testWorkflowRunPorts } from "../fixtures/workflow-run-ports.js";

// CFG-2 on a worker pool's host (host-run-snapshots.ts): a new run's snapshot is taken by the
// host as it dispatches the run, used by the worker as it was sent (the worker reads no store and
// writes nothing), and saved by the host — only for a run that paused — before the run's report is handed back.
jest.setTimeout(60_000);

const PROJECT_ID = "67676767-6767-4767-8767-676767676767";
const handlers = { onInput: () => Promise.reject(new Error("no input")), onApproval: () => Promise.reject(new Error("no approval")) };
let tmp: string;
let projectDir: string;
let dirs: WorkflowDataDirs;
let store: ProjectConfigurationStore;

beforeAll(async () => {
  tmp = await tempDir("sh-host-snapshots-");
  projectDir = await writeProject(join(tmp, "project"), {
    "package.json": JSON.stringify({ type: "module", id: PROJECT_ID, projectType: "workflow", main: "workflow.mjs" }),
    "workflow.mjs": [
      `import { existsSync } from "node:fs";`,
      `const title = (_params, context) => ({ title: context.configuration.values.title ?? null, takenAt: context.configuration.takenAt, frozen: Object.isFrozen(context.configuration) });`,
      // Holds its worker until the file named by \`until\` exists, then answers like title.
      `import { writeFileSync } from "node:fs";`,
      `const hold = async (params, context) => { writeFileSync(params.until + ".started", ""); while (!existsSync(params.until)) await new Promise((r) => setTimeout(r, 10)); return title(params, context); };`,
      // Asks for input, then answers like title: its run pauses when nobody is there to answer.
      `const ask = async (params, context) => { await context.userInput.request({ message: "Name?", fields: [{ name: "name", type: "string", required: true }] }); return title(params, context); };`,
      `export default { entrypoints: { title: { title: "Title", run: title }, hold: { title: "Hold", params: [{ name: "until", type: "string", required: true }], run: hold }, ask: { title: "Ask", run: ask }, again: { title: "Again", resumable: true, run: title } } };`,
      ``,
    ].join("\n"),
  });
  dirs = resolveDataDirs({ dataDir: join(tmp, "data") }, { ...dataDirDefaults(), home: tmp }, projectDir);
  store = createSqliteProjectConfigurationStore({ dataDir: dirs.dataDir });
  await store.setFields(PROJECT_ID, [{ key: "title", type: "string" }], { expectedRevision: 0 });
  await store.create(PROJECT_ID, { configurationId: "main", name: "Main", values: { title: "first" } });
});
afterAll(async () => {
  await store.close?.();
  await cleanup(tmp);
});

/** `take()` once the background open is done (it answers `undefined` until then). */
async function taken(snapshots: ReturnType<typeof createHostRunSnapshots>): Promise<ProjectConfigurationSnapshot> {
  for (let i = 0; i < 200; i++) {
    const taking = snapshots.take();
    if (taking) return taking;
    await new Promise((resolveWait) => setTimeout(resolveWait, 10));
  }
  throw new Error("the host's stores never opened");
}

/** Runs `title` until a run message carries the host's snapshot (its stores open once the project has loaded). */
async function untilHostTakes(runner: ProjectRunner, requests: WorkerRunRequest[]): Promise<void> {
  const entrypoint = await runner.entrypoint("title");
  for (let i = 0; i < 100; i++) {
    await runner.run(entrypoint, runner.prepare(entrypoint, {}) as never, handlers);
    if (requests.at(-1)?.snapshot) return;
    await new Promise((resolveWait) => setTimeout(resolveWait, 10));
  }
  throw new Error("the host never took a snapshot");
}

/** Spies on the run messages workers are given. */
function spyRuns(): { requests: WorkerRunRequest[]; restore(): void } {
  const requests: WorkerRunRequest[] = [];
  const run = WorkflowWorker.prototype.run;
  const spy = jest.spyOn(WorkflowWorker.prototype, "run").mockImplementation(function (this: WorkflowWorker, request, runHandlers) {
    requests.push(request);
    return run.call(this, request, runHandlers);
  });
  return { requests, restore: () => spy.mockRestore() };
}

/** A one-worker runner of the project whose host takes snapshots by now; `requests` are its run messages. */
async function withHostRunner(body: (runner: ProjectRunner, requests: WorkerRunRequest[]) => Promise<void>): Promise<void> {
  const { requests, restore } = spyRuns();
  const runner = await openProjectRunner({ projectDir, ports: testWorkflowRunPorts(), dirs: { dataDir: dirs.dataDir }, workers: 1, env: cleanEnv() });
  try {
    await runner.preloadValidation();
    await untilHostTakes(runner, requests);
    await body(runner, requests);
  } finally {
    await runner.close();
    restore();
  }
}

async function savedSnapshot(runId: string): Promise<unknown> {
  const storage = createSqliteStorage({ directory: dirs.persistentValueStoreDir });
  try {
    return await storage.values.get(PROJECT_ID, `${RUN_SNAPSHOT_PREFIX}${runId}`);
  } finally {
    await storage.close();
  }
}

describe("CFG-2 a pool's host takes its new runs' snapshots and keeps a paused run's", () => {
  it("CFG-2 take() says 'not here' until the host's stores are open (the worker takes it then), then takes the current configuration; save() commits it under the run id; disabled, it never takes", async () => {
    const disabled = createHostRunSnapshots({ stores: workflowRunPorts().stores, projectId: PROJECT_ID, dataDir: dirs.dataDir, persistentValueStoreDir: dirs.persistentValueStoreDir, enabled: false });
    disabled.open();
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
    expect(disabled.take()).toBeUndefined();
    await disabled.close();

    const snapshots = createHostRunSnapshots({ stores: workflowRunPorts().stores, projectId: PROJECT_ID, dataDir: dirs.dataDir, persistentValueStoreDir: dirs.persistentValueStoreDir, enabled: true });
    expect(snapshots.take()).toBeUndefined();
    snapshots.open();
    const snapshot = await taken(snapshots);
    expect(snapshot).toMatchObject({ version: 1, projectId: PROJECT_ID, configurationId: "main", values: { title: "first" } });
    expect(await snapshots.save("20261204-aaaaaaaaaaaa", snapshot)).toBeUndefined();
    expect(parseProjectConfigurationSnapshot(await savedSnapshot("20261204-aaaaaaaaaaaa"))).toEqual(snapshot);
    await snapshots.close();
    // Closed: nothing is taken, and a save says why it could not be made (a typed error, no throw).
    expect(snapshots.take()).toBeUndefined();
    const failed = await snapshots.save("20261204-bbbbbbbbbbbb", snapshot);
    expect(failed).toMatchObject({ code: "storage_failure" });
    expect(failed?.message).toMatch(/saving the run's configuration snapshot/);
    expect(await savedSnapshot("20261204-bbbbbbbbbbbb")).toBeNull();
  });

  it("CFG-2 a worker runs with the snapshot its host sent, read-only, without reading the configuration store or saving anything itself", async () => {
    const pool = new WorkerPool({ config: { projectDir, dirs, relatedProjects: [], openStorage: true }, env: cleanEnv() }, { workers: testWorkflowRunPorts().workers, size: 1 });
    try {
      pool.start();
      const lease = await pool.acquire();
      const sent = { version: 1, projectId: PROJECT_ID, configurationId: "main", configurationName: "Main", configurationRevision: 1, projectRevision: 1, takenAt: 12345, values: { title: "from the host" }, STEAMHARNESS_AGENT_MODELS: [], agentModelPolicy: { allowThirdParty: true } } as ProjectConfigurationSnapshot;
      const outcome = await lease.worker.run({ runId: "20261204-cccccccccccc", entrypointId: "title", params: {}, files: {}, newRun: true, snapshot: sent }, handlers);
      lease.release();
      expect(outcome).toMatchObject({ kind: "report", report: { status: "success", result: { data: { output: { title: "from the host", takenAt: 12345, frozen: true } } } } });
      // The store says "first": the worker did not take a snapshot of its own, nor save the one it was sent.
      expect(await savedSnapshot("20261204-cccccccccccc")).toBeNull();
    } finally {
      await pool.close();
    }
  });

  it("CFG-2 through the runner: the host sends the run its snapshot; a run that ends keeps none, a run that pauses or whose entrypoint is declared resumable has it saved under its run id by the time run() resolves and its answer reads it back after the configuration changed, and a configuration changed by another process is in the next run's", async () => {
    await withHostRunner(async (runner, requests) => {
      const [entrypoint, ask] = [await runner.entrypoint("title"), await runner.entrypoint("ask")];
      const runOnce = async () => {
        const report = await runner.run(entrypoint, runner.prepare(entrypoint, {}) as never, handlers);
        expect(report.status).toBe("success");
        const output = report.result.data.output as { title: string; takenAt: number };
        // Taken by the host: the run message carried the snapshot the run read.
        expect(requests.at(-1)).toMatchObject({ runId: report.runId, newRun: true, snapshot: { values: { title: output.title }, takenAt: output.takenAt } });
        // Ended: it is never run again on its id, so nothing is kept for it.
        expect(await savedSnapshot(report.runId)).toBeNull();
        return output.title;
      };
      expect(await runOnce()).toBe("first");
      await store.update(PROJECT_ID, "main", { expectedRevision: 1, values: { title: "second" } });
      expect(await runOnce()).toBe("second");
      // Nobody answers: the run pauses, and the snapshot it was sent is saved for its answer.
      const pausing = { ...handlers, onInput: (request: { requestId: string; message: string }) => Promise.reject(interactionRequired({ kind: "input", requestId: request.requestId, message: request.message, fields: [] }, "nobody answers")) };
      const paused = await runner.run(ask, runner.prepare(ask, {}) as never, pausing);
      expect(paused.status).toBe("waiting_for_input");
      const saved = parseProjectConfigurationSnapshot(await savedSnapshot(paused.runId));
      expect(saved.values.title).toBe("second");
      expect(requests.at(-1)).toMatchObject({ runId: paused.runId, newRun: true, snapshot: saved });
      // Changed while it waits: the answered run (its id again) still reads the configuration it started with.
      const revision = (await store.read(PROJECT_ID)).configurations.find((c) => c.configurationId === "main")!.revision;
      await store.update(PROJECT_ID, "main", { expectedRevision: revision, values: { title: "third" } });
      const answering = { ...handlers, onInput: () => Promise.resolve({ outcome: "answered" as const, values: { name: "Ada" } }) };
      const answered = await runner.run(ask, runner.prepare(ask, {}) as never, answering, { runId: paused.runId });
      expect(answered.status).toBe("success");
      expect((answered.result.data.output as { title: string }).title).toBe("second");
      expect(await runOnce()).toBe("third");
      // Declared resumable: another host may run it again on its id (TEN-6), so it keeps its
      // snapshot even though it ended, committed by the time run() resolves.
      const again = await runner.entrypoint("again");
      const resumable = await runner.run(again, runner.prepare(again, {}) as never, handlers);
      expect(resumable.status).toBe("success");
      expect(parseProjectConfigurationSnapshot(await savedSnapshot(resumable.runId)).values.title).toBe("third");
    });
  });

  it("CFG-2 a run that queued for a worker gets the configuration of when it started, not of when it queued", async () => {
    await withHostRunner(async (runner, requests) => {
      const [hold, title] = [await runner.entrypoint("hold"), await runner.entrypoint("title")];
      const until = join(tmp, "release-hold");
      const holding = runner.run(hold, runner.prepare(hold, { until }) as never, handlers);
      let queued = false;
      const waiting = runner.run(title, runner.prepare(title, {}) as never, handlers, { onQueued: () => (queued = true) });
      // The held run is under way (its snapshot taken) and the other one waits for its worker.
      for (let i = 0; i < 200 && !(queued && existsSync(`${until}.started`)); i++) await new Promise((resolveWait) => setTimeout(resolveWait, 10));
      expect([queued, existsSync(`${until}.started`)]).toEqual([true, true]);
      const current = await store.read(PROJECT_ID);
      const revision = current.configurations.find((c) => c.configurationId === "main")!.revision;
      await store.update(PROJECT_ID, "main", { expectedRevision: revision, values: { title: "changed while queued" } });
      await writeProject(tmp, { "release-hold": "" });
      const [held, queuedRun] = await Promise.all([holding, waiting]);
      expect((held.result.data.output as { title: string }).title).not.toBe("changed while queued");
      expect((queuedRun.result.data.output as { title: string }).title).toBe("changed while queued");
      // Both snapshots were the host's.
      expect(requests.slice(-2).map((request) => [request.entrypointId, request.snapshot !== undefined])).toEqual([["hold", true], ["title", true]]);
    });
  });
});
