// SES-12: the agent sessions a workflow run writes under `<project>/.workflow/agents/<run id>/` (the
// run is its agents' conversation) are removed once the run finished longer ago than the
// retention — by a later run, in a small batch, or by `steamharness runs prune` — while a run
// waiting for an answer keeps them and still resumes exactly. Real CLI processes, real files.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { cleanup, runCli, tempDir } from "../cli/helpers.js";
import { writeTickingProject, type TickingProject } from "../fixtures/ticking-project.js";

let tmp: string;
let ticking: TickingProject;
let project: string;
let data: string[];
const sessionsOf = (runId: string) => ticking.sessionsOf(runId);

interface Report {
  runId: string;
  status: string;
  pending?: { requestId: string };
  result?: { data: { output: { answer: string; toolCalls: number } } };
}

async function run(entrypoint: "pause" | "finish", extra: string[] = []): Promise<Report> {
  const done = await runCli(["run", project, entrypoint, "--json", ...data, ...extra]);
  expect([done.code, done.stderr]).toEqual([entrypoint === "pause" ? 3 : 0, expect.not.stringMatching(/run retention is off/)]);
  return JSON.parse(done.stdout) as Report;
}

beforeAll(async () => {
  tmp = await tempDir("sh-ses12-");
  ticking = await writeTickingProject(tmp, "5b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e");
  project = ticking.dir;
  data = ["--data-dir", join(tmp, "data")];
}, 60_000);
afterAll(async () => {
  await cleanup(tmp);
});

describe("SES-12 agent sessions of workflow runs are kept for a retention, paused runs always", () => {
  it("SES-12 a later run removes the sessions of runs finished longer ago than the retention; a paused run's session survives and resumes exactly", async () => {
    // A run kept 0 ms: due as soon as it ended, removed by the next run of the project.
    const old = await run("finish", ["--run-retention", "0"]);
    expect(old.status).toBe("success");
    expect(sessionsOf(old.runId)).toBe(true);

    const paused = await run("pause", ["--run-retention", "0"]);
    expect(paused.status).toBe("waiting_for_input");
    expect(sessionsOf(old.runId)).toBe(false);
    expect(sessionsOf(paused.runId)).toBe(true);
    expect(ticking.done()).toEqual([4, 5]);

    // Runs on with the default retention (7 days): the paused run, due never, is still there.
    const recent = await run("finish");
    const again = await run("finish", ["--run-retention", "0"]);
    expect([sessionsOf(paused.runId), sessionsOf(recent.runId), sessionsOf(again.runId)]).toEqual([true, true, true]);

    // `runs prune --older-than 0` removes every finished run, never the paused one.
    const pruned = await runCli(["runs", "prune", project, "--older-than", "0", "--json"]);
    expect([pruned.code, pruned.stderr]).toEqual([0, ""]);
    expect(JSON.parse(pruned.stdout)).toEqual({ removed: expect.arrayContaining([recent.runId, again.runId]), deferred: [] });
    expect((JSON.parse(pruned.stdout) as { removed: string[] }).removed).toHaveLength(2);
    expect([sessionsOf(paused.runId), sessionsOf(recent.runId), sessionsOf(again.runId)]).toEqual([true, false, false]);

    // The paused run resumes from its kept session: no tick redone, the model asked once more.
    const before = ticking.done();
    const answered = await runCli(["answer", project, paused.runId, paused.pending!.requestId, "--value", '{"approve":true}', "--json", ...data]);
    expect([answered.code, answered.stderr]).toEqual([0, expect.any(String)]);
    expect(JSON.parse(answered.stdout)).toMatchObject({ runId: paused.runId, status: "success", result: { data: { output: { answer: "done", toolCalls: 2 } } } });
    expect(ticking.done()).toEqual([before[0], before[1] + 1]);

    // Once it finished it is an ordinary finished run: prunable.
    const later = await runCli(["runs", "prune", project, "--older-than", "0"]);
    expect([later.code, later.stdout]).toEqual([0, "removed the agent sessions of 1 run(s)\n"]);
    expect(sessionsOf(paused.runId)).toBe(false);
  }, 240_000);

  it("SES-12 bad durations are usage errors (exit code 2), and nothing runs", async () => {
    const bad = await runCli(["run", project, "finish", "--run-retention", "5", ...data]);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringMatching(/--run-retention.*expected a duration/)]);
    const never = await runCli(["runs", "prune", project, "--older-than", "never"]);
    expect([never.code, never.stderr]).toEqual([2, expect.stringMatching(/--older-than.*expected a duration/)]);
    const relative = await runCli(["runs", "prune", project, "--agent-store-dir", "rel/agents"]);
    expect([relative.code, relative.stderr]).toEqual([2, expect.stringMatching(/--agent-store-dir must be an absolute path/)]);
  }, 120_000);
});
