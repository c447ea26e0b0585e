import { SteamharnessError, wrapAdapterError } from "../../../domain/errors.js";
import type { JsonValue } from "../../../domain/json.js";
import type { McpTaskChange, McpTaskExpectation, McpTaskRecord, McpTaskStatus, McpTaskStore } from "../../../ports/mcp-task-store.js";
import type { Awaitable } from "./store-call.js";
import { columnOf, defineTable } from "./table-definition.js";

// The SQL of the MCP task store (MCP-13), written once for SQLite and PostgreSQL: `$n`
// placeholders (SQLite reads them as `?n`), JSON as text (PostgreSQL casts it to jsonb).

/** A statement and its parameters. */
export interface TaskStatement {
  text: string;
  values: unknown[];
}

const [text, bigint, jsonColumn] = [columnOf("text"), columnOf("bigint"), columnOf("json")];

/**
 * The `mcp_tasks` table, for both dialects (drizzle-kit generates each dialect's migrations from
 * it); `tenantId` is who created the task (MCP-13 tenant separation), null on hosts without
 * authorization. `mcp_tasks_lapsed_idx` serves each host's sweep for dead owners' working rows (TEN-6).
 */
export const MCP_TASK_TABLE = defineTable({
  name: "mcp_tasks",
  columns: {
    projectId: text("project_id"), taskId: text("task_id"), entrypointId: text("entrypoint_id"), status: text("status"),
    statusMessage: text("status_message", { nullable: true }), ownerHost: text("owner_host", { nullable: true }), leaseExpiresAt: bigint("lease_expires_at", { nullable: true }),
    ttlMs: bigint("ttl_ms"), pollIntervalMs: bigint("poll_interval_ms"), createdAt: bigint("created_at"), updatedAt: bigint("updated_at"),
    result: jsonColumn("result", { nullable: true }), paused: jsonColumn("paused", { nullable: true }), tenantId: text("tenant_id", { nullable: true }),
  },
  primaryKey: ["projectId", "taskId"],
  indexes: { mcp_tasks_created_idx: ["projectId", "createdAt"], mcp_tasks_updated_idx: ["updatedAt"], mcp_tasks_lapsed_idx: ["projectId", "status", "leaseExpiresAt"] },
});
const COLUMNS = Object.values(MCP_TASK_TABLE.columns).map((column) => column.name);
const CHANGE_COLUMNS: Record<Exclude<keyof McpTaskChange, never>, string> = {
  status: "status",
  statusMessage: "status_message",
  ownerHost: "owner_host",
  leaseExpiresAt: "lease_expires_at",
  result: "result",
  paused: "paused",
  updatedAt: "updated_at",
};
const JSON_FIELDS = new Set<string>(Object.values(MCP_TASK_TABLE.columns).filter((column) => column.kind === "json").map((column) => column.name));
const json = (value: JsonValue | null | undefined) => (value === null || value === undefined ? null : JSON.stringify(value));

/** `INSERT` of a new row. */
export function insertTask(record: McpTaskRecord, jsonCast: string): TaskStatement {
  const values = [record.projectId, record.taskId, record.entrypointId, record.status, record.statusMessage, record.ownerHost, record.leaseExpiresAt, record.ttlMs, record.pollIntervalMs, record.createdAt, record.updatedAt, json(record.result), json(record.paused), record.tenant ?? null];
  const marks = COLUMNS.map((column, i) => `$${i + 1}${JSON_FIELDS.has(column) ? jsonCast : ""}`);
  return { text: `INSERT INTO mcp_tasks (${COLUMNS.join(", ")}) VALUES (${marks.join(", ")})`, values };
}

/** `SELECT` of one row. */
export function selectTask(projectId: string, taskId: string): TaskStatement {
  return { text: `SELECT ${COLUMNS.join(", ")} FROM mcp_tasks WHERE project_id = $1 AND task_id = $2`, values: [projectId, taskId] };
}

