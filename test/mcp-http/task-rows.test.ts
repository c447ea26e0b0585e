import { afterEach, expect, it, jest } from "@jest/globals";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { recordOf } from "../../src/adapters/driven/kernel/mcp-task-rows.js";
import { createSqliteMcpTaskStore } from "../../src/adapters/driven/sqlite/mcp-tasks/sqlite-mcp-task-store.js";

// MCP-13: `tasks/get` reads its task's row on every poll and returns neither the result nor the
// pause the row keeps: their JSON text is parsed when a field is first read, once.

afterEach(() => {
  jest.restoreAllMocks();
});

const row = { projectId: "p", taskId: "t", entrypointId: "quick", tenant: null, status: "completed", statusMessage: null, ownerHost: null, leaseExpiresAt: null, ttlMs: 600000, pollIntervalMs: 1000, createdAt: 1, updatedAt: 2, result: '{"content":[{"type":"text","text":"done"}]}', paused: '{"args":{"text":"x"}}' };

it("MCP-13 a task row's result and pause are parsed when first read, once; the status fields need no parse", () => {
  const parse = jest.spyOn(JSON, "parse");
  const record = recordOf(row);
  expect(record.status).toBe("completed");
  expect(record.ttlMs).toBe(600000);
  expect(parse).not.toHaveBeenCalled();
  expect(record.result).toEqual({ content: [{ type: "text", text: "done" }] });
  expect(record.result).toBe(record.result);
  expect(parse).toHaveBeenCalledTimes(1);
  // Spread and JSON encoding see the parsed values, as before.
  expect({ ...record }).toMatchObject({ result: { content: [{ type: "text", text: "done" }] }, paused: { args: { text: "x" } } });
  expect(JSON.parse(JSON.stringify(record))).toMatchObject({ taskId: "t", paused: { args: { text: "x" } } });
  record.paused = null;
  expect(record.paused).toBeNull();
  expect(recordOf({ ...row, result: null, paused: { already: "jsonb" } })).toMatchObject({ result: null, paused: { already: "jsonb" } });
});

it("MCP-13 the SQLite task store gives the same record through repeated reads of one prepared statement", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sh-task-rows-"));
  const store = createSqliteMcpTaskStore({ directory: dir });
  try {
    const record = { projectId: "p", taskId: "t", entrypointId: "quick", tenant: null, status: "completed" as const, statusMessage: null, ownerHost: null, leaseExpiresAt: null, ttlMs: 600000, pollIntervalMs: 1000, createdAt: 1, updatedAt: 2, result: { content: [] }, paused: null };
    await store.create(record);
    for (let i = 0; i < 3; i++) expect({ ...(await store.get("p", "t")) }).toEqual(record);
    expect(await store.get("p", "other")).toBeNull();
    expect(await store.update("p", "t", { statusMessage: "x", updatedAt: 3 }, { status: ["completed"] })).toBe(true);
    expect(await store.get("p", "t")).toMatchObject({ statusMessage: "x", updatedAt: 3, result: { content: [] } });
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
