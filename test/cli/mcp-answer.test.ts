// DX-10 over MCP: a call that ends `interaction_required` (a client without form elicitation) is
// answered later from outside — another server process, another connection — by calling the
// same tool again with `_meta["steamharness/answer"]`; the run goes on under its run id and
// completes once. Real `steamharness mcp` processes and the SDK's stdio client.
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { decisionsOf, writeApprovingProject } from "../fixtures/approving-project.js";
import { cleanup, KITCHEN, startMcp, tempDir } from "./helpers.js";

jest.setTimeout(120_000);

let tmp: string;
// One call per server process: one worker is all it uses (the default pool would start a second).
const dataFlags = () => ["--data-dir", join(tmp, "data"), "--workers", "1"];

interface Structured {
  runId: string;
  status: string;
  output?: Record<string, unknown>;
  error?: { code: string; message: string; pending?: { kind: string; requestId: string }; answerLater?: { tool: string; _meta: Record<string, unknown> } };
}

/** `use` on one fresh `steamharness mcp` process (no elicitation), which is closed afterwards. */
async function onFreshServer<T>(use: (client: Client) => Promise<T>, project = KITCHEN): Promise<T> {
  const session = await startMcp(project, dataFlags());
  try {
    return await use(session.client);
  } finally {
    await session.close();
  }
}

const call = async (client: Client, name: string, meta?: Record<string, unknown>): Promise<Structured> =>
  ((await client.callTool({ name, arguments: {}, ...(meta ? { _meta: meta } : {}) })) as CallToolResult).structuredContent as unknown as Structured;

/** A call that the server refuses (JSON-RPC error): its message. */
const refused = (client: Client, name: string, meta: Record<string, unknown>): Promise<string> =>
  client.callTool({ name, arguments: {}, _meta: meta }).then(
    () => "not refused",
    (error: Error) => error.message,
  );

/** One call on a fresh server process. */
const callOnce = (name: string, meta?: Record<string, unknown>) => onFreshServer((client) => call(client, name, meta));

const answer = (body: Record<string, unknown>) => ({ "steamharness/answer": body });

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-answer-");
});
afterAll(async () => {
  await cleanup(tmp);
});

