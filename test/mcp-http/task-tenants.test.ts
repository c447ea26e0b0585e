// MCP-13 / BUD-4 tenant separation of durable tasks: on `steamharness mcp --http --keys`, a task
// created with tenant A's key is invisible to tenant B's key — tasks/get, tasks/result,
// tasks/cancel, tasks/list and answering its input request all answer B as for an unknown task
// id — while A sees and answers it as before. Real processes: the CLI adding keys, the server
// (its workers), and the SDK's Streamable HTTP clients.
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CancelTaskResultSchema, ListTasksResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { cleanup, tempDir } from "../cli/helpers.js";
import { connectHttp, startHttpMcp, type HttpMcpServer } from "./helpers.js";
import { callAsTask, getTask, pollTask, scriptForms, taskResult, TASKS_PROJECT } from "./task-helpers.js";
import { addTenantKey } from "../fixtures/tenant-credentials.js";

jest.setTimeout(180_000);

let tmp: string;
let server: HttpMcpServer;
let alice: Client;
let bob: Client;
let secrets: { alice: string; bob: string };
let aliceForms: ReturnType<typeof scriptForms>;
let bobForms: ReturnType<typeof scriptForms>;

const connectWith = (secret: string, forms = true) => connectHttp(server.url, { capabilities: forms ? { elicitation: { form: {} } } : {}, transport: { requestInit: { headers: { authorization: `Bearer ${secret}` } } } });

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-task-tenants-");
  const store = join(tmp, "keys");
  const [a, b] = [await addTenantKey(["--store", store], "alice"), await addTenantKey(["--store", store], "bob")];
  secrets = { alice: a, bob: b };
  server = await startHttpMcp(TASKS_PROJECT, ["--keys", "--store", store, "--data-dir", join(tmp, "data")]);
  [alice, bob] = [await connectWith(a), await connectWith(b)];
  aliceForms = scriptForms(alice);
  bobForms = scriptForms(bob);
}, 120_000);
afterAll(async () => {
  await Promise.all([alice?.close(), bob?.close()]);
  await server?.stop();
  await cleanup(tmp);
});

const listed = async (client: Client) => (await client.request({ method: "tasks/list", params: {} }, ListTasksResultSchema)).tasks.map((task) => task.taskId);

describe("MCP-13 BUD-4 tasks are separated by tenant", () => {
  it("MCP-13 BUD-4 another tenant's task is an unknown task to tasks/get, tasks/result, tasks/cancel and tasks/list; its owner sees it", async () => {
    const task = await callAsTask(alice, "quick", { text: "mine" });
    await pollTask(alice, task.taskId, (seen) => seen.status === "completed");
    const unknown = `run-${"0".repeat(8)}-0000-4000-8000-${"0".repeat(12)}`;
    const unknownError = String(await getTask(bob, unknown).catch((error: unknown) => error));
    expect(unknownError).toMatch(/Task not found/);
    const asUnknown = (message: unknown) => String(message).replaceAll(task.taskId, unknown);
    expect(asUnknown(await getTask(bob, task.taskId).catch((error: unknown) => error))).toBe(unknownError);
    expect(asUnknown(await taskResult(bob, task.taskId).catch((error: unknown) => error))).toBe(unknownError);
    expect(asUnknown(await bob.request({ method: "tasks/cancel", params: { taskId: task.taskId } }, CancelTaskResultSchema).catch((error: unknown) => error))).toBe(unknownError);
    expect(await listed(bob)).not.toContain(task.taskId);
    // The owner still sees and reads it.
    expect(await listed(alice)).toContain(task.taskId);
    expect((await taskResult(alice, task.taskId)).structuredContent).toMatchObject({ status: "success", output: { echoed: "mine" } });
  });

  it("MCP-13 BUD-4 another tenant cannot answer a task's input request nor cancel it; the owner answers it and it completes", async () => {
    const task = await callAsTask(alice, "ask", {});
    await pollTask(alice, task.taskId, (seen) => seen.status === "input_required");
    bobForms.answers.push({ action: "accept", content: { name: "Mallory" } });
    await expect(taskResult(bob, task.taskId)).rejects.toThrow(/Task not found/);
    await expect(bob.request({ method: "tasks/cancel", params: { taskId: task.taskId } }, CancelTaskResultSchema)).rejects.toThrow(/Task not found/);
    expect(bobForms.asked).toHaveLength(0);
    expect((await getTask(alice, task.taskId)).status).toBe("input_required");
    aliceForms.answers.push({ action: "accept", content: { name: "Alice" } });
    const result = await taskResult(alice, task.taskId);
    expect(result.structuredContent).toMatchObject({ status: "success", output: { runId: task.taskId, first: { name: "Alice" } } });
  });

  it("BUD-4 a call that ended interaction_required is answered (_meta steamharness/answer) by its own tenant only; another tenant gets the unknown-run error", async () => {
    const [plainAlice, plainBob] = [await connectWith(secrets.alice, false), await connectWith(secrets.bob, false)];
    try {
      const waiting = (await plainAlice.callTool({ name: "ask", arguments: {} })) as CallToolResult;
      const error = (waiting.structuredContent as { error: { code: string; pending: { requestId: string } } }).error;
      expect(error.code).toBe("interaction_required");
      const runId = (waiting.structuredContent as { runId: string }).runId;
      const answer = (id: string) => ({ name: "ask", arguments: {}, _meta: { "steamharness/answer": { runId: id, requestId: error.pending.requestId, values: { name: "Eve" } } } });
      const stranger = String(await plainBob.callTool(answer(runId)).catch((e: unknown) => e));
      const unknown = String(await plainBob.callTool(answer("20260101-000000000000")).catch((e: unknown) => e));
      expect(stranger).toMatch(/no paused run/);
      expect(stranger.replace(runId, "20260101-000000000000")).toBe(unknown);
      const done = (await plainAlice.callTool(answer(runId))) as CallToolResult;
      expect(done.structuredContent).toMatchObject({ status: "success", output: { runId, first: { name: "Eve" } } });
    } finally {
      await Promise.all([plainAlice.close(), plainBob.close()]);
    }
  });
});
