/**
 * The MCP task store (MCP-13) written once for SQLite and PostgreSQL on the SQL row driver, and
 * its table for both dialects. JSON columns are text on SQLite and jsonb on PostgreSQL.
 */
import { SteamharnessError } from "../../../domain/errors.js";
import type { JsonValue } from "../../../domain/json.js";
import type { McpTaskRecord, McpTaskStore } from "../../../ports/mcp-task-store.js";
import type { SqlDriver, SqlStatement, SqlStore } from "./sql-driver.js";
import { columnOf, defineTable } from "./table-definition.js";

const [text, bigint, jsonColumn] = [columnOf("text"), columnOf("bigint"), columnOf("json")];

/**
 * The `mcp_tasks` table, for both dialects (drizzle-kit generates each dialect's migrations from
 * it); `tenant` is who created the task (MCP-13 tenant separation), null on hosts without
 * authorization. `mcp_tasks_lapsed_idx` serves each host's sweep for dead owners' working rows (TEN-6).
 */
export const MCP_TASK_TABLE = defineTable({
  name: "mcp_tasks",
  columns: {
    projectId: text("project_id"), taskId: text("task_id"), entrypointId: text("entrypoint_id"), status: text("status"),
    statusMessage: text("status_message", { nullable: true }), ownerHost: text("owner_host", { nullable: true }), leaseExpiresAt: bigint("lease_expires_at", { nullable: true }),
    ttlMs: bigint("ttl_ms"), pollIntervalMs: bigint("poll_interval_ms"), createdAt: bigint("created_at"), updatedAt: bigint("updated_at"),
    result: jsonColumn("result", { nullable: true }), paused: jsonColumn("paused", { nullable: true }), tenant: text("tenant_id", { nullable: true }),
  },
  primaryKey: ["projectId", "taskId"],
  indexes: { mcp_tasks_created_idx: ["projectId", "createdAt"], mcp_tasks_updated_idx: ["updatedAt"], mcp_tasks_lapsed_idx: ["projectId", "status", "leaseExpiresAt"] },
});
const json = (on: SqlDriver, value: JsonValue | null | undefined) => (value === null || value === undefined ? null : on.dialect === "sqlite" ? JSON.stringify(value) : value);

// What every `tasks/get` poll and task start run: SQLite prepares each once per store.
const SELECT: SqlStatement<{ projectId: string; taskId: string }> = {
  mode: "get",
  build: ({ db, tables: { mcpTasks: t }, ops: { and, eq } }, param) => db.select().from(t).where(and(eq(t.projectId, param("projectId")), eq(t.taskId, param("taskId")))),
};
const PRUNE: SqlStatement<{ now: number }> = {
  mode: "run",
  build: ({ db, tables: { mcpTasks: t }, ops: { and, lt, ne, sql } }, param) => db.delete(t).where(and(ne(t.status, "working"), lt(sql`${t.updatedAt} + ${t.ttlMs}`, param("now")))),
};

/** A page of rows and its next cursor (the query fetched `limit + 1`); the cursor is `<createdAt>:<taskId>` of the page's last row. */
function taskPage(rows: McpTaskRecord[], limit: number): { tasks: McpTaskRecord[]; nextCursor?: string } {
  if (rows.length <= limit) return { tasks: rows };
  const tasks = rows.slice(0, limit);
  const last = tasks[tasks.length - 1]!;
  return { tasks, nextCursor: `${last.createdAt}:${last.taskId}` };
}

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

/**
 * A row as a record (JSON from text or jsonb).
 *
 * @example
 * const record = recordOf(await driver.execute(SELECT, { projectId, taskId }));
 */
export function recordOf(row: Record<string, unknown>): McpTaskRecord {
  const { result, paused, ...columns } = row;
  const record = columns as unknown as McpTaskRecord;
  defineJson(record as unknown as Record<string, unknown>, "result", result);
  defineJson(record as unknown as Record<string, unknown>, "paused", paused);
  return record;
}

