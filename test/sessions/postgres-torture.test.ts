import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, expect, it } from "@jest/globals";
import { childBundle, inParallel } from "../durable/support/processes.js";
import { runKillPoint, type KillPoint } from "../durable/support/torture.js";
import { describePostgres } from "../fixtures/postgres.js";

// PG-3 with real processes on PostgreSQL: each kill point is a child that SIGKILLs itself just
// before or just after one committed session append (its session held under a PostgreSQL lease),
// then a fresh child takes the session over and resumes the same runId. The full sweep is
// `npm run torture -- --postgres`; CI runs this subset. Each folder gets its own schema.
const both = (scenario: string, events: string[]): KillPoint[] =>
  events.flatMap((event) => [{ scenario, event, when: "before" as const }, { scenario, event, when: "after" as const }]);
const POINTS: KillPoint[] = [
  ...both("build", ["start", "tool/c-append-1/started", "tool/c-deploy/result", "model/3", "end"]),
  ...both("plan", ["tool/p-append/started"]),
  ...both("compact", ["compact/2"]),
];

describePostgres("PG-3 crash torture on PostgreSQL sessions (CI subset)", (database) => {
  const root = mkdtempSync(join(tmpdir(), "torture-pg-ci-"));
  beforeAll(async () => {
    await childBundle();
  }, 60_000);

  it(`PG-3 ${POINTS.length} kill points on PostgreSQL: non-replayable tools run at most once, usage counted once, transcript consistent`, async () => {
    const results = await inParallel(POINTS, 2, (point, index) => runKillPoint(root, point, { postgresUrl: database.url, replay: index % 4 === 3 }));
    const failures = results.filter((result) => result.violations.length > 0).map((result) => `${result.label}: ${result.violations.join("; ")}`);
    expect(failures).toEqual([]);
    expect(results.reduce((sum, result) => sum + result.kills, 0)).toBe(POINTS.length);
    // Killed between "started" and "result": the unsafe tool may have run, so the model is told, never re-run.
    expect(results.flatMap((result) => result.check?.unknownOutcomes ?? [])).toEqual(expect.arrayContaining(["c-append-1", "p-append"]));
  }, 400_000);
});
