import { afterAll, beforeAll, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import { createTaskRuns, type TaskRuns } from "../../src/adapters/driving/mcp/tasks/task-runs.js";
import { openProjectRunner } from "../../src/app/workflow-runs/project-runner.js";
import type { ProjectRunner } from "../../src/ports/project-runner.js";
import { createSqliteMcpTaskStore } from "../../src/adapters/driven/sqlite/mcp-tasks/sqlite-mcp-task-store.js";
import type { McpTaskStore } from "../../src/ports/mcp-task-store.js";
import { cleanEnv, cleanup, tempDir } from "../cli/helpers.js";
import { bundledProject } from "../fixtures/bundled-fixture.js";
import { expectedStderr } from "../fixtures/expected-stderr.js";
import { testWorkflowRunPorts } from "../fixtures/workflow-run-ports.js";
import { effectLines } from "./task-helpers.js";
import { createSurfaceServices } from "../../src/compose/surface-services.js";

// MCP-13: two hosts (each its own runner, task runs and store connection, like two processes on
// one machine) read a dead owner's task at the same instant: the compare-and-set claim lets one
// of them run it again, once.
jest.setTimeout(120_000);

let tmp: string;
const runners: ProjectRunner[] = [];
const stores: McpTaskStore[] = [];
const hosts: TaskRuns[] = [];
// The claiming host's notice that it resumed the dead owner's task: what this test provokes.
const notices = expectedStderr(/\[steamharness\] \[mcp\] task run-race-.*stopped renewing its lease/);

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-takeover-race-");
  // The fixture imports the library's sources: its bundle is plain JavaScript, which the built
  // worker (testWorkflowRunPorts) loads without tsx.
  const project = bundledProject("test/mcp-http/fixtures/resume", join(tmp, "project"));
  for (const name of ["b", "c"]) {
    const runner = await openProjectRunner({ projectDir: project, ports: testWorkflowRunPorts(), dirs: { dataDir: join(tmp, `data-${name}`) }, env: cleanEnv() });
    const store = createSqliteMcpTaskStore({ directory: join(tmp, "tasks") });
    runners.push(runner);
    stores.push(store);
    hosts.push(createTaskRuns({ runner, store, openStorage: createSurfaceServices().localStorage, hostId: `host-${name}`, leaseMs: 1000 }));
  }
}, 90_000);
afterAll(async () => {
  for (const host of hosts) await host.close();
  for (const store of stores) await store.close();
  for (const runner of runners) await runner.close();
  await cleanup(tmp);
  notices.restore();
});

it("MCP-13 two hosts reading a dead owner's resumable task at once: exactly one claims it and runs it again, once, to completed", async () => {
  const file = join(tmp, "effects.txt");
  const at = Date.now();
  const taskId = `run-race-${at}`;
  // The row a host that died leaves behind: working, its lease run out, what it needs to run again.
  // The run again holds 2 s in its `hold` tool, so both reads see it working even when a loaded
  // machine delays one of them (with no hold, a full-suite CI run once saw it completed already).
  await stores[0]!.create({ taskId, projectId: hosts[0]!.projectId, entrypointId: "agent_charge", status: "working", statusMessage: null, ownerHost: "host-dead", leaseExpiresAt: at - 1, ttlMs: 600_000, pollIntervalMs: 1000, createdAt: at - 5000, updatedAt: at - 5000, result: null, paused: { args: { file, holdMs: 2000 }, answers: {} } });
  const [seenB, seenC] = await Promise.all([hosts[0]!.read(taskId), hosts[1]!.read(taskId)]);
  expect(seenB?.status).toBe("working");
  expect(seenC?.status).toBe("working");
  expect(seenB?.ownerHost).toBe(seenC?.ownerHost);
  expect(["host-b", "host-c"]).toContain(seenB?.ownerHost);
  expect(seenB?.statusMessage).toMatch(/stopped renewing its lease.*resumed it on the same run id/);
  let row = seenB;
  for (const end = Date.now() + 60_000; row?.status === "working" && Date.now() < end; ) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    row = await hosts[1]!.read(taskId);
  }
  expect(row?.status).toBe("completed");
  expect(row?.result).toMatchObject({ structuredContent: { status: "success", runId: taskId } });
  // Run once, by one host: each model step asked once, the charge made once.
  const lines = await effectLines(file);
  expect(lines.filter((line) => line.startsWith("model")).map((line) => line.split(" ")[1])).toEqual(["0", "1", "2"]);
  expect(lines.filter((line) => line.startsWith("charge_card"))).toHaveLength(1);
});