describe("DX-10 a paused MCP run answered later from another process", () => {
  it("DX-10 input requests answered one by one from fresh server processes; the run completes once under its run id", async () => {
    const first = await callOnce("ask_twice");
    expect(first).toMatchObject({ status: "waiting_for_input", error: { code: "interaction_required", pending: { kind: "input", requestId: "input-1" } } });
    expect(first.error!.answerLater).toEqual({ tool: "ask_twice", _meta: answer({ runId: first.runId, requestId: "input-1", values: "{ <field>: <value> }" }) });

    const second = await callOnce("ask_twice", answer({ runId: first.runId, requestId: "input-1", values: { answer: "blue" } }));
    expect(second).toMatchObject({ runId: first.runId, status: "waiting_for_input", error: { code: "interaction_required", pending: { requestId: "input-2" } } });

    // An answer that does not fit the form fails the call, and a stale request id is refused (both on
    // one server process, ARCH-12); the run still waits for the same request.
    await onFreshServer(async (client) => {
      const misfit = await call(client, "ask_twice", answer({ runId: first.runId, requestId: "input-2", values: { size: "xl" } }));
      expect(misfit).toMatchObject({ status: "failed", error: { code: "input_validation", message: expect.stringMatching(/size must be one of "s", "m", "l"/) } });
      expect(await refused(client, "ask_twice", answer({ runId: first.runId, requestId: "input-1", values: { answer: "red" } }))).toContain(`run ${first.runId} waits for input input-2, not input-1`);
    });

    const done = await callOnce("ask_twice", answer({ runId: first.runId, requestId: "input-2", values: { size: "m", count: 2 } }));
    expect(done).toMatchObject({ runId: first.runId, status: "success", output: { runId: first.runId, first: { answer: "blue" }, second: { size: "m", count: 2 } } });

    // Completed once: the run is forgotten, answering it again (from another process) is refused.
    expect(await onFreshServer((client) => refused(client, "ask_twice", answer({ runId: first.runId, requestId: "input-2", values: { size: "s" } })))).toMatch(/-32602.*no paused run/);
  });

  // The two runs pause on one server process and both answers come from another (ARCH-12: two
  // processes instead of four): each answer still reaches a process that never saw its run.
  it("DX-10 an approval answered later with decision approve or deny", async () => {
    const cases = [["approve", { decision: "approved", sent: true }], ["deny", { decision: "denied", sent: false }]] as const;
    const pauses = await onFreshServer(async (client) => [await call(client, "approve"), await call(client, "approve")]);
    expect(new Set(pauses.map((paused) => paused.runId)).size).toBe(2);
    for (const paused of pauses) {
      expect(paused.error).toMatchObject({ code: "interaction_required", pending: { kind: "approval" } });
      expect(paused.error!.answerLater!._meta).toEqual(answer({ runId: paused.runId, requestId: paused.error!.pending!.requestId, decision: "approve | deny" }));
    }
    await onFreshServer(async (client) => {
      for (const [index, [decision, expected]] of cases.entries()) {
        const paused = pauses[index]!;
        const done = await call(client, "approve", answer({ runId: paused.runId, requestId: paused.error!.pending!.requestId, decision }));
        expect(done).toMatchObject({ runId: paused.runId, status: "success", output: expected });
      }
    });
  });

  it("UI-7 an agent's approval answered later over stdio is recorded in the run's session as answered by mcp", async () => {
    const project = await writeApprovingProject(join(tmp, "ui7"));
    const cases = [["approve", "approved", "sent"], ["deny", "denied", "not sent"]] as const;
    // As above: both runs pause on one process, both answers come from another (ARCH-12).
    const pauses = await onFreshServer(async (client) => [await call(client, "mail"), await call(client, "mail")], project);
    expect(new Set(pauses.map((paused) => paused.runId)).size).toBe(2);
    for (const paused of pauses) expect(paused.error).toMatchObject({ code: "interaction_required", pending: { kind: "approval" } });
    const done = await onFreshServer(async (client) => {
      const answered: Structured[] = [];
      for (const [index, [decision]] of cases.entries()) answered.push(await call(client, "mail", answer({ runId: pauses[index]!.runId, requestId: pauses[index]!.error!.pending!.requestId, decision })));
      return answered;
    }, project);
    for (const [index, [, outcome, reply]] of cases.entries()) {
      const { runId, error } = pauses[index]!;
      expect(done[index]).toMatchObject({ runId, status: "success", output: { answer: reply } });
      expect(await decisionsOf([project, tmp], runId)).toEqual([expect.objectContaining({ requestId: error!.pending!.requestId, outcome, answeredBy: { surface: "mcp", at: expect.any(Number) } })]);
    }
  });

  it("DX-10 a malformed answer, the wrong kind of answer, or another tool is InvalidParams", async () => {
    const paused = await callOnce("approve");
    const requestId = paused.error!.pending!.requestId;
    // The refusals and the answer after them share one server process (another than the pause's; ARCH-12).
    await onFreshServer(async (client) => {
      expect(await refused(client, "approve", answer({ runId: paused.runId, requestId, decision: "yes" }))).toMatch(/-32602.*decision: "approve" \| "deny"/);
      expect(await refused(client, "approve", answer({ runId: paused.runId, requestId, values: { ok: true } }))).toContain("is an approval");
      expect(await refused(client, "ask_twice", answer({ runId: paused.runId, requestId, decision: "approve" }))).toContain(`run ${paused.runId} is a run of tool approve`);
      // Still paused after the refusals: the right answer goes through.
      expect(await call(client, "approve", answer({ runId: paused.runId, requestId, decision: "approve" }))).toMatchObject({ status: "success", output: { sent: true } });
    });
  });
});