/** The compare-and-set `UPDATE` of {@link McpTaskStore.update}. */
export function updateTask(projectId: string, taskId: string, change: McpTaskChange, expect: McpTaskExpectation | undefined, jsonCast: string): TaskStatement {
  const values: unknown[] = [projectId, taskId];
  const mark = (value: unknown) => `$${values.push(value)}`;
  const sets = Object.entries(change)
    .filter(([, value]) => value !== undefined)
    .map(([field, value]) => {
      const isJson = field === "result" || field === "paused";
      return `${CHANGE_COLUMNS[field as keyof McpTaskChange]} = ${mark(isJson ? json(value as JsonValue | null) : value)}${isJson ? jsonCast : ""}`;
    });
  const where = ["project_id = $1", "task_id = $2"];
  if (expect?.status) where.push(`status IN (${expect.status.map((status) => mark(status)).join(", ")})`);
  if (expect?.ownerHost !== undefined) where.push(expect.ownerHost === null ? "owner_host IS NULL" : `owner_host = ${mark(expect.ownerHost)}`);
  if (expect?.leaseExpiredBefore !== undefined) where.push(`lease_expires_at IS NOT NULL AND lease_expires_at < ${mark(expect.leaseExpiredBefore)}`);
  return { text: `UPDATE mcp_tasks SET ${sets.join(", ")} WHERE ${where.join(" AND ")}`, values };
}

/** The lease renewal of {@link McpTaskStore.renewLeases} (activity: it moves `updated_at`), returning the renewed ids. */
export function renewLeasesOf(projectId: string, ownerHost: string, taskIds: readonly string[], leaseExpiresAt: number, renewedAt: number): TaskStatement {
  const ids = taskIds.map((_, i) => `$${i + 5}`).join(", ");
  return {
    text: `UPDATE mcp_tasks SET lease_expires_at = $3, updated_at = $4 WHERE project_id = $1 AND owner_host = $2 AND status = 'working' AND task_id IN (${ids}) RETURNING task_id`,
    values: [projectId, ownerHost, leaseExpiresAt, renewedAt, ...taskIds],
  };
}

/** The `working` rows whose lease ended before `before`, longest-expired first ({@link McpTaskStore.listLapsed}). */
export function listLapsedTasks(projectId: string, before: number, limit: number): TaskStatement {
  return {
    text: `SELECT ${COLUMNS.join(", ")} FROM mcp_tasks WHERE project_id = $1 AND status = 'working' AND lease_expires_at IS NOT NULL AND lease_expires_at < $2 ORDER BY lease_expires_at, task_id LIMIT $3`,
    values: [projectId, before, limit],
  };
}

/**
 * One page, newest first; the cursor is `<createdAt>:<taskId>` of the page's last row. With
 * `tenant` (a string or null), only that tenant's rows.
 */
export function listTasks(projectId: string, cursor: string | undefined, limit: number, tenant?: string | null): TaskStatement {
  const values: unknown[] = [projectId];
  const mark = (value: unknown) => `$${values.push(value)}`;
  const where = ["project_id = $1"];
  if (tenant === null) where.push("tenant_id IS NULL");
  else if (tenant !== undefined) where.push(`tenant_id = ${mark(tenant)}`);
  const at = cursor ? /^(\d+):(.+)$/.exec(cursor) : null;
  if (at) {
    const created = mark(Number(at[1]));
    where.push(`(created_at < ${created} OR (created_at = ${created} AND task_id < ${mark(at[2])}))`);
  }
  return { text: `SELECT ${COLUMNS.join(", ")} FROM mcp_tasks WHERE ${where.join(" AND ")} ORDER BY created_at DESC, task_id DESC LIMIT ${mark(limit + 1)}`, values };
}

/** The `DELETE` of {@link McpTaskStore.prune}: never a `working` row. */
export function pruneTasks(now: number): TaskStatement {
  return { text: "DELETE FROM mcp_tasks WHERE status <> 'working' AND updated_at + ttl_ms < $1", values: [now] };
}

/** A page of rows and its next cursor (the query fetched `limit + 1`). */
export function pageOf(rows: McpTaskRecord[], limit: number): { tasks: McpTaskRecord[]; nextCursor?: string } {
  if (rows.length <= limit) return { tasks: rows };
  const tasks = rows.slice(0, limit);
  const last = tasks[tasks.length - 1]!;
  return { tasks, nextCursor: `${last.createdAt}:${last.taskId}` };
}

const num = (value: unknown) => (value === null || value === undefined ? null : Number(value));
/**
 * Sets `record[field]` to the JSON a column holds. Text (SQLite) is parsed when the field is
 * first read, not with the row: `tasks/get` reads a row on every poll and returns neither the
 * result nor the pause it keeps. Reading the field (or spreading, or JSON-encoding the record)
 * gives the parsed value; assigning replaces it.
 */
