import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import { createTaskRuns, type TaskRuns } from "../../src/adapters/driving/mcp/tasks/task-runs.js";
import { startLapsedTaskSweep, sweepDelay } from "../../src/adapters/driving/mcp/tasks/task-sweep.js";
import { openProjectRunner } from "../../src/app/workflow-runs/project-runner.js";
import type { ProjectRunner } from "../../src/ports/project-runner.js";
import { createMemoryMcpTaskStore } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import { createSqliteMcpTaskStore } from "../../src/adapters/driven/sqlite/mcp-tasks/sqlite-mcp-task-store.js";
import type { McpTaskRecord, McpTaskStore } from "../../src/ports/mcp-task-store.js";
import { cleanEnv, cleanup, tempDir, waitFor } from "../cli/helpers.js";
import { effectLines, TASKS_PROJECT, waitForLine } from "./task-helpers.js";
import { createSurfaceServices } from "../../src/compose/surface-services.js";
import { testWorkflowRunPorts } from "../fixtures/workflow-run-ports.js";

// TEN-6 on one machine: a real runner and the SQLite task store. A working task is never lost to
// its TTL (its owner's renewals are activity; a dead owner's row waits for a takeover, not a
// prune), and a host's background sweep takes a dead owner's task over with no read at all.
jest.setTimeout(120_000);

const LEASE_MS = 400;
/** ARCH-12: the TTL of the task that outlives it (the runs grant it: their floor is lowered from 1 s). */
const TTL_MS = 200;
let tmp: string;
let runner: ProjectRunner;
let store: McpTaskStore;
let runs: TaskRuns;

const deadRow = (taskId: string, at: number, extra: Partial<McpTaskRecord> = {}): McpTaskRecord => ({ taskId, projectId: runs.projectId, entrypointId: "hold", status: "working", statusMessage: null, ownerHost: "host-dead", leaseExpiresAt: at - 60_000, ttlMs: 1000, pollIntervalMs: 1000, createdAt: at - 120_000, updatedAt: at - 120_000, tenant: null, result: null, paused: { args: { file: join(tmp, "never.txt") }, answers: {} }, ...extra });

beforeAll(async () => {
  tmp = await tempDir("sh-ten6-sweep-");
  runner = await openProjectRunner({ projectDir: TASKS_PROJECT, ports: testWorkflowRunPorts(), dirs: { dataDir: join(tmp, "data") }, env: cleanEnv() });
  store = createSqliteMcpTaskStore({ directory: join(tmp, "tasks") });
  runs = createTaskRuns({ runner, store, openStorage: createSurfaceServices().localStorage, hostId: "host-live", leaseMs: LEASE_MS, minTtlMs: TTL_MS });
}, 90_000);
afterAll(async () => {
  await runs?.close();
  await store?.close();
  await runner?.close();
  await cleanup(tmp);
});

describe("TEN-6 MCP tasks outlive their TTL", () => {
  it("TEN-6 a task running past its TTL stays readable: its owner's lease renewals refresh its activity, and no prune removes it", async () => {
    const file = join(tmp, "hold.txt");
    const task = await runs.start(await runner.entrypoint("hold"), { file }, TTL_MS);
    await waitForLine(file, `started ${task.taskId}`);
    await new Promise((resolve) => setTimeout(resolve, TTL_MS + LEASE_MS));
    expect(await store.prune(Date.now() + 10 * 60_000)).toBe(0);
    const row = await runs.read(task.taskId);
    expect(row).toMatchObject({ status: "working", ownerHost: "host-live", ttlMs: TTL_MS });
    // Renewed every third of the lease: the last activity is recent, not the creation.
    expect(row!.updatedAt).toBeGreaterThan(task.createdAt + TTL_MS);
    expect(Date.now() - row!.updatedAt).toBeLessThan(LEASE_MS + 1000);
    expect(await runs.cancel(task.taskId)).toBe(true);
  });

  it("TEN-6 a dead owner's working task long past its TTL is not pruned: the sweep fails it (not resumable) without any read, and it is then readable", async () => {
    const at = Date.now();
    await store.create(deadRow(`run-dead-${at}`, at));
    expect(await store.prune(at)).toBe(0);
    await waitFor(async () => (await store.get(runs.projectId, `run-dead-${at}`))?.status === "failed", 10_000);
    const row = await store.get(runs.projectId, `run-dead-${at}`);
    expect(row).toMatchObject({ status: "failed", ownerHost: null, statusMessage: expect.stringMatching(/\(host-dead\) stopped renewing its lease.*entrypoint hold is not declared resumable/) });
    // Failed just now: its TTL counts from then, so a read finds it.
    expect((await runs.read(`run-dead-${at}`))?.status).toBe("failed");
    expect(await effectLines(join(tmp, "never.txt"))).toEqual([]);
  });
});

describe("TEN-6 the lapsed-task sweep", () => {
  it("TEN-6 sweeps every half lease, ±25 % jitter", () => {
    expect([sweepDelay(1000, () => 0), sweepDelay(1000, () => 0.5), sweepDelay(1000, () => 0.999_999)]).toEqual([375, 500, 625]);
  });

  it("TEN-6 hands each lapsed row to the takeover, never overlapping sweeps; stop (or the signal) ends it and waits for a sweep under way", async () => {
    const memory = createMemoryMcpTaskStore();
    const at = Date.now();
    await memory.create({ ...deadRow("t-lapsed", at), projectId: "p" });
    await memory.create({ ...deadRow("t-live", at), projectId: "p", leaseExpiresAt: at + 600_000 });
    const seen: string[] = [];
    let inFlight = 0;
    let overlapped = false;
    const takeOver = async (row: McpTaskRecord) => {
      overlapped ||= inFlight > 0;
      inFlight += 1;
      seen.push(row.taskId);
      await new Promise((resolve) => setTimeout(resolve, 30));
      inFlight -= 1;
    };
    const stop = startLapsedTaskSweep({ store: memory, projectId: "p", leaseMs: 40, now: Date.now, takeOver });
    await waitFor(() => seen.length >= 3, 5000);
    await stop();
    const count = seen.length;
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(seen.length).toBe(count);
    expect(new Set(seen)).toEqual(new Set(["t-lapsed"]));
    expect([overlapped, inFlight]).toEqual([false, 0]);

    const controller = new AbortController();
    const seenAfter: string[] = [];
    startLapsedTaskSweep({ store: memory, projectId: "p", leaseMs: 40, now: Date.now, takeOver: async (row) => void seenAfter.push(row.taskId), signal: controller.signal });
    await waitFor(() => seenAfter.length >= 1, 5000);
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 40));
    const stopped = seenAfter.length;
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(seenAfter.length).toBe(stopped);
    await memory.close();
  });
});
