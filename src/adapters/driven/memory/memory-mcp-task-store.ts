import { SteamharnessError } from "../../../domain/errors.js";
import type { McpTaskChange, McpTaskExpectation, McpTaskRecord, McpTaskStore } from "../../../ports/mcp-task-store.js";

/**
 * Whether a row meets a compare-and-set expectation (the rule every task-store adapter applies).
 *
 * @example
 * meetsExpectation(row, { status: ["working"], ownerHost: "host-a" })
 */
export function meetsExpectation(row: McpTaskRecord, expect: McpTaskExpectation | undefined): boolean {
  if (!expect) return true;
  if (expect.status && !expect.status.includes(row.status)) return false;
  if (expect.ownerHost !== undefined && row.ownerHost !== expect.ownerHost) return false;
  if (expect.leaseExpiredBefore !== undefined && !(row.leaseExpiresAt !== null && row.leaseExpiresAt < expect.leaseExpiredBefore)) return false;
  return true;
}

/**
 * The in-memory task store: the reference adapter (one process only).
 *
 * @example
 * const tasks = createMemoryMcpTaskStore();
 */
export function createMemoryMcpTaskStore(): McpTaskStore {
  const rows = new Map<string, McpTaskRecord>();
  const key = (projectId: string, taskId: string) => `${projectId}\u0000${taskId}`;
  let closed = false;
  const open = () => {
    if (closed) throw new SteamharnessError("storage_failure", "[steamharness] [memory] the task store is closed");
  };
  const copy = (row: McpTaskRecord): McpTaskRecord => structuredClone(row);
  return {
    async create(record) {
      open();
      if (rows.has(key(record.projectId, record.taskId))) throw new SteamharnessError("conflict", `[steamharness] [memory] task ${record.taskId} exists`);
      rows.set(key(record.projectId, record.taskId), copy({ ...record, tenant: record.tenant ?? null }));
    },
    async get(projectId, taskId) {
      open();
      const row = rows.get(key(projectId, taskId));
      return row ? copy(row) : null;
    },
    async update(projectId, taskId, change: McpTaskChange, expect) {
      open();
      const row = rows.get(key(projectId, taskId));
      if (!row || !meetsExpectation(row, expect)) return false;
      rows.set(key(projectId, taskId), { ...row, ...structuredClone(change) });
      return true;
    },
    async renewLeases(projectId, ownerHost, taskIds, leaseExpiresAt, renewedAt) {
      open();
      const renewed: string[] = [];
      for (const taskId of taskIds) {
        const row = rows.get(key(projectId, taskId));
        if (!row || row.status !== "working" || row.ownerHost !== ownerHost) continue;
        row.leaseExpiresAt = leaseExpiresAt;
        row.updatedAt = renewedAt;
        renewed.push(taskId);
      }
      return renewed;
    },
    async listLapsed(projectId, before, limit) {
      open();
      const lapsed = [...rows.values()].filter((row) => row.projectId === projectId && row.status === "working" && row.leaseExpiresAt !== null && row.leaseExpiresAt < before);
      lapsed.sort((a, b) => a.leaseExpiresAt! - b.leaseExpiresAt! || (a.taskId < b.taskId ? -1 : 1));
      return lapsed.slice(0, limit).map(copy);
    },
    async list(projectId, { cursor, limit, tenant }) {
      open();
      const all = [...rows.values()].filter((row) => row.projectId === projectId && (tenant === undefined || (row.tenant ?? null) === tenant)).sort((a, b) => b.createdAt - a.createdAt || (a.taskId < b.taskId ? 1 : -1));
      const start = cursor ? Number(cursor) : 0;
      const page = all.slice(start, start + limit).map(copy);
      return start + limit < all.length ? { tasks: page, nextCursor: String(start + limit) } : { tasks: page };
    },
    async prune(now) {
      open();
      let deleted = 0;
      for (const [id, row] of rows) {
        if (row.status === "working" || row.updatedAt + row.ttlMs >= now) continue;
        rows.delete(id);
        deleted += 1;
      }
      return deleted;
    },
    async close() {
      closed = true;
    },
  };
}
