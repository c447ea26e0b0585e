// DX-10: a run that `run` left waiting (exit code 3, no terminal) is answered later from a fresh
// process with `steamharness answer <dir> <run-id> <request-id> …`, and goes on under its run id.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { join } from "node:path";
import { decisionsOf, writeApprovingProject } from "../fixtures/approving-project.js";
import { cleanup, KITCHEN, runCli, tempDir } from "./helpers.js";

let data: string;
const dataFlags = () => ["--data-dir", data];

interface Report {
  runId: string;
  status: string;
  pending?: { kind: string; requestId: string };
  result: { data: { output: Record<string, unknown> } };
}

beforeAll(async () => {
  data = await tempDir("sh-dx10-");
});

afterAll(async () => {
  await cleanup(data);
});

describe("DX-10 steamharness answer", () => {
  it("DX-10 answers a paused run's questions one by one from fresh processes; the run goes on under its run id", async () => {
    const started = await runCli(["run", KITCHEN, "ask_twice", "--json", ...dataFlags()]);
    expect(started.code).toBe(3);
    const first = JSON.parse(started.stdout) as Report;
    expect(first.pending).toMatchObject({ kind: "input", requestId: "input-1" });
    expect(started.stderr).toContain(`steamharness answer ${KITCHEN} ${first.runId} input-1 --value '{"answer": …}'`);

    const second = await runCli(["answer", KITCHEN, first.runId, "input-1", "--value", '{"answer":"blue"}', "--json", ...dataFlags()]);
    expect(second.code).toBe(3);
    expect(JSON.parse(second.stdout)).toMatchObject({ runId: first.runId, status: "waiting_for_input", pending: { requestId: "input-2" } });

    // An answer that does not fit the form is refused; the run still waits for the same request.
    const misfit = await runCli(["answer", KITCHEN, first.runId, "input-2", "--value", '{"size":"xl"}', ...dataFlags()]);
    expect(misfit.code).toBe(2);
    expect(misfit.stderr).toMatch(/size must be one of "s", "m", "l"/);
    const stale = await runCli(["answer", KITCHEN, first.runId, "input-1", "--value", '{"answer":"red"}', ...dataFlags()]);
    expect(stale.code).toBe(2);
    expect(stale.stderr).toContain(`run ${first.runId} waits for input input-2, not input-1`);

    const done = await runCli(["answer", KITCHEN, first.runId, "input-2", "--value", '{"size":"m","count":2}', "--json", ...dataFlags()]);
    expect(done.code).toBe(0);
    const report = JSON.parse(done.stdout) as Report;
    expect(report).toMatchObject({ runId: first.runId, status: "success" });
    expect(report.result.data.output).toMatchObject({ runId: first.runId, first: { answer: "blue" }, second: { size: "m", count: 2 } });

    // A run that ended is forgotten: answering it again is refused.
    const again = await runCli(["answer", KITCHEN, first.runId, "input-2", "--value", '{"size":"s"}', ...dataFlags()]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/^steamharness: no paused run /);
  }, 240_000);

  it("DX-10 approves or denies a paused approval; the wrong kind of answer is a usage error", async () => {
    const decide = async (answer: string[]) => {
      const started = await runCli(["run", KITCHEN, "approve", "--json", ...dataFlags()]);
      expect(started.code).toBe(3);
      const paused = JSON.parse(started.stdout) as Report;
      expect(paused.pending).toMatchObject({ kind: "approval", requestId: `approval:${paused.runId}` });
      const wrong = await runCli(["answer", KITCHEN, paused.runId, paused.pending!.requestId, "--value", "{}", ...dataFlags()]);
      expect([wrong.code, wrong.stderr]).toEqual([2, expect.stringContaining("is an approval: answer it with --approve or --deny")]);
      const answered = await runCli(["answer", KITCHEN, paused.runId, paused.pending!.requestId, ...answer, "--json", ...dataFlags()]);
      expect(answered.code).toBe(0);
      return (JSON.parse(answered.stdout) as Report).result.data.output;
    };
    expect(await decide(["--approve"])).toEqual({ decision: "approved", sent: true });
    expect(await decide(["--deny", "not today"])).toEqual({ decision: "denied", sent: false });
  }, 240_000);

  it("UI-7 an agent's approval and question answered with `steamharness answer` (the built CLI when dist is fresh) are recorded in the run's session as answered at the cli", async () => {
    const project = await writeApprovingProject(join(data, "ui7"));
    for (const [answer, outcome, reply] of [[["--approve"], "approved", "sent"], [["--deny", "not today"], "denied", "not sent"]] as const) {
      const started = await runCli(["run", project, "mail", "--json", ...dataFlags()]);
      expect(started.code).toBe(3);
      const paused = JSON.parse(started.stdout) as Report;
      expect(paused.pending).toMatchObject({ kind: "approval" });
      const before = Date.now();
      const answered = await runCli(["answer", project, paused.runId, paused.pending!.requestId, ...answer, "--json", ...dataFlags()]);
      expect([answered.code, JSON.parse(answered.stdout).result.data.output]).toEqual([0, { answer: reply }]);
      expect(await decisionsOf([project, data], paused.runId)).toEqual([
        expect.objectContaining({ requestId: paused.pending!.requestId, outcome, answeredBy: { surface: "cli", at: expect.any(Number) } }),
      ]);
      const [decision] = await decisionsOf([project, data], paused.runId);
      expect(decision!.answeredBy!.at).toBeGreaterThanOrEqual(before);
    }
    // A question (ask_user): the form's values answered with --value, recorded alike.
    const asked = await runCli(["run", project, "ask", "--json", ...dataFlags()]);
    const question = JSON.parse(asked.stdout) as Report;
    expect([asked.code, question.pending?.kind]).toEqual([3, "input"]);
    const answered = await runCli(["answer", project, question.runId, question.pending!.requestId, "--value", '{"answer":"blue"}', "--json", ...dataFlags()]);
    expect([answered.code, JSON.parse(answered.stdout).result.data.output]).toEqual([0, { answer: expect.stringContaining("blue") }]);
    expect(await decisionsOf([project, data], question.runId)).toEqual([expect.objectContaining({ outcome: "answered", values: { answer: "blue" }, answeredBy: { surface: "cli", at: expect.any(Number) } })]);
  }, 240_000);

  it("DX-10 an unknown run id is refused with one line (exit 2)", async () => {
    const result = await runCli(["answer", KITCHEN, "20260101-000000000000", "input-1", "--value", "{}", ...dataFlags()]);
    expect(result.code).toBe(2);
    expect(result.stderr.split("\n").filter(Boolean)).toEqual([expect.stringMatching(/^steamharness: no paused run 20260101-000000000000 /)]);
  });
});
