import { afterAll, beforeAll, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { cleanup, tempDir } from "../cli/helpers.js";
import { describePostgres } from "../fixtures/postgres.js";
import { connectHttp, startHttpMcp, type HttpMcpServer } from "./helpers.js";
import { alive, callAsTask, effectLines, getTask, pollTask, scriptForms, taskResult, TASKS_PROJECT, waitForLine } from "./task-helpers.js";

// Two real `steamharness mcp --http` processes, each with its own data dir, sharing only the
// PostgreSQL task store (issue 26 item 5).
jest.setTimeout(180_000);

const LEASE_MS = 1500;

describePostgres("MCP-13 two hosts, one PostgreSQL task store", (database) => {
  let tmp: string;
  let a: HttpMcpServer;
  let b: HttpMcpServer;
  let clientA: Client;
  let clientB: Client;
  let formsA: ReturnType<typeof scriptForms>;
  let formsB: ReturnType<typeof scriptForms>;
  const strays: number[] = [];

  beforeAll(async () => {
    tmp = await tempDir("sh-mcp-tasks2-");
    const shared = ["--postgres", database.url, "--postgres-schema", database.schema, "--task-lease-ms", String(LEASE_MS)];
    [a, b] = await Promise.all([
      startHttpMcp(TASKS_PROJECT, ["--data-dir", join(tmp, "data-a"), ...shared]),
      startHttpMcp(TASKS_PROJECT, ["--data-dir", join(tmp, "data-b"), ...shared]),
    ]);
    clientA = await connectHttp(a.url, { capabilities: { elicitation: { form: {} } } });
    clientB = await connectHttp(b.url, { capabilities: { elicitation: { form: {} } } });
    formsA = scriptForms(clientA);
    formsB = scriptForms(clientB);
  }, 120_000);
  afterAll(async () => {
    await clientA?.close().catch(() => undefined);
    await clientB?.close().catch(() => undefined);
    await Promise.all([a?.stop(), b?.stop()]);
    for (const pid of strays) if (alive(pid)) process.kill(pid, "SIGKILL");
    await cleanup(tmp);
  });

  it("MCP-13 MCP-14 a task started on A is polled and answered on B, on the same runId, its effect once", async () => {
    const file = join(tmp, "charges-ab.txt");
    formsB.answers = [{ action: "accept", content: { decision: "approve" } }];
    const task = await callAsTask(clientA, "charge", { file });
    const waiting = await pollTask(clientB, task.taskId, (t) => t.status !== "working");
    expect(waiting.status).toBe("input_required");
    const result = await taskResult(clientB, task.taskId);
    expect(formsB.asked).toHaveLength(1);
    expect(formsA.asked).toHaveLength(0);
    expect(result.structuredContent).toMatchObject({ status: "success", runId: task.taskId, output: { charged: true, runId: task.taskId } });
    expect((await getTask(clientA, task.taskId)).status).toBe("completed");
    expect((await effectLines(file)).filter((line) => line.startsWith(`charged ${task.taskId}`))).toHaveLength(1);
  });

  it("MCP-13 SIGKILL of the owner mid-task: B reports it failed within the lease bound, the unsafe effect not repeated", async () => {
    const file = join(tmp, "charges-kill.txt");
    formsA.answers = [{ action: "accept", content: { decision: "approve" } }];
    const task = await callAsTask(clientA, "charge", { file, holdMs: 600_000 });
    await pollTask(clientB, task.taskId, (t) => t.status === "input_required");
    // Answered on A: A owns the resumed run, which charges and then holds.
    void taskResult(clientA, task.taskId).catch(() => undefined);
    strays.push(Number((await waitForLine(file, `charged ${task.taskId}`)).split(" ")[2]));
    expect((await getTask(clientB, task.taskId)).status).toBe("working");
    a.child.kill("SIGKILL");
    const killedAt = Date.now();
    const failed = await pollTask(clientB, task.taskId, (t) => t.status !== "working", 30_000);
    const reportedAfter = Date.now() - killedAt;
    expect(failed.status).toBe("failed");
    expect(failed.statusMessage).toMatch(/stopped renewing its lease/);
    // The bound: the lease, one renewal period and polling slack on a loaded machine.
    expect(reportedAfter).toBeLessThan(LEASE_MS + 5000);
    const result = await taskResult(clientB, task.taskId);
    expect(result.isError).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS));
    expect((await effectLines(file)).filter((line) => line.startsWith("charged"))).toHaveLength(1);
  });
});
