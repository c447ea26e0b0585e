import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "@jest/globals";
import { checkSession } from "./support/checks.js";
import { childBundle, decisionFor, runChild, type ChildOutcome } from "./support/processes.js";

// SES-8 across processes: each process runs until the run pauses and exits (a host that went
// away); a new process resumes the original runId holding only the saved decision.
const lines = (file: string): string[] => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : []);
const onlyPause = (outcome: ChildOutcome) => {
  expect(outcome.code).toBe(0);
  expect(outcome.done).toBeNull();
  expect(outcome.pauses).toHaveLength(1);
  return outcome.pauses[0]!;
};

describe("SES-8 pause and resume across processes", () => {
  const root = mkdtempSync(join(tmpdir(), "durable-pause-"));
  beforeAll(async () => {
    await childBundle();
  }, 60_000);

  it("SES-8 a tool approval and an ask_user question are resumed by new processes with the decision", async () => {
    const dir = join(root, "approval");
    const base = { dir, scenario: "build", runId: "run-a", onPause: "exit" as const };
    const approval = onlyPause(await runChild(base));
    expect(approval).toMatchObject({ kind: "tool_approval", toolCallId: "c-deploy" });
    expect(lines(join(dir, "effects.log"))).toEqual(["c-append-1"]);

    const question = onlyPause(await runChild({ ...base, decisions: [decisionFor("build", approval)] }));
    expect(question).toMatchObject({ kind: "question", toolCallId: "c-ask" });
    expect(lines(join(dir, "effects.log"))).toEqual(["c-append-1", "c-deploy"]);

    const last = await runChild({ ...base, decisions: [decisionFor("build", question)] });
    expect(last.done?.status).toBe("completed");
    const answered = last.messages.find((message) => message.type === "model" && message.toolResults.some((result) => result.toolCallId === "c-ask"));
    expect(answered?.type === "model" && answered.toolResults.find((result) => result.toolCallId === "c-ask")).toMatchObject({ isError: false, text: "blue" });
    expect(lines(join(dir, "effects.log"))).toEqual(["c-append-1", "c-deploy", "c-append-2"]);
    expect((await checkSession(dir, "build", last.messages, last.done!.items)).violations).toEqual([]);
  }, 90_000);

  it("SES-8 a plan decision is resumed by a new process and the run continues building", async () => {
    const dir = join(root, "plan");
    const base = { dir, scenario: "plan", runId: "run-p", onPause: "exit" as const };
    const plan = onlyPause(await runChild(base));
    expect(plan.kind).toBe("plan");
    expect(plan.items.filter((item) => item.metadata.plan === true).map((item) => item.content)).toEqual(["1. Append a line\n2. Report"]);
    // Without the decision, a new process pauses again on the same request.
    expect(onlyPause(await runChild(base)).requestId).toBe(plan.requestId);
    expect(lines(join(dir, "effects.log"))).toEqual([]);

    const resumed = await runChild({ ...base, decisions: [decisionFor("plan", plan)] });
    expect(resumed.done?.status).toBe("completed");
    expect(lines(join(dir, "effects.log"))).toEqual(["p-append"]);
    const ids = resumed.done!.items.map((item) => item.id);
    expect(ids.slice(0, plan.items.length)).toEqual(plan.items.map((item) => item.id));
    expect((await checkSession(dir, "plan", resumed.messages, resumed.done!.items)).violations).toEqual([]);
  }, 90_000);

  it("SES-8 decisions bind to their run: another runId holding the old approval still pauses, with its own request id", async () => {
    const first = join(root, "bound-1");
    const approval = onlyPause(await runChild({ dir: first, scenario: "build", runId: "run-old", onPause: "exit" }));
    const old = decisionFor("build", approval);

    const second = join(root, "bound-2");
    const fresh = onlyPause(await runChild({ dir: second, scenario: "build", runId: "run-new", onPause: "exit", decisions: [old] }));
    expect(fresh.kind).toBe("tool_approval");
    expect(fresh.requestId).not.toBe(approval.requestId);
    expect(lines(join(second, "effects.log"))).toEqual(["c-append-1"]);
    // And the old run does not take the new run's decision either.
    const still = onlyPause(await runChild({ dir: first, scenario: "build", runId: "run-old", onPause: "exit", decisions: [decisionFor("build", fresh)] }));
    expect(still.requestId).toBe(approval.requestId);
    expect(lines(join(first, "effects.log"))).toEqual(["c-append-1"]);
  }, 90_000);
});
