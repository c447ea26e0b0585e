/**
 * EVAL-1: eval suites — cases (a recorded run id or an exported run file) with expectations —
 * and the scorecard their replays give: per-case checks, JSON, JUnit XML, and regressions
 * against a baseline scorecard.
 */
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { SteamharnessError } from "../errors.js";
import type { RunFacts } from "./replay-diff.js";

const Expectations = Type.Object(
  {
    finalText: Type.Optional(Type.Object({ contains: Type.Optional(Type.String()), matches: Type.Optional(Type.String()), schema: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }, { additionalProperties: false })),
    tools: Type.Optional(Type.Object({ equal: Type.Optional(Type.Array(Type.String())), contains: Type.Optional(Type.Array(Type.String())) }, { additionalProperties: false })),
    maxTokens: Type.Optional(Type.Integer({ minimum: 0 })),
    maxCostUsd: Type.Optional(Type.Number({ minimum: 0 })),
    maxSteps: Type.Optional(Type.Integer({ minimum: 0 })),
    noUnsafeCalls: Type.Optional(Type.Boolean()),
    /** Criteria graded by a model (the case's or the agent's configured one, or `model`): pass or fail with a reason. */
    rubric: Type.Optional(Type.Object({ criteria: Type.String({ minLength: 1 }), model: Type.Optional(Type.String({ minLength: 1 })) }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);

/** TypeBox schema of an eval suite (a JSON or YAML file; a TS module's default export may add `scorer` functions). */
export const EvalSuiteSchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    /** Cases replayed at once (default 4). */
    concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
    /** How the cases' tools are answered (default `recorded`). */
    tools: Type.Optional(Type.Union([Type.Literal("recorded"), Type.Literal("live-safe"), Type.Literal("live")])),
    /** Prices for `maxCostUsd` (USD per million tokens). */
    price: Type.Optional(Type.Object({ input: Type.Number({ minimum: 0 }), output: Type.Number({ minimum: 0 }) })),
    cases: Type.Array(
      Type.Object(
        {
          name: Type.String({ minLength: 1 }),
          /** A recorded run id (found in the project's sessions) … */
          run: Type.Optional(Type.String({ minLength: 1 })),
          /** … or an exported run file (JSONL, relative to the suite). */
          file: Type.Optional(Type.String({ minLength: 1 })),
          prompt: Type.Optional(Type.String()),
          model: Type.Optional(Type.String()),
          expect: Expectations,
        },
        { additionalProperties: false },
      ),
      { minItems: 1 },
    ),
  },
  { additionalProperties: false },
);

/** An eval suite as validated. */
export type EvalSuite = Static<typeof EvalSuiteSchema>;
/** One case of a suite. */
export type EvalCase = EvalSuite["cases"][number];

/** A custom scorer of a TS-module suite: `null`/`true` passes, a string or `false` fails. */
export type EvalScorer = (facts: RunFacts) => boolean | string | null | Promise<boolean | string | null>;

/** One check of a case. */
export interface EvalCheck {
  check: string;
  pass: boolean;
  message?: string;
}

/** The score of one case. */
export interface EvalCaseScore {
  name: string;
  pass: boolean;
  /** The replay's run id (viewable), or `null` when the case could not be replayed. */
  runId: string | null;
  checks: EvalCheck[];
  tokens: number;
  costUsd: number | null;
  steps: number;
  durationMs: number;
  error?: { code: string; message: string };
}

/** The result of a suite (its JSON is the baseline of a later run). */
export interface EvalScorecard {
  suite: string;
  passed: number;
  failed: number;
  cases: EvalCaseScore[];
}

/**
 * The suite checked against {@link EvalSuiteSchema}, with every case naming exactly one of
 * `run` and `file` and case names unique. Throws `input_validation` naming the first fault.
 *
 * @example
 * const suite = checkEvalSuite(JSON.parse(readFileSync("suite.json", "utf8")));
 */
export function checkEvalSuite(value: unknown): EvalSuite {
  const { scorers: _scorers, ...plain } = (value ?? {}) as Record<string, unknown>;
  if (!Value.Check(EvalSuiteSchema, plain)) {
    const first = [...Value.Errors(EvalSuiteSchema, plain)][0];
    throw new SteamharnessError("input_validation", `[steamharness] [eval] the suite is invalid${first ? ` at ${first.path || "/"}: ${first.message}` : ""}`, { field: first?.path || "suite" });
  }
  const names = new Set<string>();
  for (const [index, entry] of plain.cases.entries()) {
    if ((entry.run === undefined) === (entry.file === undefined)) throw new SteamharnessError("input_validation", `[steamharness] [eval] case ${entry.name} names exactly one of "run" and "file"`, { field: `/cases/${index}` });
    if (names.has(entry.name)) throw new SteamharnessError("input_validation", `[steamharness] [eval] case name ${entry.name} is used twice`, { field: `/cases/${index}/name` });
    names.add(entry.name);
  }
  return plain;
}

/**
 * The checks of a case's expectations on its replay's facts. `checkSchema` validates the final
 * text (parsed as JSON) against a JSON Schema and returns the first problem or `null`.
 *
 * @example
 * const checks = evalChecks(entry.expect, facts, checkSchema);
 */
export function evalChecks(expect: EvalCase["expect"], facts: RunFacts, checkSchema: (schema: Record<string, unknown>, value: unknown) => string | null): EvalCheck[] {
  const checks: EvalCheck[] = [];
  const add = (check: string, pass: boolean, message: string) => checks.push(pass ? { check, pass } : { check, pass, message });
  const text = expect.finalText;
  if (text?.contains !== undefined) add("finalText.contains", facts.finalText.includes(text.contains), `the final text does not contain ${JSON.stringify(text.contains)}`);
  if (text?.matches !== undefined) add("finalText.matches", new RegExp(text.matches, "u").test(facts.finalText), `the final text does not match /${text.matches}/`);
  if (text?.schema !== undefined) {
    let problem: string | null;
    try {
      problem = checkSchema(text.schema, JSON.parse(facts.finalText) as unknown);
    } catch {
      problem = "the final text is not JSON";
    }
    checks.push(problem === null ? { check: "finalText.schema", pass: true } : { check: "finalText.schema", pass: false, message: problem });
  }
  const sequence = facts.tools.map((tool) => tool.name);
  if (expect.tools?.equal) add("tools.equal", sequence.join("\u0000") === expect.tools.equal.join("\u0000"), `tools were [${sequence.join(", ")}]`);
  if (expect.tools?.contains) {
    // In order, not necessarily adjacent.
    let at = 0;
    for (const name of sequence) if (name === expect.tools.contains[at]) at++;
    add("tools.contains", at === expect.tools.contains.length, `tools [${sequence.join(", ")}] do not contain [${expect.tools.contains.join(", ")}] in order`);
  }
  if (expect.maxTokens !== undefined) add("maxTokens", facts.tokens.total <= expect.maxTokens, `${facts.tokens.total} tokens > ${expect.maxTokens}`);
  if (expect.maxCostUsd !== undefined) add("maxCostUsd", facts.costUsd !== null && facts.costUsd <= expect.maxCostUsd, facts.costUsd === null ? "no price to compute the cost (suite.price)" : `$${facts.costUsd} > $${expect.maxCostUsd}`);
  if (expect.maxSteps !== undefined) add("maxSteps", facts.steps <= expect.maxSteps, `${facts.steps} steps > ${expect.maxSteps}`);
  if (expect.noUnsafeCalls) {
    const unsafe = facts.tools.filter((tool) => tool.replay !== "safe").map((tool) => tool.name);
    add("noUnsafeCalls", unsafe.length === 0, `unsafe calls: ${unsafe.join(", ")}`);
  }
  return checks;
}

/**
 * Case names that passed in `baseline` and do not pass now (failed or missing).
 *
 * @example
 * if (evalRegressions(baseline, scorecard).length > 0) process.exitCode = 1;
 */
export function evalRegressions(baseline: EvalScorecard, current: EvalScorecard): string[] {
  const now = new Map(current.cases.map((entry) => [entry.name, entry.pass]));
  return baseline.cases.filter((entry) => entry.pass && now.get(entry.name) !== true).map((entry) => entry.name);
}

const escapeXml = (text: string): string =>
  // Characters XML 1.0 does not allow at all are dropped; the five special ones escaped.
  text.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!);

