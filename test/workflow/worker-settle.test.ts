import { afterAll, afterEach, beforeAll, expect, it, jest } from "@jest/globals";
import { fork, type ChildProcess } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { resolveDataDirs, type WorkflowDataDirs } from "../../src/adapters/in/project-runner/host-options.js";
import { resolveWorkerEntry } from "../../src/adapters/in/project-runner/worker-process.js";
import { WORKER_SETTLE_WAIT_MS, type ParentMessage, type WorkerMessage } from "../../src/adapters/in/project-runner/worker-protocol.js";
import { cleanEnv, cleanup, tempDir, writeProject } from "../cli/helpers.js";

// MCP-9: a reused worker's per-call work. The worker cleans up after a run (and sends its
// verdict) once the host has answered its caller (`settle`), or after WORKER_SETTLE_WAIT_MS when
// no settle comes; and a run's `fileCreateDir` is created when the run reads it, so a run that
// never does costs no file-system call. The worker is the real process, driven over its IPC
// protocol by the test as a host would drive it.
jest.setTimeout(60_000);

let tmp: string;
let projectDir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  tmp = await tempDir("sh-worker-settle-");
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
  pending: (type: WorkerMessage["type"]) => boolean;
}> {
  const dirs = resolveDataDirs({ dataDir: join(tmp, dataDirName) }, tmp, projectDir);
  const entry = resolveWorkerEntry();
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
  send({ type: "init", config: { projectDir, dirs, relatedProjects: [], openStorage: true } });
  await next("ready");
  return { dirs, send, next, pending: (type) => received.some((message) => message.type === type) };
}

const run = (entrypointId: string) => ({ runId: `20261202-${Math.random().toString(16).slice(2, 14).padEnd(12, "0")}`, entrypointId, params: {}, files: {}, newRun: true });

it("MCP-9 a worker sends its verdict only after the host settled the run's report, and after WORKER_SETTLE_WAIT_MS without one", async () => {
  const worker = await startWorker("data-settle");
  const first = run("ping");
  worker.send({ type: "run", run: first });
  const report = await worker.next("report");
  expect(report).toMatchObject({ report: { runId: first.runId, status: "success" } });
  // No verdict while the host has not settled (well inside the wait).
  await new Promise((resolve) => setTimeout(resolve, WORKER_SETTLE_WAIT_MS / 5));
  expect(worker.pending("done")).toBe(false);
  worker.send({ type: "settle", runId: first.runId });
  expect(await worker.next("done")).toMatchObject({ runId: first.runId, reusable: true });

  // A host that never settles: the worker cleans up after the wait, and is fit for another run.
  const second = run("ping");
  worker.send({ type: "run", run: second });
  const secondReport = await worker.next("report");
  const verdict = await worker.next("done");
  expect(verdict).toMatchObject({ runId: second.runId, reusable: true });
  expect(verdict.at - secondReport.at).toBeGreaterThanOrEqual(WORKER_SETTLE_WAIT_MS - 5);
});

it("MCP-9 a run's fileCreateDir exists when the run reads it, also after an earlier run removed it; a run that never reads it creates nothing", async () => {
  const worker = await startWorker("data-created");
  const call = async (entrypointId: string) => {
    const request = run(entrypointId);
    worker.send({ type: "run", run: request });
    const { report } = (await worker.next("report")) as Extract<WorkerMessage, { type: "report" }>;
    worker.send({ type: "settle", runId: request.runId });
    await worker.next("done");
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
