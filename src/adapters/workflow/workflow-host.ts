import { randomBytes } from "node:crypto";
import type { TObject } from "@sinclair/typebox";
import { SteamharnessError } from "../../domain/errors.js";
import type { JsonValue } from "../../domain/json.js";
import { validateArguments } from "../../domain/workflow/argument-validation.js";
import { entrypointInputSchema } from "../../domain/workflow/param-schema.js";
import type { WorkflowRunReport } from "../../domain/workflow/run-report.js";
import type { StructureEntrypoint, StructureReport } from "../../domain/workflow/workflow-definition.js";
import { checkFileParams } from "./file-params.js";
import type { WorkflowProjectLocation } from "./project-location.js";
import { precheckWorkflowHost, type DataDirOptions, type PrecheckedWorkflowHost, type WorkflowDataDirs } from "./host-options.js";
import { readProjectEnv, readSavedAuth, resolveServerAuth, workerEnvironment, type ResolvedServerAuth } from "./project-env.js";
import { secretValues } from "../../domain/redaction.js";
import { runInWorker } from "./run-host.js";
import { WorkerPool, type RunHandlers, type WorkflowWorker } from "./worker-process.js";

/** Options of {@link createWorkflowHost}. */
export interface WorkflowHostOptions {
  projectDir: string;
  dirs?: DataDirOptions;
  /** `alias=/abs/dir` values of `--related-project`. */
  relatedProjects?: readonly string[];
  /** The process environment (explicit variables); `process.env` by default. */
  env?: Record<string, string | undefined>;
  /** Workers kept loaded ahead of calls (0 for one-shot CLI runs). */
  warmWorkers?: number;
  /** Kill a run after this many milliseconds (status `timeout`); none by default. */
  timeoutMs?: number;
  /** Where worker output goes (never the host's stdout); `process.stderr` by default. */
  output?: NodeJS.WritableStream;
  /** Results of {@link precheckWorkflowHost}, so the checks are not repeated. */
  prechecked?: PrecheckedWorkflowHost;
}

/** Checked arguments of one run: plain params and, apart, the real paths of file params. */
export interface PreparedArguments {
  params: Record<string, JsonValue>;
  files: Record<string, string | string[]>;
}

/** A workflow project ready to serve: structure, argument checks and isolated runs. */
export interface WorkflowHost {
  readonly location: WorkflowProjectLocation;
  readonly dirs: WorkflowDataDirs;
  readonly auth: ResolvedServerAuth;
  /** Credential values (admin key, secret-looking env variables) to redact from results. */
  readonly secrets: readonly string[];
  /** The structure report, computed once by a worker (project code never runs in the host). */
  structure(): Promise<StructureReport>;
  /** The entrypoint, or `not_found`. */
  entrypoint(id: string): Promise<StructureEntrypoint>;
  /** Validates arguments (schema, then file paths); `input_validation` with every problem. */
  prepare(entrypoint: StructureEntrypoint, args: unknown): Promise<PreparedArguments>;
  /** Runs an entrypoint in its own worker and resolves the run report. */
  run(entrypoint: StructureEntrypoint, prepared: PreparedArguments, handlers: RunHandlers, signal?: AbortSignal): Promise<WorkflowRunReport>;
  close(): Promise<void>;
}

/**
 * A run id: the UTC date and 12 random hex digits, e.g. `20260828-1a2b3c4d5e6f`.
 *
 * @example
 * newRunId(new Date("2026-08-28T10:00:00Z")) // "20260828-…"
 */
export function newRunId(now: Date = new Date()): string {
  return `${now.toISOString().slice(0, 10).replace(/-/g, "")}-${randomBytes(6).toString("hex")}`;
}

/**
 * Opens a workflow project for serving: reads its manifest and `.env`, resolves data dirs,
 * related projects and the server login, and starts the warm worker pool.
 *
 * @example
 * const host = await createWorkflowHost({ projectDir: "/abs/project", warmWorkers: 1 });
 * const structure = await host.structure();
 */
export async function createWorkflowHost(options: WorkflowHostOptions): Promise<WorkflowHost> {
  const { location, dirs, relatedProjects } = options.prechecked ?? (await precheckWorkflowHost(options));
  const processEnv = options.env ?? process.env;
  const projectEnv = await readProjectEnv(location.directory);
  const auth = resolveServerAuth(processEnv, projectEnv, await readSavedAuth(dirs.authDir));
  const env = workerEnvironment(processEnv, projectEnv, auth);
  const pool = new WorkerPool(
    {
      config: { projectDir: location.directory, dirs, relatedProjects, openStorage: (options.warmWorkers ?? 0) > 0 },
      env,
      ...(options.output ? { output: options.output } : {}),
    },
    options.warmWorkers ?? 0,
  );
  let structure: Promise<StructureReport> | undefined;
  const schemas = new Map<string, TObject>();
  const active = new Set<WorkflowWorker>();
  const host: WorkflowHost = {
    location,
    dirs,
    auth,
    secrets: secretValues(env),
    structure() {
      structure ??= pool.peek().ready;
      return structure;
    },
    async entrypoint(id) {
      const found = (await host.structure()).entrypoints.find((entry) => entry.id === id);
      if (!found) throw new SteamharnessError("not_found", `unknown entrypoint ${JSON.stringify(id)}`, { field: "entrypoint" });
      return found;
    },
    async prepare(entrypoint, args) {
      let schema = schemas.get(entrypoint.id);
      if (!schema) schemas.set(entrypoint.id, (schema = entrypointInputSchema(entrypoint.params)));
      const problems = validateArguments(schema, args ?? {});
      if (problems.length > 0) {
        throw new SteamharnessError("input_validation", `invalid arguments for ${entrypoint.id}: ${problems.join("; ")}`, { data: { problems } });
      }
      return checkFileParams(entrypoint.params, (args ?? {}) as Record<string, JsonValue>);
    },
    async run(entrypoint, prepared, handlers, signal) {
      const worker = pool.take();
      active.add(worker);
      worker.child.once("exit", () => active.delete(worker));
      const request = { runId: newRunId(), entrypointId: entrypoint.id, params: prepared.params, files: prepared.files };
      return runInWorker(worker, request, {
        projectId: location.manifest.id,
        handlers,
        ...(signal ? { signal } : {}),
        ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      });
    },
    async close() {
      await Promise.all([pool.close(), ...[...active].map((worker) => worker.finish())]);
    },
  };
  return host;
}