/**
 * The MCP task store (MCP-13) written once on the SQL row driver (its tables: `mcpTasks`):
 * `conflict` for a known task, the family's fault mapping (`call`, `storage_failure` after
 * `close`); `close` releases the family's connection once.
 *
 * @example
 * const tasks = createSqlMcpTaskStore(sqliteStoreOn(openMigratedSqlite(path, options), mcpTaskTables()));
 */
export function createSqlMcpTaskStore({ driver, call, close }: SqlStore): McpTaskStore {
  const { db, ops } = driver;
  const t = driver.tables.mcpTasks;
  const { and, asc, desc, eq, inArray, isNotNull, isNull, lt, or } = ops;
  const byKey = (projectId: string, taskId: string) => and(eq(t.projectId, projectId), eq(t.taskId, taskId));
  const rows = async (what: string, query: () => Promise<Record<string, unknown>[]> | Record<string, unknown>[]) => (await call(what, query)).map(recordOf);
  return {
    async create(record) {
      const insert = db.insert(t).values({ ...record, tenant: record.tenant ?? null, result: json(driver, record.result), paused: json(driver, record.paused) }).onConflictDoNothing();
      // A second row of a task inserts nothing.
      if ((await call("task create", () => driver.run(insert))) === 0) throw new SteamharnessError("conflict", `[steamharness] [${driver.dialect}] task create: the task exists`);
    },
    get: async (projectId, taskId) => {
      const row = await call("task read", () => driver.execute(SELECT, { projectId, taskId }));
      return row ? recordOf(row) : null;
    },
    update: async (projectId, taskId, change, expect) => {
      const set = Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined).map(([field, value]) => [field, field === "result" || field === "paused" ? json(driver, value as JsonValue) : value]));
      const owner = expect?.ownerHost === undefined ? undefined : expect.ownerHost === null ? isNull(t.ownerHost) : eq(t.ownerHost, expect.ownerHost);
      const lapsed = expect?.leaseExpiredBefore === undefined ? undefined : and(isNotNull(t.leaseExpiresAt), lt(t.leaseExpiresAt, expect.leaseExpiredBefore));
      const where = and(byKey(projectId, taskId), expect?.status ? inArray(t.status, [...expect.status]) : undefined, owner, lapsed);
      return (await call("task update", () => driver.run(db.update(t).set(set).where(where)))) > 0;
    },
    async renewLeases(projectId, ownerHost, taskIds, leaseExpiresAt, renewedAt) {
      if (taskIds.length === 0) return [];
      const where = and(eq(t.projectId, projectId), eq(t.ownerHost, ownerHost), eq(t.status, "working"), inArray(t.taskId, [...taskIds]));
      const renewed = await call("task lease renewal", () => driver.all(db.update(t).set({ leaseExpiresAt, updatedAt: renewedAt }).where(where).returning({ taskId: t.taskId })));
      return renewed.map((row) => String(row.taskId));
    },
    listLapsed: (projectId, before, limit) =>
      rows("task lapsed list", () =>
        driver.all(db.select().from(t).where(and(eq(t.projectId, projectId), eq(t.status, "working"), isNotNull(t.leaseExpiresAt), lt(t.leaseExpiresAt, before))).orderBy(asc(t.leaseExpiresAt), asc(t.taskId)).limit(limit)),
      ),
    list: async (projectId, { cursor, limit, tenant }) => {
      const at = cursor ? /^(\d+):(.+)$/.exec(cursor) : null;
      const after = at ? or(lt(t.createdAt, Number(at[1])), and(eq(t.createdAt, Number(at[1])), lt(t.taskId, at[2]))) : undefined;
      const where = and(eq(t.projectId, projectId), tenant === null ? isNull(t.tenant) : tenant === undefined ? undefined : eq(t.tenant, tenant), after);
      return taskPage(await rows("task list", () => driver.all(db.select().from(t).where(where).orderBy(desc(t.createdAt), desc(t.taskId)).limit(limit + 1))), limit);
    },
    prune: (now) => call("task prune", () => driver.execute(PRUNE, { now })),
    close,
  };
}