function defineJson(record: Record<string, unknown>, field: "result" | "paused", value: unknown): void {
  if (typeof value !== "string") {
    record[field] = value ?? null;
    return;
  }
  let parsed: JsonValue | null | undefined;
  Object.defineProperty(record, field, {
    enumerable: true,
    configurable: true,
    get: () => (parsed === undefined ? (parsed = JSON.parse(value) as JsonValue) : parsed),
    set: (next: JsonValue | null) => void (parsed = next),
  });
}

/** A row as a record (numbers from bigint strings, JSON from text or jsonb). */
export function recordOf(row: Record<string, unknown>): McpTaskRecord {
  const record = {
    projectId: String(row.project_id),
    taskId: String(row.task_id),
    entrypointId: String(row.entrypoint_id),
    tenant: (row.tenant_id as string | null) ?? null,
    status: row.status as McpTaskStatus,
    statusMessage: (row.status_message as string | null) ?? null,
    ownerHost: (row.owner_host as string | null) ?? null,
    leaseExpiresAt: num(row.lease_expires_at),
    ttlMs: Number(row.ttl_ms),
    pollIntervalMs: Number(row.poll_interval_ms),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  } as McpTaskRecord;
  defineJson(record as unknown as Record<string, unknown>, "result", row.result);
  defineJson(record as unknown as Record<string, unknown>, "paused", row.paused);
  return record;
}

/** Runs the task store's statements on one SQL dialect. */
export interface TaskStatementDriver {
  /** The family, for messages (`sqlite`, `postgres`). */
  family: string;
  /** How a JSON parameter is cast (`""` on SQLite, `"::jsonb"` on PostgreSQL). */
  jsonCast: string;
  /** Runs one statement: the rows it returns and how many rows it changed. */
  run(statement: TaskStatement): Awaitable<{ rows: Record<string, unknown>[]; changes: number }>;
  /** Whether `error` is the primary key refusing a second row of a task. */
  isConflict(error: unknown): boolean;
  /** The driver's own error inside `error` (the `cause` of `storage_failure`). */
  faultOf(error: unknown): unknown;
  /** Releases the connection; called once. */
  close(): Promise<void>;
}

/**
 * The MCP task store (MCP-13) written once over a SQL dialect's statement driver: `conflict` for
 * a known task, `storage_failure` with the driver's error as `cause`, and after `close`.
 *
 * @example
 * const tasks = createSqlMcpTaskStore({ family: "postgres", jsonCast: "::jsonb", run, isConflict, faultOf, close });
 */
export function createSqlMcpTaskStore(driver: TaskStatementDriver): McpTaskStore {
  const { family, jsonCast } = driver;
  let closing: Promise<void> | null = null;
  const run = async (what: string, statement: TaskStatement) => {
    if (closing) throw new SteamharnessError("storage_failure", `[steamharness] [${family}] the task store is closed`);
    try {
      return await driver.run(statement);
    } catch (error) {
      if (driver.isConflict(error)) throw new SteamharnessError("conflict", `[steamharness] [${family}] ${what}: the task exists`, { cause: error });
      throw wrapAdapterError(family, `${what} failed`, driver.faultOf(error));
    }
  };
  return {
    async create(record) {
      await run("task create", insertTask(record, jsonCast));
    },
    async get(projectId, taskId) {
      const [row] = (await run("task read", selectTask(projectId, taskId))).rows;
      return row ? recordOf(row) : null;
    },
    update: async (projectId, taskId, change, expect) => (await run("task update", updateTask(projectId, taskId, change, expect, jsonCast))).changes > 0,
    async renewLeases(projectId, ownerHost, taskIds, leaseExpiresAt, renewedAt) {
      if (taskIds.length === 0) return [];
      return (await run("task lease renewal", renewLeasesOf(projectId, ownerHost, taskIds, leaseExpiresAt, renewedAt))).rows.map((row) => String(row.task_id));
    },
    listLapsed: async (projectId, before, limit) => (await run("task lapsed list", listLapsedTasks(projectId, before, limit))).rows.map(recordOf),
    list: async (projectId, { cursor, limit, tenant }) => pageOf((await run("task list", listTasks(projectId, cursor, limit, tenant))).rows.map(recordOf), limit),
    prune: async (now) => (await run("task prune", pruneTasks(now))).changes,
    close: () => (closing ??= driver.close()),
  };
}
