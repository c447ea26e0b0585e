import { afterAll, afterEach, beforeAll, expect, it, jest } from "@jest/globals";
import { fork, type ChildProcess } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { resolveDataDirs, type WorkflowDataDirs } from "../../src/adapters/driven/worker-process/data-dirs.js";
import type { WorkerConfig } from "../../src/app/workflow-runs/worker-config.js";
import { resolveWorkerEntry } from "../../src/adapters/driven/worker-process/worker-process.js";
import { dataDirDefaults, projectFiles } from "../../src/compose/workflow-runs.js";
import type { ParentMessage, WorkerMessage } from "../../src/domain/workflow/worker-protocol.js";
import { cleanEnv, cleanup, tempDir, writeProject } from "../cli/helpers.js";

// MCP-9: a reused worker's per-call work. A run's `fileCreateDir` is created when the run reads
// it, so a run that never does costs no file-system call, and a run finds it even after an
// earlier run removed it. The worker is the real process, driven over its IPC protocol by the
// test as a host would drive it.
jest.setTimeout(60_000);

let tmp: string;
let projectDir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  tmp = await tempDir("sh-worker-created-");
  projectDir = await writeProject(join(tmp, "project"), {
    "package.json": JSON.stringify({ type: "module", id: "66666666-6666-4666-8666-666666666666", projectType: "workflow", main: "workflow.mjs" }),
    "workflow.mjs": `import { rmSync, writeFileSync } from "node:fs";
export default { entrypoints: {
  ping: { title: "Ping", run: () => ({ pong: true }) },
  create: { title: "Create", run: (_params, context) => { writeFileSync(context.fileCreateDir + "/made.txt", "x"); return { made: true }; } },
  remove: { title: "Remove", run: (_params, context) => { rmSync(context.fileCreateDir, { recursive: true, force: true }); return { removed: true }; } },
} };\n`,
  });
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});
afterAll(async () => {
  await cleanup(tmp);
});

/** A worker process on a fresh data dir, with the messages it sent so far and a way to wait for the next of a type. */
async function startWorker(dataDirName: string): Promise<{
  dirs: WorkflowDataDirs;
  send: (message: ParentMessage) => void;
  next: (type: WorkerMessage["type"]) => Promise<WorkerMessage & { at: number }>;
}> {
  const dirs = resolveDataDirs({ dataDir: join(tmp, dataDirName) }, { ...dataDirDefaults(), home: tmp }, projectDir);
  const entry = resolveWorkerEntry(new URL("../../src/compose/workflow-worker.ts", import.meta.url).href);
  const child = fork(entry.path, [], { execArgv: entry.execArgv, env: cleanEnv(), cwd: projectDir, stdio: ["ignore", "inherit", "inherit", "ipc"], serialization: "json" });
  children.push(child);
  const received: Array<WorkerMessage & { at: number }> = [];
  const waiters: Array<() => void> = [];
  child.on("message", (message: WorkerMessage) => {
    received.push({ ...message, at: Date.now() });
    for (const wake of waiters.splice(0)) wake();
  });
  const next = async (type: WorkerMessage["type"]) => {
    for (;;) {
      const index = received.findIndex((message) => message.type === type);
      if (index >= 0) return received.splice(index, 1)[0]!;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  const send = (message: ParentMessage) => void child.send(message);
  const config: WorkerConfig = { projectDir, dirs, relatedProjects: [], openStorage: true };
  send({ type: "init", config });
  await next("ready");
  return { dirs, send, next };
}

const run = (entrypointId: string) => ({ runId: `20261202-${Math.random().toString(16).slice(2, 14).padEnd(12, "0")}`, entrypointId, params: {}, files: {}, newRun: true });

it("MCP-9 a run's fileCreateDir exists when the run reads it, also after an earlier run removed it; a run that never reads it creates nothing", async () => {
  const worker = await startWorker("data-created");
  const call = async (entrypointId: string) => {
    const request = run(entrypointId);
    worker.send({ type: "run", run: request });
    const { report, reusable } = (await worker.next("report")) as Extract<WorkerMessage, { type: "report" }>;
    expect(reusable).toBe(true);
    return report;
  };
  expect(await call("ping")).toMatchObject({ status: "success" });
  expect(existsSync(worker.dirs.fileCreateStoreDir)).toBe(false);
  expect(await call("create")).toMatchObject({ status: "success", result: { data: { output: { made: true } } } });
  expect(existsSync(join(worker.dirs.fileCreateStoreDir, "made.txt"))).toBe(true);
  expect(await call("remove")).toMatchObject({ status: "success" });
  expect(existsSync(worker.dirs.fileCreateStoreDir)).toBe(false);
  expect(await call("create")).toMatchObject({ status: "success", result: { data: { output: { made: true } } } });
  expect(existsSync(join(worker.dirs.fileCreateStoreDir, "made.txt"))).toBe(true);
  rmSync(worker.dirs.fileCreateStoreDir, { recursive: true, force: true });
});
