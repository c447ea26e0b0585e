import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "@jest/globals";
import { childBundle, inParallel } from "../durable/support/processes.js";
import { runKillPoint, type KillPoint } from "../durable/support/torture.js";

// EXT-4 with real processes: the child SIGKILLs itself just before or just after the append of a
// snippet's nested call (its intent, its start, its result), then a fresh child resumes the run.
// The snippet runs again and replays the committed nested calls; a non-replayable call whose
// outcome is unknown is reported to the snippet, never run again. The whole sweep (every append)
// is part of `npm run torture` (scenario "codemode").
const both = (events: string[]): KillPoint[] => events.flatMap((event) => [{ scenario: "codemode", event, when: "before" as const }, { scenario: "codemode", event, when: "after" as const }]);
const POINTS: KillPoint[] = both(["tool/m-code#0/nested", "tool/m-code#1/nested-intent", "tool/m-code#1/started", "tool/m-code#1/nested", "tool/m-code#3/nested"]);

describe("EXT-4 codemode crash test (real child processes, SIGKILL between nested calls)", () => {
  const root = mkdtempSync(join(tmpdir(), "codemode-crash-"));
  beforeAll(async () => {
    await childBundle();
  }, 120_000);

  it(`EXT-4 ${POINTS.length} kill points between nested calls: 0 duplicated unsafe effects, committed nested calls not redone, runs complete`, async () => {
    const results = await inParallel(POINTS, 2, (point) => runKillPoint(root, point));
    const failures = results.filter((result) => result.violations.length > 0).map((result) => `${result.label}: ${result.violations.join("; ")}`);
    expect(failures).toEqual([]);
    expect(results.every((result) => result.kills === 1)).toBe(true);
    // Killed after append_line #1 started and before its result: its outcome is unknown.
    expect(results.flatMap((result) => result.check?.unknownOutcomes ?? [])).toContain("m-code#1");
    // Every run's log holds the nested calls' records.
    expect(results.every((result) => result.check?.events.some((event) => event.type === "extension") === true)).toBe(true);
  }, 300_000);
});
