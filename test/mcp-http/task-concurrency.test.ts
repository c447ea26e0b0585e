// TEN-5: a key tenant's `--concurrency` holds for task-augmented tools/call on `steamharness mcp
// --http --keys`. Such a call answers at once while its run goes on: the run holds the tenant's
// slot until it ends, frees it while it waits for input, and an answer resuming it takes a slot
// again or is refused with the rate-limit error. Real processes: the CLI adding the key, the
// server (its workers), and the SDK's Streamable HTTP client.
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CancelTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { runCli, tempDir } from "../cli/helpers.js";
import { connectHttp, startHttpMcp, type HttpMcpServer } from "./helpers.js";
import { closeMcpHttp } from "../fixtures/mcp-http-host.js";
import { callAsTask, effectLines, pollTask, scriptForms, taskResult, TASKS_PROJECT } from "./task-helpers.js";

jest.setTimeout(180_000);

let tmp: string;
let server: HttpMcpServer;
let client: Client;
let forms: ReturnType<typeof scriptForms>;
const seen: number[] = [];

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-task-concurrency-");
  const store = join(tmp, "keys");
  const added = await runCli(["gateway", "keys", "add", "--tenant", "narrow", "--concurrency", "1", "--store", store]);
  expect(added.code).toBe(0);
  const secret = /^(sh_[A-Za-z0-9_-]{43})$/m.exec(added.stdout)![1]!;
  server = await startHttpMcp(TASKS_PROJECT, ["--keys", "--store", store, "--data-dir", join(tmp, "data"), "--workers", "4"]);
  const fetchSpy: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    seen.push(response.status);
    return response;
  };
  client = await connectHttp(server.url, { capabilities: { elicitation: { form: {} } }, transport: { requestInit: { headers: { authorization: `Bearer ${secret}` } }, fetch: fetchSpy } });
  forms = scriptForms(client);
}, 120_000);
afterAll(() => closeMcpHttp(tmp, [client], [server]));

const cancel = (taskId: string) => client.request({ method: "tasks/cancel", params: { taskId } }, CancelTaskResultSchema);
/** How a request ended: its value, or the message it was refused with. */
const settled = <T>(promise: Promise<T>): Promise<{ ok: boolean; value?: T; error?: string }> =>
  promise.then((value) => ({ ok: true, value }), (error: unknown) => ({ ok: false, error: String((error as Error)?.message ?? error) }));

describe("TEN-5 task-augmented calls hold their key tenant's concurrency slot", () => {
  it("TEN-5: with --concurrency 1, of 4 task-augmented calls at once exactly 1 runs and 3 are refused (429, rate_limit_exceeded); once it ended a new one is admitted", async () => {
    const file = join(tmp, "holds");
    const outcomes = await Promise.all(Array.from({ length: 4 }, () => settled(callAsTask(client, "hold", { file }))));
    const created = outcomes.filter((outcome) => outcome.ok);
    const refused = outcomes.filter((outcome) => !outcome.ok);
    expect(created).toHaveLength(1);
    expect(refused).toHaveLength(3);
    for (const outcome of refused) expect(outcome.error).toMatch(/concurrent requests[\s\S]*rate_limit_exceeded/);
    expect(seen.filter((status) => status === 429)).toHaveLength(3);
    const task = created[0]!.value!;
    // The task's run goes on after its call answered: it still holds the slot.
    for (let i = 0; i < 100 && (await effectLines(file)).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await effectLines(file)).toHaveLength(1);
    expect(String((await settled(callAsTask(client, "quick", { text: "later" }))).error)).toMatch(/concurrent requests/);
    // Its run ends (cancelled): the slot is free again.
    await cancel(task.taskId);
    let next: Awaited<ReturnType<typeof callAsTask>> | undefined;
    for (let i = 0; i < 50 && !next; i++) {
      const attempt = await settled(callAsTask(client, "quick", { text: "after" }));
      if (attempt.ok) next = attempt.value;
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(next).toBeDefined();
    expect((await taskResult(client, next!.taskId)).structuredContent).toMatchObject({ status: "success", output: { echoed: "after" } });
  });

  it("TEN-5: a task waiting for input frees its slot; the answer resuming it is refused while another run holds the slot, and resumes it once the slot is free", async () => {
    const asking = await callAsTask(client, "ask", {});
    await pollTask(client, asking.taskId, (task) => task.status === "input_required");
    // Waiting, it holds no slot: another task runs.
    const file = join(tmp, "holds-2");
    const holding = await callAsTask(client, "hold", { file });
    await pollTask(client, holding.taskId, (task) => task.status === "working");
    for (let i = 0; i < 100 && (await effectLines(file)).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    // The answer would resume a second run: refused with the rate-limit error; the task still waits.
    forms.answers.push({ action: "accept", content: { name: "Ada" } });
    const refused = await settled(taskResult(client, asking.taskId));
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatch(/concurrent requests[\s\S]*still waits for this answer/);
    expect((await pollTask(client, asking.taskId, () => true)).status).toBe("input_required");
    await cancel(holding.taskId);
    let result;
    for (let i = 0; i < 50 && !result; i++) {
      forms.answers.splice(0, forms.answers.length, { action: "accept", content: { name: "Ada" } });
      const attempt = await settled(taskResult(client, asking.taskId));
      if (attempt.ok) result = attempt.value;
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(result?.structuredContent).toMatchObject({ status: "success", output: { first: { name: "Ada" } } });
  });
});
