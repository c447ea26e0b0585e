/**
 * REPLAY-1, REPLAY-2: re-runs a recorded run as a run of its own, its tool calls answered from
 * the recording (the same idea as a resumed run answering committed calls from its log, applied
 * to a new run: `toolAnswers` in the tool step), then diffs it against the original.
 */
import { SteamharnessError, isSteamharnessError } from "../../domain/errors.js";
import type { AgentConfigurationSnapshot } from "../../domain/agent/model-selection.js";
import type { ModelPrice } from "../../domain/budget/model-price.js";
import type { NodeContext } from "../../domain/node-context.js";
import { createRecordingAnswers, replayRecordEvent, type ReplayDivergence, type ReplayRecord, type ReplayToolMode } from "../../domain/time-travel/replay.js";
import { recordedToolCalls } from "../../domain/time-travel/tool-calls.js";
import { diffRuns, runFacts, type RunDiff, type RunFacts } from "../../domain/time-travel/replay-diff.js";
import type { SessionBackend } from "../../ports/session-backend.js";
import type { SessionAddress, SessionStore } from "../../ports/session-store.js";
import { openAgent } from "../agent/create-agent.js";
import { batchSessionAppends } from "./batched-session.js";
import { stableHash } from "../../domain/stable-hash.js";
import type { Clock } from "../../ports/clock.js";
import type { TokenUsageEntry, TokenUsageRecorder } from "../../ports/token-usage.js";
import type { AgentEffort, AgentMode, AgentOptions, ToolAnswerer } from "../agent/types.js";

/**
 * What a divergence comes to: `fail` the replay, `run` the call live (its approval applies as
 * usual), or `skip` it (the model is told it was not run).
 */
export type ReplayDivergenceDecision = "fail" | "run" | "skip";

/**
 * The policy for a call the recording lacks: `fail` (default), `live-safe` (a `replay: "safe"`
 * tool runs live, any other is skipped), or a function that decides — how a host asks a person.
 */
export type ReplayDivergencePolicy = "fail" | "live-safe" | ((divergence: ReplayDivergence) => ReplayDivergenceDecision | Promise<ReplayDivergenceDecision>);

/** Options of {@link replayRun}. */
export interface ReplayRunOptions {
  /** The session that holds the recorded run (read only). */
  source: SessionStore;
  /** Where the replay's own session is written (a new session beside the source's, same project and conversation). */
  sessions: SessionBackend;
  /** The agent the replay runs: the original's options (its tools, models); the fields below win. */
  agent: AgentOptions;
  /** The replay run's context (tool catalog, permissions, storage, signal); its `runId` is ignored. */
  context: NodeContext;
  /** The replay run's id (default: a new one from `context.ids`). */
  runId?: string;
  /** Another model (a configured entry id, an injected model id). */
  model?: string;
  /** Another prompt (default the original's). */
  prompt?: string;
  /** Another configuration snapshot (`STEAMHARNESS_AGENT_MODELS`, policy). */
  configuration?: AgentConfigurationSnapshot;
  /** `recorded`: every call answered from the recording; `live-safe`: safe tools run live; `live`: all run live. */
  tools: ReplayToolMode;
  /** What a call the recording lacks does (default `fail`). */
  onDivergence?: ReplayDivergencePolicy;
  /** Prices of the diff's cost (USD per million tokens); without one the cost is `null`. */
  price?: ModelPrice;
}

/** What {@link replayRun} resolves. */
export interface ReplayResult {
  /** The replay's run id and session (viewable like any run). */
  runId: string;
  address: SessionAddress;
  /** How the replay run ended; `error` when it did not complete. */
  status: RunFacts["status"];
  error?: { code: string; message: string };
  /** Calls answered from the recording, and calls that ran live. */
  answered: number;
  live: number;
  divergences: ReplayDivergence[];
  diff: RunDiff;
}

/**
 * Replays run `runId` of `options.source` as a new run in a new session (`replay-<id>`): the
 * session forks the source's history before the run (`SessionBackend.forkLog`: read through, not
 * copied), the prompt (or `prompt`) sent again to the agent
 * (or `model`), and each tool call answered per `tools` and `onDivergence`. In `recorded` mode no
 * tool runs unless a divergence policy runs it. The session first gets the replay's record (what
 * it replays, for the viewer's diff); the replay's events are committed in batches
 * ({@link batchSessionAppends}) until a tool with effects runs live: a crash may lose the
 * replay's tail, and running the replay again (another run id) re-derives it. Resolves with the
 * diff against the original; a failed replay resolves too (`status`, `error`). Throws `not_found` for an unknown run and
 * `unavailable` for a session backend without `forkLog`.
 *
 * @example
 * const result = await replayRun("run-1", { source, sessions: storage.sessions!, agent, context, tools: "recorded" });
 * console.log(result.diff.finalText.equal, result.answered);
 */
