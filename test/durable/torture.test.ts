import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "@jest/globals";
import { childBundle, inParallel } from "./support/processes.js";
import { runKillPoint, type KillPoint } from "./support/torture.js";

// SES-4 with real processes: each kill point is a child that SIGKILLs itself just before or just
// after one committed session append, then a fresh child resumes the same runId. The full sweep
// (every boundary of every scenario, plus kill chains) is `npm run torture`; CI runs this subset.
// Kill points are named by the event their append carries, so they stay put when the runtime
// adds or merges appends: "after tool/X/started" = the call began, nothing is known of it;
// "before tool/X/result" = the tool ran, its result was not committed.
const both = (scenario: string, events: string[]): KillPoint[] =>
  events.flatMap((event) => [{ scenario, event, when: "before" as const }, { scenario, event, when: "after" as const }]);
const POINTS: KillPoint[] = [
  ...both("build", [
    "start",
    "tool/c-append-1/started",
    "tool/c-append-1/result",
    "tool/c-lookup-1/started",
    "tool/c-lookup-1/result",
    "tool/c-deploy/wait",
    "tool/c-deploy/decision",
    "tool/c-deploy/started",
    "tool/c-deploy/result",
    "tool/c-ask/decision",
    "tool/c-ask/result",
    "model/3",
    "end",
  ]),
  ...both("plan", ["plan/0/decision", "tool/p-append/started"]),
  ...both("parallel", ["model/1/retry/1", "tool/x-deploy/decision"]),
  // SES-7 compaction: killed around the compaction event and the first response after it.
  ...both("compact", ["compact/2", "model/2"]),
];

describe("SES-4 crash torture (CI subset)", () => {
  const root = mkdtempSync(join(tmpdir(), "torture-ci-"));
  beforeAll(async () => {
    await childBundle();
  }, 60_000);

  it(`SES-4 ${POINTS.length} kill points: non-replayable tools run at most once, safe tools are redone, unknown outcomes reach the model, usage counted once, transcript consistent`, async () => {
    const results = await inParallel(POINTS, 2, (point) => runKillPoint(root, point));
    const failures = results.filter((result) => result.violations.length > 0).map((result) => `${result.label}: ${result.violations.join("; ")}`);
    expect(failures).toEqual([]);
    expect(results.reduce((sum, result) => sum + result.kills, 0)).toBeGreaterThanOrEqual(30);
    const unknown = results.flatMap((result) => result.check?.unknownOutcomes ?? []);
    const redone = results.flatMap((result) => result.check?.redoneSafe ?? []);
    // Killed between "started" and "result": the tool ran (or may have), so the model is told.
    expect(unknown).toEqual(expect.arrayContaining(["c-append-1", "c-deploy"]));
    expect(redone).toEqual(expect.arrayContaining(["c-lookup-1"]));
    expect(results.filter((result) => result.label.startsWith("compact")).every((result) => result.check?.events.some((event) => event.type === "compaction"))).toBe(true);
  }, 240_000);
});
