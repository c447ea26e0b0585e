import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Task } from "@modelcontextprotocol/sdk/types.js";
import { cleanup, REPO, tempDir, writeProject } from "../cli/helpers.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";
import { describePostgres } from "../fixtures/postgres.js";
import { connectHttp, startHttpMcp, type HttpMcpServer } from "./helpers.js";
import { alive, callAsTask, effectLines, getTask, pollTask, scriptForms, taskResult, waitForLine } from "./task-helpers.js";

// MCP-13 takeover: three real `steamharness mcp --http` processes serving one project (so one
// `.workflow/agents` session folder) with their own data dirs, sharing a PostgreSQL task store.
// The owner is SIGKILLed while its agent node waits inside a tool, after a committed tool result.
jest.setTimeout(240_000);

const LEASE_MS = 1500;
const FIXTURE = join(REPO, "test/mcp-http/fixtures/resume");

describePostgres("MCP-13 a dead owner's task is taken over by another host", (database) => {
  let tmp: string;
  let project: string;
  const hosts: Record<string, HttpMcpServer> = {};
  const clients: Record<string, Client> = {};
  const forms: Record<string, ReturnType<typeof scriptForms>> = {};
  const strays: number[] = [];
  const start = async (name: string) => {
    const shared = ["--postgres", database.url, "--postgres-schema", database.schema, "--task-lease-ms", String(LEASE_MS), "--workers", "1"];
    hosts[name] = await startHttpMcp(project, ["--data-dir", join(tmp, `data-${name}`), ...shared]);
    clients[name] = await connectHttp(hosts[name]!.url, { capabilities: { elicitation: { form: {} } } });
    forms[name] = scriptForms(clients[name]!);
  };

  beforeAll(async () => {
    tmp = await tempDir("sh-mcp-takeover-");
    // The fixture imports the library's sources; its bundle (test/fixtures/bundled-fixture.ts) is
    // plain JavaScript, so the three hosts run the built CLI and its workers, without tsx.
    project = await writeProject(join(tmp, "project"), {
      "package.json": readFileSync(join(FIXTURE, "package.json"), "utf8"),
      "workflow.mjs": `export { default } from ${JSON.stringify(pathToFileURL(bundledFixture(join(FIXTURE, "workflow.mjs"))).href)};\n`,
    });
    await Promise.all([start("a"), start("b"), start("c")]);
  }, 180_000);
  afterAll(async () => {
    for (const client of Object.values(clients)) await client.close().catch(() => undefined);
    await Promise.all(Object.values(hosts).map((host) => host.stop()));
    for (const pid of strays) if (alive(pid)) process.kill(pid, "SIGKILL");
    await cleanup(tmp);
  });

  /** Starts `entrypoint` as a task on `owner` and waits until its agent is inside `hold` (its owner is then killed: `kill`). */
  async function holdMidTask(owner: string, entrypoint: string, file: string, note?: string): Promise<{ task: Task; workerPid: number }> {
    const task = await callAsTask(clients[owner]!, entrypoint, { file });
    if (note !== undefined) {
      // Answered on the owner, which then runs the task again with the answer and holds.
      await pollTask(clients[owner]!, task.taskId, (t) => t.status === "input_required");
      forms[owner]!.answers = [{ action: "accept", content: { note } }];
      void taskResult(clients[owner]!, task.taskId).catch(() => undefined);
    }
    const workerPid = Number((await waitForLine(file, "hold ")).split(" ")[2]);
    strays.push(workerPid);
    // Committed before the kill: two model responses and the charge's result.
    expect((await effectLines(file)).map((line) => line.split(" ")[0])).toEqual(["model", "charge_card", "model", "hold"]);
    await clients[owner]!.close().catch(() => undefined);
    return { task, workerPid };
  }
  /** SIGKILLs the owners at the same moment; returns when (ms since the epoch). */
  const kill = (...owners: string[]): number => {
    for (const owner of owners) hosts[owner]!.child.kill("SIGKILL");
    return Date.now();
  };

  it("MCP-13 an entrypoint not declared resumable: another host reports the task failed with the reason, the charge not repeated", async () => {
    const file = join(tmp, "effects-plain.txt");
    const { task } = await holdMidTask("a", "agent_charge_plain", file);
    const killedAt = kill("a");
    const failed = await pollTask(clients.b!, task.taskId, (t) => t.status !== "working", 30_000);
    expect(Date.now() - killedAt).toBeLessThan(LEASE_MS + 5000);
    expect(failed.status).toBe("failed");
    expect(failed.statusMessage).toMatch(/stopped renewing its lease.*agent_charge_plain is not declared resumable/);
    expect((await taskResult(clients.c!, task.taskId)).isError).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS));
    expect((await effectLines(file)).filter((line) => line.startsWith("charge_card"))).toHaveLength(1);
    expect((await effectLines(file)).filter((line) => line.startsWith("model"))).toHaveLength(2);
  });

  // ARCH-12: the next two cases share one setup — owners A2 and A3 each hold their own task
  // (A3's answered first), then both are SIGKILLed at the same moment, so B and C are the only
  // live hosts when the leases lapse (were A3 still alive, it could claim A2's task) and both
  // takeovers happen in one lease wait instead of one after the other.
  describe("two owners killed at once", () => {
    let resumable: Awaited<ReturnType<typeof holdMidTask>>;
    let answered: Awaited<ReturnType<typeof holdMidTask>>;
    let killedAt: number;
    const resumableFile = () => join(tmp, "effects-resume.txt");
    beforeAll(async () => {
      await Promise.all([start("a2"), start("a3")]);
      [resumable, answered] = await Promise.all([holdMidTask("a2", "agent_charge", resumableFile()), holdMidTask("a3", "ask_then_charge", join(tmp, "effects-answered.txt"), "for the bank")]);
      killedAt = kill("a2", "a3");
    }, 180_000);

    it("MCP-13 a resumable entrypoint: one of two hosts claims the task, resumes it on the same runId and completes it; committed work not redone", async () => {
      const { task, workerPid } = resumable;
      const file = resumableFile();
      // B and C poll at once: both find the dead owner, one claim lands.
      const resumed = (t: Task) => t.status !== "working" || /resumed it/.test(t.statusMessage ?? "");
      const [seenB, seenC] = await Promise.all([pollTask(clients.b!, task.taskId, resumed, 30_000), pollTask(clients.c!, task.taskId, resumed, 30_000)]);
      expect(Date.now() - killedAt).toBeLessThan(LEASE_MS + 5000);
      expect([seenB.status, seenC.status]).not.toContain("failed");
      const claimers = ["b", "c"].filter((name) => hosts[name]!.stderr().includes(`task ${task.taskId}: the host running this task`));
      expect(claimers).toHaveLength(1);
      const result = await taskResult(clients[claimers[0] === "b" ? "c" : "b"]!, task.taskId);
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ status: "success", runId: task.taskId, output: { runId: task.taskId, answer: "Charged once; the wait was cut short." } });
      expect((await getTask(clients.b!, task.taskId)).status).toBe("completed");
      const lines = await effectLines(file);
      // The charge ran once (before the kill); the interrupted `hold` (replay "never") was not run
      // again; the model was asked each step once: steps 0 and 1 on A2's worker, step 2 elsewhere.
      expect(lines.filter((line) => line.startsWith("charge_card"))).toEqual([expect.stringMatching(new RegExp(` ${workerPid}$`))]);
      expect(lines.filter((line) => line.startsWith("hold"))).toHaveLength(1);
      const models = lines.filter((line) => line.startsWith("model"));
      expect(models.map((line) => line.split(" ")[1])).toEqual(["0", "1", "2"]);
      expect(models.slice(0, 2).every((line) => line.endsWith(` ${workerPid}`))).toBe(true);
      expect(models[2]!.endsWith(` ${workerPid}`)).toBe(false);
    });

    it("MCP-13 MCP-14 a resumable task answered before its owner died is resumed with the answer kept: nothing asked again", async () => {
      const { task, workerPid } = answered;
      const result = await taskResult(clients.c!, task.taskId);
      expect(result.structuredContent).toMatchObject({ status: "success", runId: task.taskId, output: { note: "for the bank", answer: "Charged once; the wait was cut short." } });
      expect(forms.a3!.asked).toHaveLength(1);
      expect([forms.b!.asked, forms.c!.asked]).toEqual([[], []]);
      const lines = await effectLines(join(tmp, "effects-answered.txt"));
      expect(lines.filter((line) => line.startsWith("charge_card"))).toEqual([expect.stringMatching(new RegExp(` ${workerPid}$`))]);
      expect(lines.filter((line) => line.startsWith("model")).map((line) => line.split(" ")[1])).toEqual(["0", "1", "2"]);
    });
  });
});
