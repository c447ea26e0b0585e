// Issue 47 item 4 (GOV-1, GOV-4): every surface that answers a governed approval records its
// answerer through the governed decide(). Real `steamharness run`/`answer`/`mcp`/`audit` processes
// on one data dir, `--approval-policy` governing the runs' approvals.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { cleanup, KITCHEN, runCli, startMcp, tempDir } from "../cli/helpers.js";

let tmp: string;
let policy: string;
const flags = (data: string) => ["--data-dir", data, "--approval-policy", policy];

interface AuditLine {
  tenant: string;
  kind: string;
  requestId: string | null;
  data: Record<string, unknown>;
}

/** The audit chain of the data dir's approval store (`audit export`, and `audit verify` beside it). */
async function auditOf(data: string): Promise<AuditLine[]> {
  // Both read the finished chain: run side by side (ARCH-12).
  const [exported, verified] = await Promise.all([runCli(["audit", "export", "--store", join(data, "values")]), runCli(["audit", "verify", "--store", join(data, "values")])]);
  expect([exported.code, exported.stderr]).toEqual([0, ""]);
  expect(verified.code).toBe(0);
  return exported.stdout.trim().split("\n").map((line) => JSON.parse(line) as AuditLine);
}

beforeAll(async () => {
  tmp = await tempDir("sh-gov-surfaces-");
  policy = join(tmp, "policy.json");
  await writeFile(policy, JSON.stringify({ default: "ask", rules: [] }));
});
afterAll(async () => {
  await cleanup(tmp);
});

describe("issue 47: the surfaces answer through the governed decide()", () => {
  it("GOV-1 GOV-7 `steamharness answer --approve` / `--deny` is recorded as decided at the cli, then used once, in the audit chain", async () => {
    const data = join(tmp, "cli");
    const outcomes: string[] = [];
    for (const answer of [["--approve"], ["--deny", "not today"]]) {
      const started = await runCli(["run", KITCHEN, "approve", "--json", ...flags(data)]);
      expect([started.code, started.stderr]).toEqual([3, expect.any(String)]);
      const paused = JSON.parse(started.stdout) as { runId: string; pending: { requestId: string } };
      const done = await runCli(["answer", KITCHEN, paused.runId, paused.pending.requestId, ...answer, "--json", ...flags(data)]);
      expect([done.code, done.stderr]).toEqual([0, expect.any(String)]);
      outcomes.push((JSON.parse(done.stdout) as { result: { data: { output: { decision: string } } } }).result.data.output.decision);
    }
    expect(outcomes).toEqual(["approved", "denied"]);
    const chain = await auditOf(data);
    expect(chain.map((entry) => entry.kind)).toEqual(["request", "decision", "use", "request", "decision"]);
    const decisions = chain.filter((entry) => entry.kind === "decision").map((entry) => entry.data);
    expect(decisions).toEqual([
      expect.objectContaining({ outcome: "approved", approver: { surface: "cli" }, reason: null }),
      expect.objectContaining({ outcome: "denied", approver: { surface: "cli" }, reason: "not today" }),
    ]);
    expect(chain.every((entry) => entry.tenant === "local")).toBe(true);
  }, 240_000);

  it("GOV-1 a paused MCP call answered with _meta[\"steamharness/answer\"] is recorded as decided over mcp", async () => {
    const data = join(tmp, "mcp");
    // One server for the call and its answer (ARCH-12: one process start, not two); the answer is
    // a new tools/call naming the paused run, as from any other connection.
    const session = await startMcp(KITCHEN, [...flags(data), "--workers", "1"]);
    try {
      const call = async (meta?: Record<string, unknown>) => ((await session.client.callTool({ name: "approve", arguments: {}, ...(meta ? { _meta: meta } : {}) })) as CallToolResult).structuredContent as Record<string, unknown>;
      const paused = (await call()) as { runId: string; error: { pending: { requestId: string } } };
      const done = await call({ "steamharness/answer": { runId: paused.runId, requestId: paused.error.pending.requestId, decision: "approve" } });
      expect(done).toMatchObject({ runId: paused.runId, status: "success", output: { decision: "approved" } });
    } finally {
      await session.close();
    }
    const chain = await auditOf(data);
    expect(chain.find((entry) => entry.kind === "decision")?.data).toMatchObject({ outcome: "approved", approver: { surface: "mcp" } });
    expect(chain.map((entry) => entry.kind)).toEqual(["request", "decision", "use"]);
  }, 240_000);
});
