/**
 * Entry of a workflow worker process (built as dist/workflow-worker.js), and its composition
 * (ARCH-7): the worker's life and each run are the app's (src/app/workflow-runs/worker-service.ts),
 * the project's loading and file imports the worker-process adapter's, the stores this root's.
 * The host forks it with an IPC channel; the worker loads the project, reports its structure, then
 * runs entrypoints one at a time until the host tells it to exit (MCP-9). Project output on
 * stdout/stderr is the host's to forward; protocol messages travel only over IPC.
 */
import { openProcessRuntime } from "./telemetry.js";
import { importFileParams } from "../adapters/driven/worker-process/file-import.js";
import { loadWorkflowProject, locateWorkflowProject } from "../adapters/driven/worker-process/project-loader.js";
import { isProtocolMessage, type ParentMessage, type WorkerMessage } from "../domain/workflow/worker-protocol.js";
import { createWorkerService } from "../app/workflow-runs/worker-service.js";
import { openWorkflowStorage } from "./workflow-storage.js";
import type { WorkflowDataDirs } from "../adapters/driven/worker-process/data-dirs.js";
import { projectFiles, workflowRunStores } from "./workflow-runs.js";

const send = (message: WorkerMessage): Promise<void> =>
  new Promise((resolveSend) => {
    if (!process.send || !process.connected) return resolveSend();
    process.send(message, undefined, {}, () => resolveSend());
  });

const worker = createWorkerService<WorkflowDataDirs>({
  send,
  loadProject: async (projectDir) => loadWorkflowProject(await locateWorkflowProject(projectDir)),
  openStorage: openWorkflowStorage,
  importFiles: importFileParams,
  makeDirectory: projectFiles.makeDirectory,
  stores: workflowRunStores,
  // OBS-3: with an OTLP endpoint in the environment the worker reports its runs' spans too.
  // ARCH-6: the worker process's one runtime, built at start (telemetry included) and handed to each run.
  runtime: openProcessRuntime(),
  exitProcess: (code) => process.exit(code),
  warn: (line) => process.stderr.write(`${line}\n`),
});

process.on("message", (raw: unknown) => {
  if (isProtocolMessage(raw)) worker.handle(raw as ParentMessage);
});
// The host going away (cancel, crash, shutdown) ends the run: a worker never outlives its host.
process.on("disconnect", () => {
  worker.abort();
  process.exit(0);
});
if (!process.send) {
  process.stderr.write("[steamharness] workflow-worker must be started by steamharness (it needs an IPC channel)\n");
  process.exit(2);
}
