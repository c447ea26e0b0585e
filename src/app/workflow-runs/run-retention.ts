import { SteamharnessError } from "../../domain/errors.js";
import type { WorkflowRunReport } from "../../domain/workflow/run-report.js";
import type { WorkflowRunIndex } from "../../ports/workflow-run-stores.js";
import { createTenantCache } from "../tenants/tenant-cache.js";

// SES-12: a workflow run's agents keep durable sessions under `<run id>/` of the session folder (the run
// is their conversation, SES-10), so without retention the folder grows with every run. The
// runner marks each run in the folder's index as it starts and ends, and after each run removes
// the sessions of a bounded batch of runs that are due — so a busy host keeps up and an idle one
// has nothing to do. A run that waits for an answer is never due (unless the caller names how
// long its pause stays answerable: an MCP task's TTL).

/** How long a finished run's agent sessions are kept by default: seven days. */
export const DEFAULT_RUN_RETENTION_MS = 7 * 86_400_000;

/** Runs whose sessions one automatic prune removes at most. */
export const RUN_PRUNE_BATCH = 16;

/** How a runner keeps its runs' sessions. */
export interface RunSessionsRetentionOptions {
  /** Opens the index of the runs' session folder; `undefined` while there is none to open (no folder yet). */
  openIndex: () => Promise<WorkflowRunIndex> | undefined;
  projectId: string;
  /** How long a finished run's sessions are kept; `null`: forever (runs are still indexed, for `runs prune`). */
  retentionMs: number | null;
  /** Where a failure of the index is reported (one line; the run is never failed by it). */
  warn: (line: string) => void;
  now?: () => number;
}

/** The retention side of a runner's runs. */
export interface RunSessionsRetention {
  /**
   * Marks a run `running` (sessions due at start + retention if it never ends: a crashed host).
   * Returns `undefined`, having done nothing, while there is no index to mark in (the session
   * folder does not exist yet, or the index failed): the caller's run starts in the same turn.
   */
  started(runId: string): Promise<void> | undefined;
  /**
   * Marks how a run ended — `paused` (waiting for input: kept until answered, or `retainMs`),
   * else `finished` (due after `retainMs`, or the retention) — and starts the prune of a batch of
   * due runs in the background (one at a time), so the run's report does not wait for it.
   * `undefined` (nothing done) when there is no index, as for {@link started}.
   */
  ended(report: WorkflowRunReport, retainMs?: number): Promise<void> | undefined;
  /** Waits for a prune under way, then closes the index. */
  close(): Promise<void>;
}

/**
 * The runner's run retention over the session folder's index. The index is opened only once the
 * session folder exists (a project whose runs have no agents gets no `.workflow/agents` from it);
 * failures are warned about once and never fail a run.
 *
 * @example
 * const retention = createRunSessionsRetention({ openIndex: prechecked.runIndexOf(), projectId, retentionMs: DEFAULT_RUN_RETENTION_MS, warn: (l) => process.stderr.write(l) });
 * await retention.started(runId);
 * await retention.ended(report);
 */
export function createRunSessionsRetention(options: RunSessionsRetentionOptions): RunSessionsRetention {
  const now = options.now ?? Date.now;
  let index: Promise<WorkflowRunIndex> | undefined;
  let warned = false;
  let closed = false;
  let pruning: Promise<void> = Promise.resolve();
  const warn = (error: unknown) => {
    if (warned) return;
    warned = true;
    options.warn(`[steamharness] [runs] run retention is off for this host: ${(error as Error)?.message ?? String(error)}\n`);
  };
  const open = (): Promise<WorkflowRunIndex> | undefined => {
    if (closed) return undefined;
    index ??= options.openIndex();
    return index;
  };
  const guarded = (work: (retention: WorkflowRunIndex) => Promise<void> | void): Promise<void> | undefined => {
    const opened = warned ? undefined : open();
    if (opened === undefined) return undefined;
    return opened
      .then(async (retention) => {
        if (!closed) await work(retention);
      })
      .catch(warn);
  };
  const after = (at: number, ms: number | null | undefined) => (ms === null || ms === undefined ? null : at + ms);
  return {
    started: (runId) =>
      guarded((retention) => {
        const at = now();
        return retention.mark({ projectId: options.projectId, runId, state: "running", at, expiresAt: after(at, options.retentionMs) });
      }),
    ended: (report, retainMs) =>
      guarded(async (retention) => {
        const at = now();
        const paused = report.status === "waiting_for_input";
        const keep = options.retentionMs === null ? null : paused ? retainMs : (retainMs ?? options.retentionMs);
        await retention.mark({ projectId: options.projectId, runId: report.runId, state: paused ? "paused" : "finished", at, expiresAt: after(at, keep) });
        pruning = pruning.then(() => (closed ? undefined : retention.prune({ projectId: options.projectId, now: at, limit: RUN_PRUNE_BATCH }).then(() => undefined, warn)));
      }),
    async close() {
      closed = true;
      await pruning;
      await index?.then((retention) => retention.close()).catch(() => undefined);
    },
  };
}

/**
 * A retention written as a duration — `7d`, `12h`, `30m`, `45s`, `500ms`, `0` — or `never`, in
 * milliseconds (`null` for never). Anything else is `input_validation`.
 *
 * @example
 * parseRetention("7d") // 604800000
 * parseRetention("never") // null
 */
export function parseRetention(text: string, field = "--run-retention"): number | null {
  const value = text.trim().toLowerCase();
  if (value === "never") return null;
  // A unit is required (a bare "5" is not five days nor five milliseconds), except for 0.
  const match = value === "0" ? (["0", "0", "ms"] as const) : /^(\d+)(ms|s|m|h|d)$/.exec(value);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(match?.[2] ?? "ms") as "ms"];
  const ms = match ? Number(match[1]) * unit : Number.NaN;
  if (!Number.isSafeInteger(ms)) throw new SteamharnessError("input_validation", `${field} takes a duration such as 7d, 12h, 30m, 45s or 0, or never (got ${JSON.stringify(text)})`, { field });
  return ms;
}

/** Tenants whose run index stays open between runs; see {@link createTenantRetentions}. */
const MAX_OPEN_TENANT_INDEXES = 32;

/**
 * TEN-3: the run retention of each tenant (its runs' sessions live in the tenant's own session
 * folder), made on a tenant's first run. At most 32 stay open, least recently used closed first;
 * a run whose tenant's index was closed while it ran misses its `ended` mark, and its sessions
 * are then due as a crashed run's (start + retention), never kept forever.
 *
 * @example
 * const retentions = createTenantRetentions((tenant) => createRunSessionsRetention({ openIndex: prechecked.runIndexOf(tenant), projectId, retentionMs, warn }));
 * await retentions.of("key:acme").started(runId);
 */
export function createTenantRetentions(make: (tenant: string) => RunSessionsRetention) {
  return createTenantCache(make, MAX_OPEN_TENANT_INDEXES);
}