export async function replayRun(runId: string, options: ReplayRunOptions): Promise<ReplayResult> {
  const original = await options.source.readRun(runId);
  const started = original.find((event) => event.type === "run_started");
  if (!started || started.type !== "run_started") throw new SteamharnessError("not_found", `[steamharness] [replay] run ${runId} is not in session ${options.source.address.sessionKey}`, { field: "runId" });
  const replayId = options.runId ?? options.context.ids.next("replay-");
  const address: SessionAddress = { ...options.source.address, sessionKey: `replay-${replayId}` };
  const counts = { answered: 0, live: 0 };
  const divergences: ReplayDivergence[] = [];
  // Codemode's nested calls (replay class unknown) are the snippet's own business: only the model's calls are answered.
  if (!options.sessions.forkLog) throw new SteamharnessError("unavailable", `[steamharness] [replay] the ${options.sessions.kind} session backend cannot fork sessions`);
  // The conversation before the run, so the replay's model sees what the original's saw: a fork
  // that reads through to the source's log, so its cost does not grow with the history.
  // Its record names the original, so a viewer can draw the diff (REPLAY-2).
  const record: ReplayRecord = { of: { address: options.source.address, runId }, runId: replayId, tools: options.tools, price: options.price ?? null };
  await options.sessions.forkLog({ from: options.source.address, to: address, throughSeq: started.seq - 1, append: [replayRecordEvent(address.sessionKey, record)] });
  // Its own events are committed in batches (a crash loses only what a rerun re-derives), until a
  // tool with effects runs live: from then on each append commits, as in a normal run (SES-4).
  const target = batchSessionAppends(await options.sessions.open({ address, ownerId: replayId, clock: options.context.clock }), { clock: options.context.clock });
  const toolAnswers = answererOf(runId, options, recordedToolCalls(original).filter((call) => call.replay !== "unknown"), counts, divergences, () => target.writeThrough());
  try {
    const agent = openAgent({
      ...options.agent,
      sessionKey: address.sessionKey,
      sessionStore: target,
      toolAnswers,
      ...(options.model === undefined ? {} : { model: options.model }),
      ...(options.configuration === undefined ? {} : { configuration: options.configuration }),
    });
    const start = started.payload;
    const usage = summedUsage(options.context.tokenUsage, replayId, options.context.clock);
    let error: ReplayResult["error"];
    try {
      const input = { prompt: options.prompt ?? start.prompt, runId: replayId, mode: start.mode as AgentMode, effort: start.effort as AgentEffort };
      for await (const chunk of agent.run(input, { ...options.context, runId: replayId, tokenUsage: usage.recorder })) void chunk;
    } catch (caught) {
      error = { code: isSteamharnessError(caught) ? caught.code : "internal", message: caught instanceof Error ? caught.message : String(caught) };
    }
    await usage.flush();
    const replayFacts = runFacts(await target.readRun(replayId), options.price);
    return {
      runId: replayId,
      address,
      status: replayFacts.status,
      ...(error ? { error } : {}),
      ...counts,
      divergences,
      diff: diffRuns(runFacts(original, options.price), replayFacts),
    };
  } finally {
    await target.close();
  }
}

/** The tool step's answerer of a replay: the recording first, then the mode and the divergence policy. */
function answererOf(runId: string, options: ReplayRunOptions, calls: ReturnType<typeof recordedToolCalls>, counts: { answered: number; live: number }, divergences: ReplayDivergence[], beforeEffect: () => Promise<void>): ToolAnswerer {
  const answers = createRecordingAnswers(calls);
  const policy = options.onDivergence ?? "fail";
  return async (call, tool) => {
    const replay = tool.replay ?? "never";
    const live = async () => {
      counts.live++;
      if (replay !== "safe") await beforeEffect();
      return null;
    };
    if (options.tools === "live" || (options.tools === "live-safe" && replay === "safe")) return live();
    const recorded = answers.take(call.name, call.arguments);
    if (recorded) {
      counts.answered++;
      return recorded;
    }
    const divergence: ReplayDivergence = { toolCallId: call.id, toolName: call.name, arguments: call.arguments, replay };
    divergences.push(divergence);
    const decision = typeof policy === "function" ? await policy(divergence) : policy === "live-safe" ? (replay === "safe" ? "run" : "skip") : "fail";
    if (decision === "run") return live();
    const what = `${call.name}(${JSON.stringify(call.arguments)})`;
    if (decision === "skip") return { isError: true, text: `[approval_denied] ${what} is not in the recording of run ${runId} and was not run (replay)`, details: null };
    throw new SteamharnessError("conflict", `[steamharness] [replay] ${what} is not in the recording of run ${runId}`, { data: { divergence } });
  };
}

/**
 * The replay's project ledger: one entry per provider and model with the replay's summed usage,
 * written after the run, instead of one write per model call (a third of a recorded replay's CPU
 * on SQLite). The ledger's total is the same; each call's usage is still in the replay's session
 * (its `usage` events), which the diff reads. A replay is not resumed, so nothing needs the
 * per-call entries before the run ends.
 */
function summedUsage(ledger: TokenUsageRecorder, replayId: string, clock: Clock): { recorder: TokenUsageRecorder; flush(): Promise<void> } {
  const seen = new Set<string>();
  const sums = new Map<string, TokenUsageEntry>();
  return {
    recorder: {
      async record(entry) {
        if (seen.has(entry.entryId)) return false;
        seen.add(entry.entryId);
        const key = `${entry.provider}\u0000${entry.model}`;
        const sum = sums.get(key) ?? { entryId: `usage-${stableHash(`replay\u0000${replayId}\u0000${key}`)}`, runId: replayId, provider: entry.provider, model: entry.model, at: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
        for (const count of ["input", "output", "cacheRead", "cacheWrite", "total"] as const) sum[count] += entry[count];
        sums.set(key, sum);
        return true;
      },
      total: () => ledger.total(),
      get: (entryId) => ledger.get(entryId),
    },
    async flush() {
      for (const sum of sums.values()) await ledger.record({ ...sum, at: clock.now() });
      sums.clear();
    },
  };
}