/**
 * The scorecard as JUnit XML: one `testsuite` of the suite, a `testcase` per case, a `failure`
 * per failed case listing its failed checks (or its error).
 *
 * @example
 * writeFileSync("eval.xml", junitXml(scorecard));
 */
export function junitXml(scorecard: EvalScorecard): string {
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const total = scorecard.cases.reduce((sum, entry) => sum + entry.durationMs, 0);
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="${escapeXml(scorecard.suite)}" tests="${scorecard.cases.length}" failures="${scorecard.failed}" time="${seconds(total)}">`, `  <testsuite name="${escapeXml(scorecard.suite)}" tests="${scorecard.cases.length}" failures="${scorecard.failed}" errors="0" skipped="0" time="${seconds(total)}">`];
  for (const entry of scorecard.cases) {
    const open = `    <testcase name="${escapeXml(entry.name)}" classname="${escapeXml(scorecard.suite)}" time="${seconds(entry.durationMs)}"`;
    if (entry.pass) {
      lines.push(`${open}/>`);
      continue;
    }
    const failed = entry.error ? [`[${entry.error.code}] ${entry.error.message}`] : entry.checks.filter((check) => !check.pass).map((check) => `${check.check}: ${check.message ?? "failed"}`);
    lines.push(`${open}>`, `      <failure message="${escapeXml(failed[0] ?? "failed")}" type="eval">${escapeXml(failed.join("\n"))}</failure>`, "    </testcase>");
  }
  lines.push("  </testsuite>", "</testsuites>", "");
  return lines.join("\n");
}

/** The system prompt of a rubric grading request (EVAL-1): the grader answers with one JSON object. */
export const RUBRIC_PROMPT =
  'You grade the final answer of an AI agent against a rubric. Read the rubric and the answer, then reply with one JSON object and nothing else: {"pass": true or false, "reason": "one sentence saying why"}.';

/**
 * The user message of a rubric grading request: the rubric, the tools the run called, and the
 * final answer.
 *
 * @example
 * const content = rubricQuestion("Says which card was charged", facts);
 */
export function rubricQuestion(criteria: string, facts: RunFacts): string {
  const tools = facts.tools.length === 0 ? "none" : facts.tools.map((tool) => tool.name).join(", ");
  return `Rubric:\n${criteria}\n\nTools the agent called, in order: ${tools}\n\nFinal answer:\n${facts.finalText}`;
}

/**
 * The grader's verdict read from its answer: the first JSON object in the text with a boolean
 * `pass` (a fenced block or prose around it is tolerated), or `null` when there is none.
 *
 * @example
 * rubricVerdict('{"pass": false, "reason": "no card named"}') // { pass: false, reason: "no card named" }
 */
export function rubricVerdict(text: string): { pass: boolean; reason: string } | null {
  for (let start = text.indexOf("{"); start !== -1; start = text.indexOf("{", start + 1)) {
    for (let end = text.indexOf("}", start); end !== -1; end = text.indexOf("}", end + 1)) {
      let value: unknown;
      try {
        value = JSON.parse(text.slice(start, end + 1));
      } catch {
        continue;
      }
      const verdict = value as { pass?: unknown; reason?: unknown };
      if (typeof verdict.pass === "boolean") return { pass: verdict.pass, reason: typeof verdict.reason === "string" ? verdict.reason : "" };
    }
  }
  return null;
}
