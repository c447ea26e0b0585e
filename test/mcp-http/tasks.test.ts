import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CancelTaskResultSchema, RELATED_TASK_META_KEY, TaskStatusNotificationSchema, type Task } from "@modelcontextprotocol/sdk/types.js";
import { cleanup, tempDir } from "../cli/helpers.js";
import { decisionsOf, writeApprovingProject } from "../fixtures/approving-project.js";
import { addTenantKey } from "../fixtures/tenant-credentials.js";
import { connectHttp, startHttpMcp, type HttpMcpServer } from "./helpers.js";
import { alive, callAsTask, effectLines, getTask, pollTask, scriptForms, taskResult, TASKS_PROJECT, waitForLine } from "./task-helpers.js";

// Real `steamharness mcp --http` processes under tsx on a shared 2-core machine.
jest.setTimeout(120_000);

let tmp: string;
let server: HttpMcpServer;
let client: Client;
let forms: ReturnType<typeof scriptForms>;

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-tasks-");
  server = await startHttpMcp(TASKS_PROJECT, ["--data-dir", join(tmp, "data"), "--task-lease-ms", "1500"]);
  client = await connectHttp(server.url, { capabilities: { elicitation: { form: {} } } });
  forms = scriptForms(client);
}, 90_000);
afterAll(async () => {
  await client?.close();
  await server?.stop();
  await cleanup(tmp);
});

describe("MCP-13 durable tasks on one host (SQLite)", () => {
  it("MCP-13 the server declares tasks and every entrypoint supports them", async () => {
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.execution)).toEqual(tools.map(() => ({ taskSupport: "optional" })));
  });

  it("MCP-13 a tools/call asking for a task returns a task backed by the run id; tasks/get and tasks/result", async () => {
    const task = await callAsTask(client, "quick", { text: "hi" });
    expect(task).toMatchObject({ status: "working", ttl: 60_000, pollInterval: 1000 });
    const result = await taskResult(client, task.taskId);
    expect(result.structuredContent).toMatchObject({ status: "success", runId: task.taskId, output: { echoed: "hi", runId: task.taskId } });
    expect(result._meta?.[RELATED_TASK_META_KEY]).toEqual({ taskId: task.taskId });
    expect(await getTask(client, task.taskId)).toMatchObject({ taskId: task.taskId, status: "completed" });
  });

  it("MCP-7 MCP-13 a task's result carries the run's attachments as content blocks, as a plain call's does", async () => {
    const task = await callAsTask(client, "attach", {});
    const result = await taskResult(client, task.taskId);
    const output = (result.structuredContent as { output: { fileId: string } }).output;
    expect(result.content).toEqual([
      { type: "text", text: JSON.stringify(result.structuredContent) },
      { type: "resource", resource: { uri: expect.stringMatching(new RegExp(`^steamharness://files/[0-9a-f-]+/${output.fileId}$`)), mimeType: "text/plain", text: "kept with the task" } },
    ]);
  });

  it("MCP-13 tasks/cancel ends the worker and the task stays cancelled", async () => {
    const file = join(tmp, "hold.txt");
    const task = await callAsTask(client, "hold", { file });
    const pid = Number((await waitForLine(file, `started ${task.taskId}`)).split(" ")[2]);
    expect(alive(pid)).toBe(true);
    const cancelled = await client.request({ method: "tasks/cancel", params: { taskId: task.taskId } }, CancelTaskResultSchema);
    expect(cancelled.status).toBe("cancelled");
    const end = Date.now() + 20_000;
    while (alive(pid) && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(alive(pid)).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await getTask(client, task.taskId)).status).toBe("cancelled");
  });

  it("MCP-13 a task is pruned once its TTL has run out after its last change", async () => {
    const task = await callAsTask(client, "quick", { text: "short-lived" }, 1000);
    expect(task.ttl).toBe(1000);
    await taskResult(client, task.taskId);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    await expect(getTask(client, task.taskId)).rejects.toThrow(/Task not found/);
  });
});

