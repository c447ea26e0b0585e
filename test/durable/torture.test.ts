import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "@jest/globals";
import { childBundle, inParallel } from "./support/processes.js";
import { runKillPoint, type KillPoint } from "./support/torture.js";

// SES-4 with real processes: each kill point is a child that SIGKILLs itself just before or just
// after one committed session append, then a fresh child resumes the same runId. The full sweep
// (every boundary of every scenario, plus kill chains) is `npm run torture`; CI runs this subset.
// Append numbers of the build scenario: 4 = c-append-1 started, 5 = its result, 10 = the
// approval wait, 11-13 = deploy decision/started/result, 14-16 = question wait/answer/result.
const both = (scenario: string, nths: number[]): KillPoint[] =>
  nths.flatMap((nth) => [{ scenario, nth, when: "before" as const }, { scenario, nth, when: "after" as const }]);
const POINTS: KillPoint[] = [
  ...both("build", [2, 4, 5, 8, 10, 11, 12, 13, 15, 16, 21, 26]),
  ...both("plan", [1, 5, 9, 13]),
  ...both("parallel", [5, 8, 12]),
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
  }, 240_000);
});
