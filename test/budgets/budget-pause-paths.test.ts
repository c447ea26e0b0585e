// BUD-3: a run paused at its budget is approved through the real approval paths, each with real
// processes: `steamharness answer` from a fresh process (a workflow run left waiting), MCP form
// elicitation (the client's answer resumes the waiting run), and MCP's answer-later `_meta` from a
// fresh server process. After the approval the same run id goes on once: the two tool calls
// committed before the pause are not redone, the model is called once more.
import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ElicitRequestSchema, type CallToolResult, type ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { CLI_SOURCE, cleanEnv, cleanup, runCli, startMcp, tempDir } from "../cli/helpers.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";

const PROJECT_ID = "3c9d1e7a-5b2f-4c8d-9e0a-7f6b5c4d3e2a";
// Two calls fit a run budget of 220 tokens (worst case each ≈ 60 input + 100 output); the third does not.
const BUDGET = { limits: [{ scope: "run", tokens: 220 }], maxOutputTokens: 100, onLimit: "pause", extendBy: { tokens: 1000 } };

let tmp: string;
let project: string;
const ticks = () => join(tmp, "ticks");
const calls = () => join(tmp, "calls");
const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0);
const done = () => [lines(ticks()), lines(calls())];

beforeAll(async () => {
  tmp = await tempDir("sh-bud3-paths-");
  project = join(tmp, "project");
  await mkdir(project, { recursive: true });
  await writeFile(join(project, "package.json"), JSON.stringify({ name: "bud3-paths", version: "1.0.0", type: "module", id: PROJECT_ID, projectType: "workflow", main: "workflow.mjs" }));
  await writeFile(
    join(project, "workflow.mjs"),
    `import { runBudgetAgent } from ${JSON.stringify(bundledFixture("test/budgets/fixtures/budget-agent.ts"))};
export default {
  entrypoints: {
    tick: {
      title: "Tick", description: "An agent that ticks twice on a small run budget", params: [],
      run: (params, context) => runBudgetAgent(context.node, { ticks: ${JSON.stringify(ticks())}, calls: ${JSON.stringify(calls())} }, ${JSON.stringify(BUDGET)}),
    },
  },
};
`,
  );
}, 60_000);
afterAll(async () => {
  await cleanup(tmp);
});

/** Clears the tick and call counters (each test starts a new run). */
async function resetCounters(): Promise<void> {
  await writeFile(ticks(), "");
  await writeFile(calls(), "");
}

interface Report {
  runId: string;
  status: string;
  pending?: { kind: string; requestId: string; message?: string };
  result?: { data: { output: { answer: string; toolCalls: number } } };
}

describe("BUD-3 a budget pause through the real approval paths", () => {
  it("BUD-3 a workflow run paused at its budget, approved with `steamharness answer` from a fresh process, resumes the same run once", async () => {
    await resetCounters();
    const data = ["--data-dir", join(tmp, "data-cli")];
    const started = await runCli(["run", project, "tick", "--json", ...data], { argsPrefix: CLI_SOURCE });
    expect([started.code, started.stderr]).toEqual([3, expect.any(String)]);
    const paused = JSON.parse(started.stdout) as Report;
    expect(paused.pending).toMatchObject({ requestId: expect.stringMatching(/^budget:.*:run:.*:tokens$/) });
    const requestId = paused.pending!.requestId;
    expect(started.stderr).toContain(`steamharness answer ${project} ${paused.runId} ${requestId}`);
    expect(done()).toEqual([2, 2]);

    const answered = await runCli(["answer", project, paused.runId, requestId, "--value", '{"approve":true}', "--json", ...data], { argsPrefix: CLI_SOURCE });
    expect([answered.code, answered.stderr]).toEqual([0, expect.any(String)]);
    const report = JSON.parse(answered.stdout) as Report;
    expect(report).toMatchObject({ runId: paused.runId, status: "success", result: { data: { output: { answer: "done", toolCalls: 2 } } } });
    // Nothing redone: the two ticks stay two, the model was called once more.
    expect(done()).toEqual([2, 3]);

    // Once: the run ended, a second approval is refused and runs nothing.
    const again = await runCli(["answer", project, paused.runId, requestId, "--value", '{"approve":true}', ...data], { argsPrefix: CLI_SOURCE });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/no paused run/);
    expect(done()).toEqual([2, 3]);
  }, 240_000);

  it("BUD-3 over MCP the budget pause is a form elicitation; the client's approval resumes the run once", async () => {
    await resetCounters();
    const asked: ElicitRequest["params"][] = [];
    const session = await startMcp(project, ["--data-dir", join(tmp, "data-mcp")], { capabilities: { elicitation: { form: {} } }, command: CLI_SOURCE, env: cleanEnv() });
    try {
      session.client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(request.params);
        return { action: "accept", content: { approve: true } };
      });
      const result = (await session.client.callTool({ name: "tick", arguments: {} })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ status: "success", output: { answer: "done", toolCalls: 2 } });
    } finally {
      await session.close();
    }
    expect(asked).toHaveLength(1);
    expect(asked[0]!.message).toMatch(/the run budget .* is exhausted: 100 of 220 tokens spent\. Approve to extend it by 1000 tokens\./);
    expect((asked[0] as { requestedSchema?: unknown }).requestedSchema).toMatchObject({ required: ["approve"], properties: { approve: { type: "boolean" } } });
    expect(done()).toEqual([2, 3]);
  }, 240_000);

  it("BUD-3 over MCP without elicitation the pause ends interaction_required; the answer-later _meta from a fresh server process resumes the run once", async () => {
    await resetCounters();
    const data = ["--data-dir", join(tmp, "data-mcp-later")];
    const call = async (meta?: Record<string, unknown>) => {
      const session = await startMcp(project, data, { command: CLI_SOURCE, env: cleanEnv() });
      try {
        return ((await session.client.callTool({ name: "tick", arguments: {}, ...(meta ? { _meta: meta } : {}) })) as CallToolResult).structuredContent as { runId: string; status: string; output?: unknown; error?: { code: string; pending?: { requestId: string } } };
      } finally {
        await session.close();
      }
    };
    const paused = await call();
    expect(paused).toMatchObject({ status: "waiting_for_input", error: { code: "interaction_required", pending: { requestId: expect.stringMatching(/^budget:/) } } });
    expect(done()).toEqual([2, 2]);
    const resumed = await call({ "steamharness/answer": { runId: paused.runId, requestId: paused.error!.pending!.requestId, values: { approve: true } } });
    expect(resumed).toMatchObject({ runId: paused.runId, status: "success", output: { answer: "done", toolCalls: 2 } });
    expect(done()).toEqual([2, 3]);
  }, 240_000);
});