describe("MCP-14 input_required ↔ questions and approvals on the same runId", () => {
  it("MCP-14 a question makes the task input_required; the form answered through tasks/result resumes the same run", async () => {
    forms.asked.length = 0;
    forms.answers = [{ action: "accept", content: { name: "Ada" } }];
    const task = await callAsTask(client, "ask", {});
    const waiting = await pollTask(client, task.taskId, (t) => t.status !== "working");
    expect(waiting).toMatchObject({ status: "input_required", statusMessage: "Your name?" });
    const result = await taskResult(client, task.taskId);
    expect(forms.asked).toHaveLength(1);
    expect(forms.asked[0]!._meta?.[RELATED_TASK_META_KEY]).toEqual({ taskId: task.taskId });
    expect(result.structuredContent).toMatchObject({ status: "success", runId: task.taskId, output: { runId: task.taskId, first: { name: "Ada" } } });
  });

  it("MCP-14 an approval makes the task input_required; approve runs the unsafe effect once on the same run", async () => {
    const file = join(tmp, "charges.txt");
    forms.asked.length = 0;
    forms.answers = [{ action: "accept", content: { decision: "approve" } }];
    const task = await callAsTask(client, "charge", { file });
    expect((await pollTask(client, task.taskId, (t) => t.status !== "working")).status).toBe("input_required");
    expect(await effectLines(file)).toEqual([]);
    const result = await taskResult(client, task.taskId);
    expect(forms.asked[0]!.message).toContain("charge_card");
    expect(result.structuredContent).toMatchObject({ status: "success", output: { charged: true, runId: task.taskId } });
    expect((await effectLines(file)).map((line) => line.split(" ").slice(0, 2).join(" "))).toEqual([`charged ${task.taskId}`]);
  });

  it("MCP-13 MCP-14 the connection that starts a task hears each change as notifications/tasks/status: input_required, working once answered, completed", async () => {
    const heard: Task[] = [];
    client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => void heard.push(notification.params));
    forms.answers = [{ action: "accept", content: { name: "Grace" } }];
    const task = await callAsTask(client, "ask", {});
    await pollTask(client, task.taskId, (t) => t.status === "input_required");
    const result = await taskResult(client, task.taskId);
    expect(result.structuredContent).toMatchObject({ status: "success", output: { first: { name: "Grace" } } });
    // The last one may still be on its way on the standalone stream when tasks/result answers.
    const end = Date.now() + 10_000;
    while (!heard.some((t) => t.status === "completed") && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 50));
    const mine = heard.filter((t) => t.taskId === task.taskId);
    expect(mine.map((t) => t.status)).toEqual(["input_required", "working", "completed"]);
    expect(mine[0]).toMatchObject({ statusMessage: "Your name?", ttl: 60_000, pollInterval: 1000 });
    // What a notification says is what tasks/get says.
    expect(await getTask(client, task.taskId)).toEqual(mine[2]);
  });

  it("MCP-13 a cancelled task's connection hears cancelled once, and nothing after", async () => {
    const heard: Task[] = [];
    client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => void heard.push(notification.params));
    const file = join(tmp, "hold-notified.txt");
    const task = await callAsTask(client, "hold", { file });
    await waitForLine(file, `started ${task.taskId}`);
    await client.request({ method: "tasks/cancel", params: { taskId: task.taskId } }, CancelTaskResultSchema);
    const end = Date.now() + 10_000;
    while (!heard.some((t) => t.taskId === task.taskId) && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(heard.filter((t) => t.taskId === task.taskId).map((t) => t.status)).toEqual(["cancelled"]);
  });

  it("MCP-14 declining the form ends the task failed, with nothing approved", async () => {
    const file = join(tmp, "declined.txt");
    forms.answers = [{ action: "decline" }];
    const task = await callAsTask(client, "charge", { file });
    await pollTask(client, task.taskId, (t) => t.status === "input_required");
    const result = await taskResult(client, task.taskId);
    expect(result.isError).toBe(true);
    expect((await getTask(client, task.taskId)).status).toBe("failed");
    expect(await effectLines(file)).toEqual([]);
  });
});

describe("UI-7 who answered a task's form is recorded in the run's session", () => {
  it("UI-7 an agent's approval answered in the tasks/result form over HTTP with an API key is recorded with the key's tenant and subject when the task runs again", async () => {
    const project = await writeApprovingProject(join(tmp, "ui7"));
    const data = join(tmp, "ui7-data");
    const keys = ["--store", join(tmp, "ui7-keys")];
    const secret = await addTenantKey(keys, "acme");
    const host = await startHttpMcp(project, ["--keys", ...keys, "--data-dir", data, "--workers", "1"]);
    const keyed = await connectHttp(host.url, { capabilities: { elicitation: { form: {} } }, transport: { requestInit: { headers: { authorization: `Bearer ${secret}` } } } });
    try {
      const keyedForms = scriptForms(keyed);
      const task = await callAsTask(keyed, "mail", {});
      await pollTask(keyed, task.taskId, (t) => t.status === "input_required");
      const answeredAfter = Date.now();
      keyedForms.answers = [{ action: "accept", content: { decision: "approve" } }];
      expect((await taskResult(keyed, task.taskId)).structuredContent).toMatchObject({ status: "success", runId: task.taskId, output: { answer: "sent" } });
      expect(keyedForms.asked.map((form) => form.message)).toEqual([expect.stringContaining("send_mail")]);
      const decisions = await decisionsOf([project, data], task.taskId);
      expect(decisions).toEqual([expect.objectContaining({ outcome: "approved", answeredBy: { surface: "mcp-http", tenant: "key:acme", subject: expect.any(String), at: expect.any(Number) } })]);
      expect(decisions[0]!.answeredBy!.at).toBeGreaterThanOrEqual(answeredAfter);
      expect(JSON.stringify(decisions)).not.toContain(secret);
    } finally {
      await keyed.close();
      await host.stop();
    }
  });
});
