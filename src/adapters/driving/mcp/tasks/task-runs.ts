/**
 * Durable MCP tasks of a workflow project (MCP-13, MCP-14): a task is a workflow run (the task
 * id is the run id) recorded in a {@link McpTaskStore} that every host serving the project
 * shares. The host running a task's worker owns its row and renews a lease on it. A host that
 * finds a `working` row whose lease ran out (its owner died, and its worker with it) takes the
 * task over when its entrypoint is declared `resumable`: it claims the row (compare-and-set, one
 * host wins) and runs it again on the same run id with the same arguments and answers, so agent
 * nodes with durable sessions continue where they stopped; otherwise it reports the task
 * `failed`, saying why. A task is never stuck "working". A run that waits for a person ends its
 * worker and the row becomes `input_required` with what the run needs (no owner): any host can
 * then ask the client (tasks/result) and run it again on the same run id with the answer.
 */
import type { SurfaceServices } from "../../../../ports/surface-services.js";
import { randomUUID } from "node:crypto";
import { approvalForm, summarizeFields } from "../../../../domain/workflow/interaction.js";
import type { JsonValue } from "../../../../domain/json.js";
import type { StructureEntrypoint as WorkflowEntrypointStructure } from "../../../../domain/workflow/workflow-definition.js";
import type { McpTaskRecord, McpTaskStore } from "../../../../ports/mcp-task-store.js";
import type { TelemetryCarrier } from "../../../../ports/telemetry.js";
import type { ToolPermissionRequest } from "../../../../ports/tool-permissions.js";
import type { UserInputRequest } from "../../../../ports/user-input.js";
import { answeringHandlers, type PausedRun } from "../../../../domain/workflow/paused-run.js";
import { interactionRequired } from "../../../../domain/workflow/run-report.js";
import type { RunHandlers } from "../../../../ports/workflow-workers.js";
import type { ProjectRunner } from "../../../../ports/project-runner.js";
import { toWorkflowToolResult } from "../workflow-attachments.js";
import { GATHER_MS } from "../input-required.js";
import { startLapsedTaskSweep } from "./task-sweep.js";
import { redact } from "../workflow-result.js";
import { dataTenantOf, type RunTenantLimits } from "../transport/http-tenant.js";
import type { RunSlot } from "../transport/http-admission.js";

/** How long a task's row is kept after its last activity when the client names no TTL: one hour. */
export const DEFAULT_TASK_TTL_MS = 3_600_000;
/** The longest TTL granted (a client asking for more, or for none, gets this): seven days. */
export const MAX_TASK_TTL_MS = 7 * 86_400_000;
/** The shortest TTL granted. */
export const MIN_TASK_TTL_MS = 1000;
/** How long an owner's lease lasts when `leaseMs` is not given; renewed every third of it. */
export const DEFAULT_TASK_LEASE_MS = 15_000;
/** The poll interval suggested to clients. */
export const TASK_POLL_INTERVAL_MS = 1000;

/** The form a paused task waits for: the run's own request, so any host can ask it again. */
export type TaskForm = { kind: "input"; request: UserInputRequest } | { kind: "approval"; request: ToolPermissionRequest };

/** The `paused` JSON of a `working` task row: what another host needs to run it again (takeover). */
export interface TaskResume {
  args: JsonValue;
  answers: PausedRun["answers"];
  /** BUD-5: the tenant of the client that started the task; its later runs queue and charge as it. */
  tenant?: string;
  /** BUD-4: that tenant's key-store limits (budget, token rate), which its later runs keep to. */
  tenantLimits?: RunTenantLimits;
}

/** The `paused` JSON of a task row waiting for a person. */
export interface TaskPause extends TaskResume {
  /** The first open question (what a 2025-11-25 client is asked next). */
  pending: PausedRun["pending"];
  form: TaskForm;
  /** MCP-20: every open question, by request id (those the run asked together); absent in older rows: `pending` alone. */
  open?: Record<string, TaskForm>;
}

