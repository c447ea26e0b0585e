import { describe, expect, it } from "@jest/globals";
import { Type } from "@sinclair/typebox";
import { parse, type TestSuites } from "junit2json";
import { runEvalSuite } from "../../src/app/time-travel/eval.js";
import { checkEvalSuite, evalRegressions, junitXml, type EvalScorecard } from "../../src/domain/time-travel/eval-suite.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { effects, fixtureAgent, fixtureContext, recordRun } from "./replay-fixture.js";

/** The JUnit file as a JUnit XML library reads it (junit2json, on xml2js). */
async function parseJunit(xml: string): Promise<{ suites: Array<{ name?: string; tests?: number; failures?: number; cases: Array<{ name?: string; failure: string | null }> }> }> {
  const parsed = (await parse(xml)) as TestSuites;
  return { suites: (parsed.testsuite ?? []).map((suite) => ({ name: suite.name, tests: suite.tests, failures: suite.failures, cases: (suite.testcase ?? []).map((entry) => ({ name: entry.name, failure: entry.failure?.[0]?.message ?? null })) })) };
}

describe("eval suites", () => {
  it("EVAL-1 a suite replays its cases (recorded tools, bounded parallel) into a scorecard and JUnit XML", async () => {
    const dir = tempDirRemovedAfterAll("eval-");
    const { storage, source } = await recordRun(dir);
    try {
      const suite = checkEvalSuite({
        name: "charges & <lookups>",
        concurrency: 2,
        price: { input: 1, output: 1 },
        cases: [
          { name: "answer", run: "run-original", expect: { finalText: { contains: "Charged card-1", matches: "^Charged" }, tools: { equal: ["lookup", "charge"] }, maxTokens: 1000, maxCostUsd: 0.01, maxSteps: 3 } },
          { name: "no-unsafe", run: "run-original", expect: { noUnsafeCalls: true, tools: { contains: ["charge"] } } },
          { name: "json", run: "run-original", expect: { finalText: { schema: Type.Object({ ok: Type.Boolean() }) as unknown as Record<string, unknown> } } },
          { name: "scored", run: "run-original", expect: {} },
          { name: "missing", run: "run-missing", expect: {} },
        ],
      });
      const scorecard = await runEvalSuite(suite, {
        openCase: async (entry) => ({ source, sessions: storage.sessions, runId: entry.run! }),
        agent: fixtureAgent(dir),
        context: (entry) => fixtureContext(storage, entry.name, false),
        scorers: { scored: (facts) => (facts.steps === 3 ? null : "three steps expected") },
      });
      expect(effects(dir, "charge")).toEqual(["card-1"]);
      const byName = Object.fromEntries(scorecard.cases.map((entry) => [entry.name, entry]));
      expect(byName.answer!.pass).toBe(true);
      expect(byName.answer!.checks.map((check) => check.check)).toEqual(["finalText.contains", "finalText.matches", "tools.equal", "maxTokens", "maxCostUsd", "maxSteps"]);
      expect(byName["no-unsafe"]!.checks).toEqual([{ check: "tools.contains", pass: true }, { check: "noUnsafeCalls", pass: false, message: "unsafe calls: charge" }]);
      expect(byName.json!.checks).toEqual([{ check: "finalText.schema", pass: false, message: "the final text is not JSON" }]);
      expect(byName.scored!.pass).toBe(true);
      expect(byName.missing!.error?.code).toBe("not_found");
      expect({ passed: scorecard.passed, failed: scorecard.failed }).toEqual({ passed: 2, failed: 3 });

      const junit = await parseJunit(junitXml(scorecard));
      expect(junit.suites).toHaveLength(1);
      expect(junit.suites[0]).toMatchObject({ name: "charges & <lookups>", tests: 5, failures: 3 });
      expect(junit.suites[0]!.cases.map((entry) => [entry.name, entry.failure !== null])).toEqual([["answer", false], ["no-unsafe", true], ["json", true], ["scored", false], ["missing", true]]);
      expect(junit.suites[0]!.cases[1]!.failure).toBe("noUnsafeCalls: unsafe calls: charge");
    } finally {
      await source.close();
      await storage.close();
    }
  });

  it("EVAL-1 regressions against a baseline: a case that passed and now fails or is gone", () => {
    const card = (cases: Array<[string, boolean]>): EvalScorecard => ({ suite: "s", passed: 0, failed: 0, cases: cases.map(([name, pass]) => ({ name, pass, runId: null, checks: [], tokens: 0, costUsd: null, steps: 0, durationMs: 0 })) });
    expect(evalRegressions(card([["a", true], ["b", false], ["c", true]]), card([["a", false], ["b", false], ["d", true]]))).toEqual(["a", "c"]);
    expect(evalRegressions(card([["a", false]]), card([["a", false]]))).toEqual([]);
  });

  it("EVAL-1 an invalid suite is refused with where", () => {
    expect(() => checkEvalSuite({ name: "s", cases: [] })).toThrow(expect.objectContaining({ code: "input_validation" }) as unknown as Error);
    expect(() => checkEvalSuite({ name: "s", cases: [{ name: "a", expect: {} }] })).toThrow(/exactly one of "run" and "file"/);
    expect(() => checkEvalSuite({ name: "s", cases: [{ name: "a", run: "r", expect: { maxTokens: -1 } }] })).toThrow(/maxTokens/);
  });
});
