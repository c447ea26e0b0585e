import type { JsonValue } from "../domain/json.js";

/** The status of an MCP task (spec 2025-11-25): `completed`, `failed` and `cancelled` are final. */
export type McpTaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** One task row: an MCP task backed by a workflow run (`taskId` is the run id). */
export interface McpTaskRecord {
  taskId: string;
  /** The project (workflow manifest id) the task belongs to; every lookup is scoped by it. */
  projectId: string;
  entrypointId: string;
  /**
   * Who created the task: the verified caller's tenant (an API key's tenant, the OAuth subject,
   * the static token's one tenant), or `null` on a host without authorization (stdio, loopback).
   * Only requests of the same tenant see the task. Absent reads as `null` (rows read back have it).
   */
  tenant?: string | null;
  status: McpTaskStatus;
  statusMessage: string | null;
  /** The host running the task's worker, or `null` when no host runs it (waiting for input, final). */
  ownerHost: string | null;
  /** Epoch ms until which the owner's lease holds; past it, a `working` task's owner is presumed dead. */
  leaseExpiresAt: number | null;
  /**
   * How long the row is kept after its last activity (ms, see `updatedAt`). A `working` row is
   * kept whatever its age: a live owner renews it, and a dead owner's is taken over or failed.
   */
  ttlMs: number;
  pollIntervalMs: number;
  /** Epoch ms. */
  createdAt: number;
  /**
   * Epoch ms of the last activity: the last change, or the owner's last lease renewal of a
   * `working` row (so a long run keeps `updatedAt + ttlMs` ahead of now). A final row's is the
   * instant it ended.
   */
  updatedAt: number;
  /** The final `CallToolResult` (completed/failed), else `null`. */
  result: JsonValue | null;
  /** What a run waiting for a person needs to be run again (arguments, form, answers), else `null`. */
  paused: JsonValue | null;
}

/** The fields {@link McpTaskStore.update} may change. */
export type McpTaskChange = Partial<Pick<McpTaskRecord, "status" | "statusMessage" | "ownerHost" | "leaseExpiresAt" | "result" | "paused">> & { updatedAt: number };

/** The conditions of a compare-and-set {@link McpTaskStore.update}; all given ones must hold. */
export interface McpTaskExpectation {
  /** The row's status is one of these. */
  status?: readonly McpTaskStatus[];
  /** The row's owner is this host (`null`: no owner). */
  ownerHost?: string | null;
  /** The row's lease ended before this epoch ms (a dead owner). */
  leaseExpiredBefore?: number;
}

/**
 * Durable MCP tasks shared by every host serving one project (MCP-13): SQLite by default,
 * PostgreSQL for several machines, memory for tests. Adapters only read and write rows; the
 * rules (leases, dead owners, TTL) are the MCP adapter's. Times are epoch ms of the caller's clock. Every method rejects with
 * `storage_failure` when the backend fails and after `close`.
 */
export interface McpTaskStore {
  /** Inserts a new row; rejects with `conflict` when the (projectId, taskId) exists. */
  create(record: McpTaskRecord): Promise<void>;
  /** The row, or `null` when missing (never created, or pruned). */
  get(projectId: string, taskId: string): Promise<McpTaskRecord | null>;
  /**
   * Applies `change` atomically when the row exists and every `expect` condition holds;
   * resolves `true` when it did, `false` otherwise (nothing written).
   */
  update(projectId: string, taskId: string, change: McpTaskChange, expect?: McpTaskExpectation): Promise<boolean>;
  /**
   * Extends the lease of the `working` rows `ownerHost` owns among `taskIds` to `leaseExpiresAt`
   * and sets their `updatedAt` to `renewedAt` (a renewal is activity); resolves the ids it
   * extended (a missing id was cancelled, taken over or ended).
   */
  renewLeases(projectId: string, ownerHost: string, taskIds: readonly string[], leaseExpiresAt: number, renewedAt: number): Promise<string[]>;
  /**
   * The project's `working` rows whose lease ended before `before` (their owner stopped renewing
   * it: presumed dead), the longest-expired first, at most `limit`; rows without a lease are not
   * listed. Read-only: claiming one is a compare-and-set {@link McpTaskStore.update}.
   */
  listLapsed(projectId: string, before: number, limit: number): Promise<McpTaskRecord[]>;
  /**
   * One page of rows, newest first; `cursor` is a previous page's `nextCursor` (opaque). With
   * `tenant` (a string or `null`), only the rows whose `tenant` equals it; without, every row.
   */
  list(projectId: string, options: { cursor?: string; limit: number; tenant?: string | null }): Promise<{ tasks: McpTaskRecord[]; nextCursor?: string }>;
  /**
   * Deletes the rows that are not `working` and whose `updatedAt + ttlMs` is before `now`; a
   * `working` row is never deleted, whatever its age or lease. Resolves how many it deleted.
   */
  prune(now: number): Promise<number>;
  /** Releases connections; idempotent. */
  close(): Promise<void>;
}