/** The open questions of a paused task, by request id. */
export const openForms = (pause: TaskPause): Record<string, TaskForm> => pause.open ?? { [pause.pending.requestId]: pause.form };

/** What a paused task reports as waiting for `form` (the run's own words). */
const pendingOf = (form: TaskForm): PausedRun["pending"] =>
  form.kind === "input"
    ? { kind: "input", requestId: form.request.requestId, message: form.request.message, fields: summarizeFields(form.request.fields ?? []) }
    : { kind: "approval", requestId: form.request.requestId, message: approvalForm(form.request.toolId, form.request.arguments).message, fields: ["decision (string, options: approve|deny, required)"] };

/** Options of {@link createTaskRuns}. */
export interface TaskRunsOptions {
  runner: ProjectRunner;
  store: McpTaskStore;
  /** Opens the file store a finished run's attachments are read from (the entry's, ARCH-6). */
  openStorage: SurfaceServices["localStorage"];
  /** This host's id in the rows it owns (default: a random one per process). */
  hostId?: string;
  /** The owner lease ({@link DEFAULT_TASK_LEASE_MS}): a dead owner's task is taken over within 1.625 × this (see task-sweep.ts). */
  leaseMs?: number;
  /** The poll interval suggested to clients ({@link TASK_POLL_INTERVAL_MS}). */
  pollIntervalMs?: number;
  /** ARCH-12: the shortest TTL granted ({@link MIN_TASK_TTL_MS}); a test that waits out a TTL lowers it. */
  minTtlMs?: number;
  now?: () => number;
  /** Stops the background sweep for dead owners' tasks (TEN-6) before `close`. */
  signal?: AbortSignal;
}

/** The task runs of one host. */
export type TaskRuns = ReturnType<typeof createTaskRuns>;

/** Told a task's row after each change this host made to it (see `TaskRuns.watch`). */
export type TaskStatusListener = (row: McpTaskRecord) => void;

/** Whether a task status is final (`completed`, `failed` or `cancelled`). */
export const isFinal = (status: McpTaskRecord["status"]) => status === "completed" || status === "failed" || status === "cancelled";

const grantedTtl = (requested: number | null | undefined, minTtlMs: number) =>
  typeof requested === "number" && Number.isFinite(requested) ? Math.min(MAX_TASK_TTL_MS, Math.max(minTtlMs, Math.floor(requested))) : requested === null ? MAX_TASK_TTL_MS : DEFAULT_TASK_TTL_MS;

/** A `CallToolResult` that reports an error as text. */
export const errorResult = (message: string) => ({ content: [{ type: "text", text: message }], isError: true }) as unknown as JsonValue;

/**
 * MCP-20: the `_meta` key of a stored result whose run failed (it threw, timed out, was cut short
 * or could not run; the value is the failure's code), as opposed to the workflow's own error
 * result (`errCode`): on 2026-07-28 the first is a `failed` task with an inlined `error`, the
 * second a `completed` task whose result has `isError` (tasks-extension.ts).
 */
export const RUN_FAILURE_META = "steamharness/runFailure";

/** `result` marked as a run failure of `code` ({@link RUN_FAILURE_META}). */
const runFailure = (result: JsonValue, code: string) => {
  const object = result as { _meta?: Record<string, JsonValue> };
  return { ...object, _meta: { ...object._meta, [RUN_FAILURE_META]: code } } as unknown as JsonValue;
};

/**
 * The task lifecycle of one host over a shared store: start, resume with an answer, cancel,
 * read with the dead-owner and TTL rules applied, and the lease timer.
 *
 * @example
 * const runs = createTaskRuns({ runner, store: await openMcpTaskStore({ directory }) });
 */
