import { afterAll, describe, expect, it } from "@jest/globals";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryMcpTaskStore } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import { createPostgresMcpTaskStore } from "../../src/adapters/driven/postgres/postgres-sql-driver.js";
import { createSqliteMcpTaskStore } from "../../src/adapters/driven/sqlite/mcp-tasks/sqlite-mcp-task-store.js";
import type { McpTaskRecord, McpTaskStore } from "../../src/ports/mcp-task-store.js";
import { describePostgres } from "../fixtures/postgres.js";

// MCP-13: the task store's row rules, the same cases on memory, SQLite and PostgreSQL.
const row = (taskId: string, extra: Partial<McpTaskRecord> = {}): McpTaskRecord => ({
  taskId,
  projectId: "p1",
  entrypointId: "quick",
  status: "working",
  statusMessage: null,
  ownerHost: "host-a",
  leaseExpiresAt: 10_000,
  ttlMs: 1000,
  pollIntervalMs: 1000,
  createdAt: 1000,
  updatedAt: 1000,
  tenant: null,
  result: null,
  paused: null,
  ...extra,
});

function storeCases(name: string, open: () => Promise<McpTaskStore>) {
  describe(`MCP-13 task store: ${name}`, () => {
    it("MCP-13 create, get, conflict on a second create, null for a missing row", async () => {
      const store = await open();
      await store.create(row("t1", { paused: { args: { a: [1, "x"] } } }));
      expect(await store.get("p1", "t1")).toEqual(row("t1", { paused: { args: { a: [1, "x"] } } }));
      await expect(store.create(row("t1"))).rejects.toMatchObject({ code: "conflict" });
      expect(await store.get("p2", "t1")).toBeNull();
      await store.close();
    });

    it("MCP-13 update is a compare-and-set on status, owner and an expired lease", async () => {
      const store = await open();
      await store.create(row("t2"));
      expect(await store.update("p1", "t2", { status: "failed", updatedAt: 2000 }, { status: ["working"], ownerHost: "host-b" })).toBe(false);
      expect(await store.update("p1", "t2", { status: "failed", updatedAt: 2000 }, { leaseExpiredBefore: 5000 })).toBe(false);
      expect(await store.update("p1", "t2", { status: "failed", ownerHost: null, result: { content: [] }, updatedAt: 2000 }, { status: ["working"], ownerHost: "host-a", leaseExpiredBefore: 20_000 })).toBe(true);
      expect(await store.get("p1", "t2")).toMatchObject({ status: "failed", ownerHost: null, result: { content: [] }, updatedAt: 2000 });
      expect(await store.update("p1", "t2", { status: "working", updatedAt: 3000 }, { status: ["input_required"], ownerHost: null })).toBe(false);
      await store.close();
    });

    it("MCP-13 TEN-6 renewLeases extends only the owner's working rows, and a renewal refreshes their activity (updatedAt)", async () => {
      const store = await open();
      await store.create(row("r1"));
      await store.create(row("r2", { ownerHost: "host-b" }));
      await store.create(row("r3", { status: "cancelled" }));
      expect((await store.renewLeases("p1", "host-a", ["r1", "r2", "r3"], 99_000, 89_000)).sort()).toEqual(["r1"]);
      expect(await store.get("p1", "r1")).toMatchObject({ leaseExpiresAt: 99_000, updatedAt: 89_000 });
      expect(await store.get("p1", "r2")).toMatchObject({ leaseExpiresAt: 10_000, updatedAt: 1000 });
      expect(await store.get("p1", "r3")).toMatchObject({ updatedAt: 1000 });
      await store.close();
    });

    it("TEN-6 listLapsed gives the project's working rows whose lease ended, longest-expired first, up to the limit", async () => {
      const store = await open();
      await store.create(row("l-late", { leaseExpiresAt: 3000 }));
      await store.create(row("l-early", { leaseExpiresAt: 2000, ownerHost: "host-b" }));
      await store.create(row("l-live", { leaseExpiresAt: 9000 }));
      await store.create(row("l-at", { leaseExpiresAt: 5000 }));
      await store.create(row("l-paused", { status: "input_required", ownerHost: null, leaseExpiresAt: null }));
      await store.create(row("l-done", { status: "failed", leaseExpiresAt: 1000 }));
      await store.create(row("l-other", { projectId: "p2", leaseExpiresAt: 1000 }));
      expect((await store.listLapsed("p1", 5000, 10)).map((task) => task.taskId)).toEqual(["l-early", "l-late"]);
      expect(await store.listLapsed("p1", 5000, 1)).toEqual([row("l-early", { leaseExpiresAt: 2000, ownerHost: "host-b" })]);
      expect(await store.listLapsed("p3", 5000, 10)).toEqual([]);
      await store.close();
    });

    it("MCP-13 TEN-6 prune deletes the rows past their TTL but never a working one, live lease or dead; list pages newest first", async () => {
      const store = await open();
      await store.create(row("a-done", { status: "completed", createdAt: 1, updatedAt: 1000 }));
      await store.create(row("b-live", { createdAt: 2, updatedAt: 1000, leaseExpiresAt: 50_000 }));
      await store.create(row("c-dead", { createdAt: 3, updatedAt: 1000, leaseExpiresAt: 1500 }));
      await store.create(row("d-fresh", { status: "completed", createdAt: 4, updatedAt: 4000 }));
      const first = await store.list("p1", { limit: 3 });
      expect(first.tasks.map((task) => task.taskId)).toEqual(["d-fresh", "c-dead", "b-live"]);
      expect((await store.list("p1", { limit: 3, cursor: first.nextCursor! })).tasks.map((task) => task.taskId)).toEqual(["a-done"]);
      expect(await store.prune(4500)).toBe(1);
      expect((await store.list("p1", { limit: 10 })).tasks.map((task) => task.taskId)).toEqual(["d-fresh", "c-dead", "b-live"]);
      // Working rows stay whatever their age; the others go once their TTL ran out.
      expect(await store.prune(10_000_000)).toBe(1);
      expect((await store.list("p1", { limit: 10 })).tasks.map((task) => task.taskId)).toEqual(["c-dead", "b-live"]);
      await store.close();
      await expect(store.get("p1", "d-fresh")).rejects.toMatchObject({ code: "storage_failure" });
    });

    it("MCP-13 BUD-4 a row keeps its tenant; list with a tenant (or null) pages only that tenant's rows", async () => {
      const store = await open();
      await store.create(row("a1", { tenant: "alice", createdAt: 1 }));
      await store.create(row("b1", { tenant: "bob", createdAt: 2 }));
      await store.create(row("a2", { tenant: "alice", createdAt: 3 }));
      await store.create(row("n1", { createdAt: 4 }));
      await store.create(row("a3", { tenant: "alice", createdAt: 5 }));
      expect((await store.get("p1", "b1"))?.tenant).toBe("bob");
      const first = await store.list("p1", { limit: 2, tenant: "alice" });
      expect(first.tasks.map((task) => task.taskId)).toEqual(["a3", "a2"]);
      expect((await store.list("p1", { limit: 2, tenant: "alice", cursor: first.nextCursor! })).tasks.map((task) => task.taskId)).toEqual(["a1"]);
      expect((await store.list("p1", { limit: 10, tenant: null })).tasks.map((task) => task.taskId)).toEqual(["n1"]);
      expect((await store.list("p1", { limit: 10, tenant: "carol" })).tasks).toEqual([]);
      expect((await store.list("p1", { limit: 10 })).tasks).toHaveLength(5);
      await store.close();
    });
  });
}

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

storeCases("memory", async () => createMemoryMcpTaskStore());
storeCases("SQLite", async () => {
  const dir = await mkdtemp(join(tmpdir(), "sh-task-store-"));
  dirs.push(dir);
  return createSqliteMcpTaskStore({ directory: dir });
});
describePostgres("MCP-13 task store on PostgreSQL", (database) => {
  storeCases("PostgreSQL", async () => createPostgresMcpTaskStore({ connectionString: database.url, schema: database.freshSchema() }));
});
