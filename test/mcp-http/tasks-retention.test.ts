// SES-12 over MCP tasks: a task's agent sessions (the task id is the run id, the run its agents'
// conversation) go with the task once its TTL ran out — also a task left waiting for input, whose
// pause nobody can answer any more — while a waiting task inside its TTL keeps them and resumes
// exactly. A real `steamharness mcp --http` process, the SDK's client, real session files.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { tempDir, waitFor } from "../cli/helpers.js";
import { writeTickingProject, type TickingProject } from "../fixtures/ticking-project.js";
import { connectHttp, startHttpMcp, type HttpMcpServer } from "./helpers.js";
import { closeMcpHttp } from "../fixtures/mcp-http-host.js";
import { callAsTask, pollTask, scriptForms, taskResult } from "./task-helpers.js";

jest.setTimeout(180_000);

let tmp: string;
let ticking: TickingProject;
let server: HttpMcpServer;
let client: Client;
let forms: ReturnType<typeof scriptForms>;
const sessionsOf = (runId: string) => ticking.sessionsOf(runId);

beforeAll(async () => {
  tmp = await tempDir("sh-ses12-tasks-");
  ticking = await writeTickingProject(tmp, "6c2f3d4e-5a6b-4c7d-9e8f-0a1b2c3d4e5f");
  server = await startHttpMcp(ticking.dir, ["--data-dir", join(tmp, "data"), "--workers", "1"]);
  client = await connectHttp(server.url, { capabilities: { elicitation: { form: {} } } });
  forms = scriptForms(client);
}, 120_000);
afterAll(() => closeMcpHttp(tmp, [client], [server]));

describe("SES-12 MCP tasks: agent sessions go with the task after its TTL", () => {
  it("SES-12 a task waiting for input keeps its sessions within its TTL and resumes exactly; past its TTL a later run removes them", async () => {
    // Inside its TTL: another task's end prunes nothing of it, and the answer resumes it exactly.
    const waiting = await callAsTask(client, "pause", {}, 60_000);
    await pollTask(client, waiting.taskId, (task) => task.status === "input_required");
    const other = await callAsTask(client, "finish", {}, 60_000);
    expect((await taskResult(client, other.taskId)).structuredContent).toMatchObject({ status: "success" });
    expect([sessionsOf(waiting.taskId), sessionsOf(other.taskId)]).toEqual([true, true]);
    const before = ticking.done();
    forms.answers = [{ action: "accept", content: { approve: true } }];
    expect((await taskResult(client, waiting.taskId)).structuredContent).toMatchObject({ status: "success", output: { answer: "done", toolCalls: 2 } });
    expect(ticking.done()).toEqual([before[0], before[1] + 1]);

    // A task left waiting past its TTL: nobody can answer it any more, its sessions go.
    const abandoned = await callAsTask(client, "pause", {}, 1000);
    await pollTask(client, abandoned.taskId, (task) => task.status === "input_required");
    expect(sessionsOf(abandoned.taskId)).toBe(true);
    // And a finished task with a short TTL: its sessions go with its result. (Whether its own end
    // already removed the abandoned task's depends on how long it ran; not asserted.)
    const short = await callAsTask(client, "finish", {}, 1000);
    await taskResult(client, short.taskId);
    expect(sessionsOf(short.taskId)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const next = await callAsTask(client, "finish", {}, 60_000);
    await taskResult(client, next.taskId);
    // The host prunes after the run's report, in the background: wait for it (bounded).
    await waitFor(() => !sessionsOf(abandoned.taskId) && !sessionsOf(short.taskId), 20_000);
    expect([sessionsOf(abandoned.taskId), sessionsOf(short.taskId), sessionsOf(next.taskId), sessionsOf(waiting.taskId)]).toEqual([false, false, true, true]);
  });
});
