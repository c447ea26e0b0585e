import { describe, expect, it } from "@jest/globals";
import { Type } from "@sinclair/typebox";
import { parse, type TestSuites } from "junit2json";
import { runEvalSuite } from "../../src/app/time-travel/eval.js";
import { checkEvalSuite, evalRegressions, junitXml, RUBRIC_PROMPT, rubricVerdict, type EvalScorecard } from "../../src/domain/time-travel/eval-suite.js";
import type { ModelProvider } from "../../src/ports/model-provider.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
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

describe("eval rubric (EVAL-1)", () => {
  it("EVAL-1 a rubric is graded by the model the agent's options choose for it: the grader sees the criteria, the tools and the final answer; a verdict-less answer fails the check with why", async () => {
    const dir = tempDirRemovedAfterAll("eval-rubric-");
    const { storage, source } = await recordRun(dir);
    try {
      const seen: string[] = [];
      // The grader passes the answer only when it names the card the criteria ask about.
      const grader = createOfflineModel({
        model: "grader",
        steps: (request) => {
          const question = String(request.messages.at(-1)?.content);
          seen.push(`${request.systemPrompt}\n${question}`);
          const card = /card (card-\d)/.exec(question)?.[1];
          const named = card !== undefined && question.split("Final answer:")[1]!.includes(card);
          return { text: `Verdict:\n\`\`\`json\n${JSON.stringify({ pass: named, reason: named ? `names ${card}` : `does not name ${card ?? "a card"}` })}\n\`\`\`` };
        },
      });
      const mumbler = createOfflineModel({ model: "mumbler", steps: () => ({ text: "looks fine to me" }) });
      const base = fixtureAgent(dir);
      const agent = { ...base, models: { offline: base.models as ModelProvider, grader, mumbler }, model: "offline" };
      const suite = checkEvalSuite({
        name: "rubric",
        cases: [
          { name: "names card-1", run: "run-original", expect: { rubric: { criteria: "The answer says which card card-1 was charged.", model: "grader" } } },
          { name: "names card-2", run: "run-original", expect: { rubric: { criteria: "The answer says which card card-2 was charged.", model: "grader" } } },
          { name: "no verdict", run: "run-original", expect: { rubric: { criteria: "Anything.", model: "mumbler" } } },
          { name: "no such grader", run: "run-original", expect: { rubric: { criteria: "Anything.", model: "absent" } } },
        ],
      });
      const scorecard = await runEvalSuite(suite, {
        openCase: async (entry) => ({ source, sessions: storage.sessions, runId: entry.run! }),
        agent,
        context: (entry) => fixtureContext(storage, entry.name, false),
      });
      const byName = Object.fromEntries(scorecard.cases.map((entry) => [entry.name, entry]));
      expect(byName["names card-1"]!.checks).toEqual([{ check: "rubric", pass: true, message: "names card-1" }]);
      expect(byName["names card-2"]!.checks).toEqual([{ check: "rubric", pass: false, message: "does not name card-2" }]);
      expect(byName["no verdict"]!.checks).toEqual([{ check: "rubric", pass: false, message: 'the grader answered without a {"pass": …} verdict: "looks fine to me"' }]);
      expect(byName["no such grader"]!.checks[0]).toMatchObject({ check: "rubric", pass: false, message: expect.stringContaining("the grader failed:") });
      expect({ passed: scorecard.passed, failed: scorecard.failed }).toEqual({ passed: 1, failed: 3 });
      // The grader saw the documented prompt, the tools in order and the final answer.
      expect(seen[0]).toContain(RUBRIC_PROMPT);
      expect(seen.find((entry) => entry.includes("card-1 was charged"))).toContain("Tools the agent called, in order: lookup, charge\n\nFinal answer:\nCharged card-1 after looking up alpha.");
    } finally {
      await source.close();
      await storage.close();
    }
  });

  it("EVAL-1 rubric verdicts: the first JSON object with a boolean pass, in prose or a fence; none is null", () => {
    expect(rubricVerdict('{"pass": false, "reason": "no card"}')).toEqual({ pass: false, reason: "no card" });
    expect(rubricVerdict('I think {not json} then {"pass": true} ok')).toEqual({ pass: true, reason: "" });
    expect(rubricVerdict('{"reason": "x"}')).toBeNull();
    expect(rubricVerdict("PASS")).toBeNull();
  });
});
