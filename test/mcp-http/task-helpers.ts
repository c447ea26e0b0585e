// Helpers of the MCP task tests (MCP-13, MCP-14): raw task requests with the SDK's real client.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema, GetTaskResultSchema, type CallToolResult, type ElicitRequest, type ElicitResult, type Task } from "@modelcontextprotocol/sdk/types.js";
import { REPO } from "../cli/helpers.js";

/** The task fixture project. */
export const TASKS_PROJECT = join(REPO, "test/mcp-http/fixtures/tasks");

/** `tools/call` asking for a task; resolves the created task. */
export async function callAsTask(client: Client, name: string, args: Record<string, unknown>, ttl = 60_000): Promise<Task> {
  const created = await client.request({ method: "tools/call", params: { name, arguments: args, task: { ttl } } }, CreateTaskResultSchema);
  return created.task;
}

/** `tasks/get`. */
export async function getTask(client: Client, taskId: string): Promise<Task> {
  return client.request({ method: "tasks/get", params: { taskId } }, GetTaskResultSchema);
}

/** `tasks/result` (waits for a final status). */
export async function taskResult(client: Client, taskId: string): Promise<CallToolResult> {
  return client.request({ method: "tasks/result", params: { taskId } }, CallToolResultSchema, { timeout: 60_000 });
}

/** Polls `tasks/get` until `until` holds (at most `limitMs`). */
export async function pollTask(client: Client, taskId: string, until: (task: Task) => boolean, limitMs = 30_000): Promise<Task> {
  const end = Date.now() + limitMs;
  for (;;) {
    const task = await getTask(client, taskId);
    if (until(task)) return task;
    if (Date.now() > end) throw new Error(`task ${taskId} still ${task.status} after ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Answers every form with the next scripted answer and records what was asked. */
export function scriptForms(client: Client): { asked: ElicitRequest["params"][]; answers: ElicitResult[] } {
  const script = { asked: [] as ElicitRequest["params"][], answers: [] as ElicitResult[] };
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    script.asked.push(request.params);
    const answer = script.answers.shift();
    if (!answer) throw new Error("no scripted answer left");
    return answer;
  });
  return script;
}

/** The lines of an effects file (none when missing). */
export async function effectLines(file: string): Promise<string[]> {
  const text = await readFile(file, "utf8").catch(() => "");
  return text.split("\n").filter((line) => line !== "");
}

/** Waits until the effects file has a line starting with `prefix`; resolves that line. */
export async function waitForLine(file: string, prefix: string, limitMs = 30_000): Promise<string> {
  const end = Date.now() + limitMs;
  for (;;) {
    const line = (await effectLines(file)).find((entry) => entry.startsWith(prefix));
    if (line) return line;
    if (Date.now() > end) throw new Error(`no "${prefix}" line in ${file} after ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Whether a process is alive (the CLI helpers' check). */
export { alive } from "../cli/helpers.js";
