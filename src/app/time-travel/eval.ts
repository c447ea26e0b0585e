/**
 * EVAL-1: runs an eval suite — each case's recorded run replayed (REPLAY-1), a bounded number at
 * once — and scores the replays against the cases' expectations.
 */
import { Value } from "@sinclair/typebox/value";
import type { TSchema } from "@sinclair/typebox";
import { isSteamharnessError } from "../../domain/errors.js";
import type { NodeContext } from "../../domain/node-context.js";
import { evalChecks, RUBRIC_PROMPT, rubricQuestion, rubricVerdict, type EvalCase, type EvalCheck, type EvalCaseScore, type EvalScorecard, type EvalScorer, type EvalSuite } from "../../domain/time-travel/eval-suite.js";
import { runFacts, type RunFacts } from "../../domain/time-travel/replay-diff.js";
import type { ModelProvider } from "../../ports/model-provider.js";
import type { SessionBackend } from "../../ports/session-backend.js";
import type { SessionStore } from "../../ports/session-store.js";
import { respondOnce } from "../agent/respond-once.js";
import { chooseRunModel } from "../agent/run-model.js";
import type { AgentOptions } from "../agent/types.js";
import { replayRun } from "./replay.js";

/** A case's recorded run, opened: its session, where its replay goes, and how to let go of them. */
export interface OpenedEvalCase {
  source: SessionStore;
  sessions: SessionBackend;
  runId: string;
  close?(): Promise<void>;
}

/** Options of {@link runEvalSuite}. */
export interface EvalRunOptions {
  /** Opens a case's recorded run (a run id in the host's sessions, or an imported exported file). */
  openCase(entry: EvalCase): Promise<OpenedEvalCase>;
  /** The agent the replays run (the project's options: tools, models). */
  agent: AgentOptions;
  /** The context of a case's replay (tool catalog, permissions, storage). */
  context(entry: EvalCase): NodeContext;
  /** Custom scorers by case name (a TS-module suite's `scorers`). */
  scorers?: Record<string, EvalScorer>;
  /**
   * Validates a value against a JSON Schema (`finalText.schema`): the first problem or `null`.
   * Default: TypeBox's check, which knows TypeBox schemas (a TS-module suite's) only.
   */
  checkSchema?: (schema: Record<string, unknown>, value: unknown) => string | null;
  /**
   * The model that grades `rubric` expectations. Default: the model the agent's options choose
   * for the rubric's `model` (or the case's, or the configured default), as a run would.
   */
  grader?: ModelProvider;
}

const typeboxCheck = (schema: Record<string, unknown>, value: unknown): string | null => {
  try {
    return Value.Check(schema as TSchema, value) ? null : ([...Value.Errors(schema as TSchema, value)][0]?.message ?? "does not match the schema");
  } catch {
    return "the schema is not a TypeBox schema (pass checkSchema for plain JSON Schema)";
  }
};

async function scoreCase(entry: EvalCase, suite: EvalSuite, options: EvalRunOptions): Promise<EvalCaseScore> {
  const context = options.context(entry);
  const startedAt = context.clock.now();
  const score = (part: Omit<EvalCaseScore, "name" | "durationMs" | "pass"> & { pass?: boolean }): EvalCaseScore => ({
    name: entry.name,
    pass: part.pass ?? (part.error === undefined && part.checks.every((check) => check.pass)),
    ...part,
    durationMs: context.clock.now() - startedAt,
  });
  let opened: OpenedEvalCase | undefined;
  try {
    opened = await options.openCase(entry);
    const result = await replayRun(opened.runId, {
      source: opened.source,
      sessions: opened.sessions,
      agent: options.agent,
      context,
      tools: suite.tools ?? "recorded",
      ...(entry.prompt === undefined ? {} : { prompt: entry.prompt }),
      ...(entry.model === undefined ? {} : { model: entry.model }),
      ...(suite.price ? { price: suite.price } : {}),
    });
    const replay = await opened.sessions.openUnleased({ address: result.address, create: false });
    const facts = runFacts(replay ? await replay.readRun(result.runId) : [], suite.price);
    await replay?.close();
    const checks = evalChecks(entry.expect, facts, options.checkSchema ?? typeboxCheck);
    const scorer = options.scorers?.[entry.name];
    if (scorer) {
      const verdict = await scorer(facts);
      checks.push(verdict === true || verdict === null ? { check: "scorer", pass: true } : { check: "scorer", pass: false, message: typeof verdict === "string" ? verdict : "the scorer failed the case" });
    }
    if (entry.expect.rubric) checks.push(await gradeRubric(entry, facts, options, context));
    return score({ runId: result.runId, checks, tokens: facts.tokens.total, costUsd: facts.costUsd, steps: facts.steps, ...(result.error ? { error: result.error } : {}) });
  } catch (error) {
    return score({ runId: null, checks: [], tokens: 0, costUsd: null, steps: 0, error: { code: isSteamharnessError(error) ? error.code : "internal", message: error instanceof Error ? error.message : String(error) } });
  } finally {
    await opened?.close?.();
  }
}

/**
 * The `rubric` check of a case: its criteria, the run's tools and final answer sent to the grader
 * ({@link RUBRIC_PROMPT}); the check passes when the grader answers `{"pass": true}`. A grader
 * that fails, cannot be chosen or answers without a verdict fails the check with why (the case
 * is scored, the suite goes on).
 */
async function gradeRubric(entry: EvalCase, facts: RunFacts, options: EvalRunOptions, context: NodeContext): Promise<EvalCheck> {
  const rubric = entry.expect.rubric!;
  const failed = (message: string): EvalCheck => ({ check: "rubric", pass: false, message });
  let grader: ModelProvider;
  try {
    grader = options.grader ?? (await chooseRunModel(options.agent, context, null, rubric.model ?? entry.model)).model;
  } catch (error) {
    return failed(`the grader failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  const answer = await respondOnce(grader, { requestId: `${entry.name}:rubric`, systemPrompt: RUBRIC_PROMPT, messages: [{ role: "user", content: rubricQuestion(rubric.criteria, facts) }], tools: [] }, context.signal);
  if (!answer.ok) return failed(`the grader failed: ${answer.reason}`);
  const text = answer.text;
  const verdict = rubricVerdict(text);
  if (!verdict) return failed(`the grader answered without a {"pass": …} verdict: ${JSON.stringify(text.slice(0, 200))}`);
  return verdict.pass ? { check: "rubric", pass: true, ...(verdict.reason ? { message: verdict.reason } : {}) } : failed(verdict.reason || "the grader failed the answer");
}

/**
 * Replays every case of a (checked) suite, `suite.concurrency` at once (default 4), and scores
 * each: its expectations, its scorer, and whether its replay completed. A case that cannot be
 * opened or replayed fails with its error; the suite itself never throws for a case.
 *
 * @example
 * const scorecard = await runEvalSuite(checkEvalSuite(raw), { openCase, agent, context: () => context });
 * console.log(`${scorecard.passed}/${scorecard.cases.length}`);
 */
export async function runEvalSuite(suite: EvalSuite, options: EvalRunOptions): Promise<EvalScorecard> {
  const scores: EvalCaseScore[] = new Array(suite.cases.length);
  let next = 0;
  const worker = async () => {
    while (next < suite.cases.length) {
      const index = next++;
      scores[index] = await scoreCase(suite.cases[index]!, suite, options);
    }
  };
  await Promise.all(Array.from({ length: Math.min(suite.concurrency ?? 4, suite.cases.length) }, worker));
  const passed = scores.filter((entry) => entry.pass).length;
  return { suite: suite.name, passed, failed: scores.length - passed, cases: scores };
}
