import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "@jest/globals";
import { modelRequestId } from "../../src/domain/agent/ids.js";
import { checkSession, readSessionEvents, readUsageTotal } from "./support/checks.js";
import { childBundle, runChild } from "./support/processes.js";
import { checkReplay } from "./support/torture.js";

// SES-3 across processes: a finished run, re-run by its runId in a new process, is rebuilt from
// the SQLite session alone. The child reports every model request, tool call and session append
// it makes, and with `forbidWork` any model or tool call would fail the run.
describe("SES-3 replay across processes", () => {
  const root = mkdtempSync(join(tmpdir(), "durable-replay-"));
  beforeAll(async () => {
    await childBundle();
  }, 60_000);

  it.each(["build", "plan", "parallel"])("SES-3 %s: the same runId in a new process rebuilds equal items with no model call, no tool call, no new event and no new usage", async (scenario) => {
    const dir = join(root, scenario);
    const first = await runChild({ dir, scenario, runId: "run-1" });
    expect(first.done?.status).toBe("completed");
    const check = await checkSession(dir, scenario, first.messages, first.done!.items);
    expect(check.violations).toEqual([]);
    const events = (await readSessionEvents(dir)).length;
    const usage = await readUsageTotal(dir);
    expect(usage).toBeGreaterThan(0);

    const violations: string[] = [];
    await checkReplay(dir, scenario, "run-1", first.done!.items, violations);
    expect(violations).toEqual([]);
    // A third process: still nothing new.
    await checkReplay(dir, scenario, "run-1", first.done!.items, violations);
    expect(violations).toEqual([]);
    expect((await readSessionEvents(dir)).length).toBe(events);
    expect(await readUsageTotal(dir)).toBe(usage);
  }, 60_000);

  it("SES-3 model request ids derive from the runId: a step re-asked after a crash uses the same id", async () => {
    const dir = join(root, "request-ids");
    // Killed just before the response of step 0 is committed (with the run start, the first
    // commit of a run): the next process asks again.
    const killed = await runChild({ dir, scenario: "plan", runId: "run-ids", kill: { nth: 1, when: "before" } });
    expect(killed.signal).toBe("SIGKILL");
    const resumed = await runChild({ dir, scenario: "plan", runId: "run-ids" });
    expect(resumed.done?.status).toBe("completed");
    const asked = [...killed.messages, ...resumed.messages].flatMap((message) => (message.type === "model" ? [[message.step, message.requestId] as const] : []));
    expect(asked.filter(([step]) => step === 0)).toHaveLength(2);
    for (const [step, requestId] of asked) expect(requestId).toBe(modelRequestId("run-ids", step));
  }, 60_000);
});