export function createTaskRuns(options: TaskRunsOptions) {
  const { runner, store } = options;
  const projectId = runner.location.manifest.id;
  const hostId = options.hostId ?? `host-${randomUUID()}`;
  const leaseMs = options.leaseMs ?? DEFAULT_TASK_LEASE_MS;
  const pollIntervalMs = options.pollIntervalMs ?? TASK_POLL_INTERVAL_MS;
  const now = options.now ?? Date.now;
  const running = new Map<string, AbortController>();
  const finished = new Set<Promise<void>>();
  const watchers = new Map<string, Set<TaskStatusListener>>();

  /** After a change this host made to a task: its watchers get the row as it is now; a final one ends their watch. */
  const changed = async (taskId: string, landed: boolean): Promise<void> => {
    const listeners = watchers.get(taskId);
    if (!landed || !listeners) return;
    const row = await store.get(projectId, taskId).catch(() => null);
    if (!row) return;
    if (isFinal(row.status)) watchers.delete(taskId);
    for (const listener of listeners) listener(row);
  };

  const renew = async () => {
    const ids = [...running.keys()];
    const at = now();
    // TEN-6: a renewal is activity, so a run longer than its TTL keeps `updatedAt + ttlMs` ahead.
    const renewed = new Set(await store.renewLeases(projectId, hostId, ids, at + leaseMs, at).catch(() => ids));
    // A row this host no longer owns as `working` was cancelled (or pruned): end its worker.
    for (const id of ids) if (!renewed.has(id)) running.get(id)?.abort();
  };
  const timer = setInterval(() => void renew(), Math.max(50, Math.floor(leaseMs / 3)));
  timer.unref();
  const sweep = setInterval(() => void store.prune(now()).catch(() => undefined), 60_000);
  sweep.unref();

  /** Runs a claimed task's worker in the background and records how it ended; its agent sessions go with the row, after `ttlMs` (SES-12). */
  function launch(taskId: string, entrypoint: WorkflowEntrypointStructure, args: JsonValue, answered: Pick<PausedRun, "answers"> | undefined, tenant: string | undefined, trace?: TelemetryCarrier | null, tenantLimits?: RunTenantLimits, ttlMs?: number, slot?: RunSlot) {
    const controller = new AbortController();
    running.set(taskId, controller);
    // MCP-20: the questions a run asks together (`Promise.all`) are all open at once, so a client
    // answers them in one round (or one by one): the first waits a moment for its siblings.
    const open: Record<string, TaskForm> = {};
    let pause: Promise<never> | undefined;
    const ask = (form: TaskForm, why: string): Promise<never> => {
      open[form.request.requestId] = form;
      const error = interactionRequired(pendingOf(form), why);
      pause ??= new Promise((resolve) => setTimeout(resolve, GATHER_MS)).then(() => Promise.reject(error));
      return pause;
    };
    const pausing: RunHandlers = {
      onInput: (request) => ask({ kind: "input", request }, "the task waits for input"),
      onApproval: (request) => ask({ kind: "approval", request }, `the task waits for approval of tool ${request.toolId}`),
    };
    const done = (async () => {
      let change;
      try {
        const prepared = await runner.prepare(entrypoint, args, tenant);
        const handlers = answered ? answeringHandlers(answered, pausing) : pausing;
        // TEN-3: the task's run reads and writes its tenant's data namespace.
        const dataTenant = dataTenantOf(tenant);
        const report = await runner.run(entrypoint, prepared, handlers, { signal: controller.signal, runId: taskId, ...(tenant !== undefined ? { tenant } : {}), ...(dataTenant !== undefined ? { dataTenant } : {}), ...(tenantLimits ? { tenantLimits } : {}), ...(trace ? { trace } : {}), ...(ttlMs !== undefined ? { retainMs: ttlMs } : {}) });
        const form = report.pending ? open[report.pending.requestId] : undefined;
        if (report.status === "waiting_for_input" && report.pending && form) {
          const paused: TaskPause = { args, pending: report.pending, answers: answered?.answers ?? {}, form, open, ...(tenant !== undefined ? { tenant } : {}), ...(tenantLimits ? { tenantLimits } : {}) };
          change = { status: "input_required" as const, statusMessage: report.pending.message, ownerHost: null, leaseExpiresAt: null, paused: paused as unknown as JsonValue };
        } else {
          const result = (await toWorkflowToolResult(report, entrypoint, runner, options.openStorage, dataTenant)) as unknown as JsonValue & { isError?: boolean };
          const failed = result.isError === true;
          // The workflow's own error result (errCode) is the tool's answer; anything else is the run's failure.
          const runFailed = failed && report.status !== "success" && report.error?.code !== "business_error";
          change = { status: failed ? ("failed" as const) : ("completed" as const), statusMessage: failed ? redact(report.error?.message ?? `the run ended ${report.status}`, runner.secrets) : null, ownerHost: null, leaseExpiresAt: null, result: runFailed ? runFailure(result, report.error?.code ?? report.status) : result, paused: null };
        }
      } catch (error) {
        // TEN-2: the task's status reaches remote clients: no secrets, no server paths.
        const message = redact(`[steamharness] [mcp] the task's run could not be run: ${(error as Error)?.message ?? String(error)}`, runner.secrets, 1000);
        change = { status: "failed" as const, statusMessage: message, ownerHost: null, leaseExpiresAt: null, result: runFailure(errorResult(message), "run_failed"), paused: null };
      } finally {
        running.delete(taskId);
        // TEN-5: the tenant's concurrency slot is held while the worker runs: freed when it ended or waits for input.
        await slot?.release().catch(() => undefined);
      }
      // A cancelled row keeps `cancelled`: the write only lands while this host still owns it.
      const landed = await store.update(projectId, taskId, { ...change, updatedAt: now() }, { status: ["working"], ownerHost: hostId }).catch(() => false);
      await changed(taskId, landed);
    })();
    finished.add(done);
    void done.finally(() => finished.delete(done));
  }

  /**
   * A `working` row whose owner stopped renewing its lease: claimed by this host and run again
   * on the same run id when its entrypoint is resumable, else ended `failed`. Both writes are
   * compare-and-set on the dead owner and its expired lease, so one host alone decides.
   */
  async function takeOver(row: McpTaskRecord, at: number): Promise<void> {
    // Lapsed while this host still runs it (a stalled event loop): the next renewal catches up.
    if (running.has(row.taskId)) return;
    const expect = { status: ["working" as const], ownerHost: row.ownerHost, leaseExpiredBefore: at };
    const stopped = `the host running this task (${row.ownerHost}) stopped renewing its lease at ${new Date(row.leaseExpiresAt ?? at).toISOString()}`;
    const entrypoint = await runner.entrypoint(row.entrypointId).catch(() => undefined);
    const resume = row.paused as unknown as TaskResume | null;
    if (entrypoint?.resumable === true && resume !== null && typeof resume === "object" && "args" in resume) {
      const statusMessage = `${stopped}; host ${hostId} resumed it on the same run id`;
      if (await store.update(projectId, row.taskId, { statusMessage, ownerHost: hostId, leaseExpiresAt: at + leaseMs, updatedAt: at }, expect)) {
        await changed(row.taskId, true);
        process.stderr.write(`[steamharness] [mcp] task ${row.taskId}: ${statusMessage}\n`);
        launch(row.taskId, entrypoint, resume.args, { answers: resume.answers ?? {} }, resume.tenant, undefined, resume.tenantLimits, row.ttlMs);
      }
      return;
    }
    const why = !entrypoint
      ? `its worker ended with it, and this host does not publish entrypoint ${row.entrypointId}`
      : entrypoint.resumable === true
        ? "its worker ended with it, and the task's row does not hold its arguments (it was started by an older version), so it cannot be run again"
        : `its worker ended with it, and entrypoint ${row.entrypointId} is not declared resumable (a run cut short mid-step is not run again: its effects may have happened)`;
    const message = `[steamharness] [mcp] ${stopped}: ${why}, so the task failed`;
    await changed(row.taskId, await store.update(projectId, row.taskId, { status: "failed", statusMessage: message, ownerHost: null, leaseExpiresAt: null, result: runFailure(errorResult(message), "owner_lost"), paused: null, updatedAt: at }, expect));
  }

  // TEN-6: dead owners' tasks are taken over without waiting for a client to ask about them.
  const stopSweep = startLapsedTaskSweep({ store, projectId, leaseMs, now, takeOver, ...(options.signal ? { signal: options.signal } : {}) });

  return {
    hostId,
    projectId,
    /**
     * Records a new task (`working`, owned here) and starts its run (queued as `tenant`, BUD-5;
     * continuing `trace`, the call's span, OBS-3); resolves the row. With `from` (MCP-19 × MCP-20:
     * a run paused by a call's input round) the task is that run, on its run id, with its answers.
     */
    async start(entrypoint: WorkflowEntrypointStructure, args: JsonValue, ttl: number | null | undefined, tenant?: string, trace?: TelemetryCarrier | null, tenantLimits?: RunTenantLimits, slot?: RunSlot, from?: Pick<PausedRun, "runId" | "answers">): Promise<McpTaskRecord> {
      const at = now();
      const record: McpTaskRecord = {
        taskId: from?.runId ?? `run-${randomUUID()}`,
        projectId,
        entrypointId: entrypoint.id,
        status: "working",
        statusMessage: null,
        ownerHost: hostId,
        leaseExpiresAt: at + leaseMs,
        ttlMs: grantedTtl(ttl, options.minTtlMs ?? MIN_TASK_TTL_MS),
        pollIntervalMs,
        createdAt: at,
        updatedAt: at,
        tenant: tenant ?? null,
        result: null,
        paused: { args, answers: from?.answers ?? {}, ...(tenant !== undefined ? { tenant } : {}), ...(tenantLimits ? { tenantLimits } : {}) } satisfies TaskResume as unknown as JsonValue,
      };
      await store.create(record).catch(async (error: unknown) => {
        await slot?.release().catch(() => undefined);
        throw error;
      });
      launch(record.taskId, entrypoint, args, from, tenant, trace, tenantLimits, record.ttlMs, slot);
      return record;
    },
    /**
     * Adds `given` (answers to open questions, by request id) to a paused task's answers. While
     * questions stay open the task keeps waiting with those alone (MCP-20's partial answer);
     * otherwise this host claims it and runs it again on the same run id, queued as the task's
     * tenant (BUD-5; `tenant`, the answering client's, for a row that names none). Resolves
     * `false` when another host claimed it first (or it is not paused).
     */
    async resume(row: McpTaskRecord, entrypoint: WorkflowEntrypointStructure, given: PausedRun["answers"], tenant?: string, slot?: RunSlot): Promise<boolean> {
      const pause = row.paused as unknown as TaskPause;
      const answers = { ...pause.answers, ...given };
      const left = Object.entries(openForms(pause)).filter(([requestId]) => !(requestId in given));
      if (left.length > 0) {
        await slot?.release().catch(() => undefined);
        const [, first] = left[0]!;
        const waiting: TaskPause = { ...pause, answers, pending: pendingOf(first), form: first, open: Object.fromEntries(left) };
        const kept = await store.update(projectId, row.taskId, { statusMessage: waiting.pending.message, paused: waiting as unknown as JsonValue, updatedAt: now() }, { status: ["input_required"], ownerHost: null });
        await changed(row.taskId, kept);
        return kept;
      }
      // The task's own tenant (whoever answers); the answering client's for a row that has none.
      const owner = pause.tenant ?? tenant;
      const resume: TaskResume = { args: pause.args, answers, ...(owner !== undefined ? { tenant: owner } : {}), ...(pause.tenantLimits ? { tenantLimits: pause.tenantLimits } : {}) };
      const claimed = await store.update(projectId, row.taskId, { status: "working", statusMessage: null, ownerHost: hostId, leaseExpiresAt: now() + leaseMs, paused: resume as unknown as JsonValue, updatedAt: now() }, { status: ["input_required"], ownerHost: null });
      if (!claimed) {
        await slot?.release().catch(() => undefined);
        return false;
      }
      await changed(row.taskId, true);
      launch(row.taskId, entrypoint, pause.args, { answers }, owner, undefined, pause.tenantLimits, row.ttlMs, slot);
      return true;
    },
    /**
     * The row with the rules applied: `null` once its TTL ran out (never for a `working` row,
     * whose owner renews it or is taken over, TEN-6); a dead owner's task taken over
     * by this host (a resumable entrypoint) or reported `failed` with the reason. With `tenant`
     * (the caller's, `null` for none), `null` too for another tenant's task — before any rule
     * runs, so a stranger's read never takes a task over.
     */
    async read(taskId: string, tenant?: string | null): Promise<McpTaskRecord | null> {
      const row = await store.get(projectId, taskId);
      if (!row) return null;
      if (tenant !== undefined && (row.tenant ?? null) !== tenant) return null;
      const at = now();
      const alive = row.status === "working" && row.leaseExpiresAt !== null && row.leaseExpiresAt >= at;
      if (row.status !== "working" && row.updatedAt + row.ttlMs < at) {
        await store.prune(at).catch(() => undefined);
        return null;
      }
      if (row.status !== "working" || alive) return row;
      await takeOver(row, at);
      return store.get(projectId, taskId);
    },
    /** Marks a task `cancelled` (its owner ends the worker at once here, or at its next renewal elsewhere); `false` when already final. */
    async cancel(taskId: string): Promise<boolean> {
      const cancelled = await store.update(projectId, taskId, { status: "cancelled", statusMessage: "cancelled by the client", ownerHost: null, leaseExpiresAt: null, paused: null, updatedAt: now() }, { status: ["working", "input_required"] });
      if (cancelled) running.get(taskId)?.abort();
      await changed(taskId, cancelled);
      return cancelled;
    },
    /** Ends a paused task `failed` with `message` (a declined form); `false` when it was not paused. */
    async fail(taskId: string, message: string): Promise<boolean> {
      const failed = await store.update(projectId, taskId, { status: "failed", statusMessage: message, result: errorResult(message), paused: null, updatedAt: now() }, { status: ["input_required"] });
      await changed(taskId, failed);
      return failed;
    },
    /**
     * Calls `listener` with a task's row after every change this host makes to it (its run
     * pausing, resuming, ending; a cancel or a takeover done here) until the task is final;
     * changes made by other hosts are not seen. Returns the function that ends the watch.
     */
    watch(taskId: string, listener: TaskStatusListener): () => void {
      const listeners = watchers.get(taskId) ?? new Set<TaskStatusListener>();
      watchers.set(taskId, listeners.add(listener));
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && watchers.get(taskId) === listeners) watchers.delete(taskId);
      };
    },
    /** One page of this project's tasks (each read with the rules applied); with `tenant`, only that tenant's. */
    async list(cursor: string | undefined, limit: number, tenant?: string | null): Promise<{ tasks: McpTaskRecord[]; nextCursor?: string }> {
      const page = await store.list(projectId, { ...(cursor ? { cursor } : {}), limit, ...(tenant !== undefined ? { tenant } : {}) });
      const tasks = (await Promise.all(page.tasks.map((row) => this.read(row.taskId, tenant)))).filter((row): row is McpTaskRecord => row !== null);
      return { tasks, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    },
    /** Stops the timers and ends this host's running workers (their rows are then reported by the lease rule). */
    async close(): Promise<void> {
      clearInterval(timer);
      clearInterval(sweep);
      await stopSweep();
      watchers.clear();
      for (const controller of running.values()) controller.abort();
      await Promise.allSettled([...finished]);
    },
  };
}
