import type { AgentTool } from "../../domain/agent-tool.js";
import { wrapAdapterError } from "../../domain/errors.js";
import { completeToolResults } from "../../domain/agent/history.js";
import { promptForModel } from "../../domain/agent/host-input.js";
import { agentAnswerItemId, defaultSessionId, runEventId } from "../../domain/agent/ids.js";
import type { AgentModelSelection } from "../../domain/agent/model-selection.js";
import { createAgentOutputProjector } from "../../domain/agent/output-projector.js";
import type { ContextMeter } from "../../domain/agent/context-meter.js";
import { validatePermissionPolicy, type AgentMode, type AgentPermissionPolicy } from "../../domain/agent/permission-policy.js";
import { messagesFromEvents, type RunStartedPayload, type SessionEvent, type SessionEventInput } from "../../domain/agent/session-events.js";
import type { JsonObject } from "../../domain/json.js";
import type { NodeContext } from "../../domain/node-context.js";
import type { ModelMessage, ModelProvider } from "../../ports/model-provider.js";
import type { SessionStore } from "../../ports/session-store.js";
import type { TokenCounts } from "../../ports/token-usage.js";
import { redactConfiguration } from "./model-resolver.js";
import { chooseRunModel } from "./run-model.js";
import { createRunBudget, type RunBudget } from "./run-budget.js";
import { createSessionMessagesCache, readSessionMessages, rememberAppended, type SessionIdentity, type SessionMessagesCache } from "./history-cache.js";
import { openSessionStore, sessionAddressOf } from "./session-resolver.js";
import type { AgentToolRegistry } from "./tool-registry.js";
import { openTurnTools } from "./turn-tools.js";
import type { RunLog, RunOutput, RunTelemetry, RunUsage } from "./turn-parts.js";
import { sessionEnvironment } from "./extensions/environment.js";
import type { TurnExtensions } from "./extensions/turn-extensions.js";
import type { AgentSessionEnvironment } from "./extensions/types.js";
import type { AgentEffort, AgentInput, AgentInternalOptions, AgentOptions, ToolAnswerer } from "./types.js";
import type { TelemetryRun } from "../../ports/telemetry.js";
import { openRunTelemetry, type RunTelemetryInput } from "./run-telemetry.js";

/**
 * Everything one run works with; built by {@link prepareTurn}. The steps take the parts they use
 * (`turn-parts.ts`); the loop hands them the turn itself.
 */
export interface Turn extends RunLog, RunOutput, RunUsage, RunTelemetry {
  sessionKey: string;
  sessionId: string;
  options: AgentOptions;
  input: AgentInput;
  context: NodeContext;
  store: SessionStore;
  start: RunStartedPayload;
  model: ModelProvider;
  mode: AgentMode;
  effort: AgentEffort;
  registry: AgentToolRegistry;
  /** The registry of a mode; rebuilt when the extensions loaded tools (EXT-3). */
  registryFor(mode: AgentMode): AgentToolRegistry;
  /** The session extension layer of the run: catalogs, tool search, code mode (EXT-3, EXT-4). */
  extensions: TurnExtensions;
  /** A replay's answers from its recorded run (REPLAY-1). */
  toolAnswers?: ToolAnswerer | undefined;
  /** The model's context: earlier runs, then this run's messages. */
  messages: ModelMessage[];
  /** Index in `messages` where this run's messages start. */
  turnStart: number;
  toolCallCount: number;
  /** The run's budget (BUD-2), or null without one. */
  budget: RunBudget | null;
  /** Commits what `defer` still holds, then closes the tools and (when owned) the store. */
  close(): Promise<void>;
}

/** What an agent keeps between its runs: the built-in tools per workdir. */
export interface AgentCache {
  codingTools: Map<string, AgentTool[]>;
  /** Message events of sessions this agent ran, so the next run reads only what was appended since. */
  sessionMessages: SessionMessagesCache;
}

/**
 * The event that ends a completed run.
 *
 * @example
 * await turn.append([runFinishedEvent(turn)]);
 */
export function runFinishedEvent(turn: { readonly runId: string; readonly toolCallCount: number; readonly budget?: Pick<RunBudget, "view"> | null }): SessionEventInput {
  return { eventId: runEventId(turn.runId, "end"), runId: turn.runId, type: "run_finished", payload: { status: "completed", toolCallCount: turn.toolCallCount, ...(turn.budget ? { budget: turn.budget.view() } : {}) } };
}

/**
 * A fresh per-agent cache.
 *
 * @example
 * const cache = createAgentCache();
 */
export function createAgentCache(): AgentCache {
  return { codingTools: new Map(), sessionMessages: createSessionMessagesCache() };
}

const zeroUsage = (): TokenCounts => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 });

function savedSelection(selection: AgentModelSelection): JsonObject {
  if (selection.source === "injected") return { source: "injected", id: selection.id };
  if (selection.source === "explicit") {
    const { apiKey: _key, ...rest } = selection;
    return rest as unknown as JsonObject;
  }
  const { apiKey: _key, ...entry } = selection.entry;
  return { source: "configured", entry: entry as unknown as JsonObject };
}

/**
 * Prepares a run: opens the session, reads the run's committed events, fixes what the run uses
 * (from its `run_started` event when resuming: model selection, configuration, mode, workdir —
 * AG-4, CFG-2), records the start and the prompt, and assembles the context and tools.
 *
 * @example
 * const turn = await prepareTurn(options, createAgentCache(), meter, input, context);
 */
export async function prepareTurn(options: AgentInternalOptions, cache: AgentCache, meter: ContextMeter, input: AgentInput, context: NodeContext): Promise<Turn> {
  const runId = input.runId ?? context.runId;
  const address = sessionAddressOf(options, context);
  const { sessionKey } = address;
  const sessionId = options.sessionId ?? defaultSessionId(context.projectId, context.conversationId, sessionKey);
  const { store, owned, identity, leasedAt } = await openSessionStore(options, address, context, input);
  try {
    return await setUpTurn(options, cache, meter, input, context, { runId, sessionKey, sessionId, store, owned, identity, ...(leasedAt === undefined ? {} : { leased: { address, startedAt: leasedAt } }) });
  } catch (error) {
    if (owned) await store.close().catch(() => undefined);
    throw error;
  }
}

/** What the session and model setup fixes for a run (AG-4, CFG-2, EXT-5). */
interface RunSession {
  /** The run's committed events, by id. */
  committed: Map<string, SessionEvent>;
  /** The run's recorded start when it resumes, else `null`. */
  saved: RunStartedPayload | null;
  start: RunStartedPayload;
  model: ModelProvider;
  mode: AgentMode;
  policy: AgentPermissionPolicy;
  /** The session's execution target and, for its first run, the event recording it. */
  chosen: { environment: AgentSessionEnvironment; record: SessionEventInput | null } | null;
  /** The model's context from earlier runs (snapshot, then messages before this run). */
  history: ModelMessage[];
  /** What the run reports (OBS-2); its root is stored with a new run's start (OBS-4). */
  telemetry: TelemetryRun;
}

type OpenedSession = { runId: string; sessionKey: string; sessionId: string; store: SessionStore; owned: boolean; identity: SessionIdentity | undefined; leased?: RunTelemetryInput["leased"] };

const guard = <T>(what: string, promise: Promise<T>): Promise<T> => promise.catch((error: unknown) => Promise.reject(wrapAdapterError("session", what, error)));

/**
 * The model and session half of a run's setup: reads the run's committed events, chooses the
 * model (from its `run_started` event when resuming), the mode, the environment and the start
 * payload, and reads the session's earlier context.
 */
async function setUpRunSession(options: AgentOptions, cache: AgentCache, input: AgentInput, context: NodeContext, session: OpenedSession): Promise<RunSession> {
  const { runId, sessionKey, sessionId, store, identity, leased } = session;
  const committed = new Map<string, SessionEvent>();
  for (const event of await guard("reading the run failed", store.readRun(runId))) committed.set(event.eventId, event);
  const started = committed.get(runEventId(runId, "start"));
  const saved = started?.type === "run_started" ? started.payload : null;

  const { selection, model, configuration } = await chooseRunModel(options, context, saved, input.model);

  // EXT-5: the session's stable execution target, chosen once (recorded with the first run).
  const chosen = options.session?.environment ? await sessionEnvironment(store, options.session.environment, runId, (path) => context.runtime.directoryExists(path)) : null;
  const mode: AgentMode = (saved?.mode as AgentMode | undefined) ?? input.mode ?? options.mode ?? "build";
  const policy = options.permissionPolicy ?? "ask";
  validatePermissionPolicy(policy, mode);
  const telemetry = openRunTelemetry(context, { runId, sessionId, sessionKey, provider: saved?.provider ?? model.descriptor.provider, model: saved?.model ?? model.descriptor.model, committed, stored: saved?.trace, resuming: saved !== null, ...(leased ? { leased } : {}) });
  const root = saved ? null : telemetry.root();
  const start: RunStartedPayload = saved ?? {
    prompt: input.prompt,
    mode,
    workdir: chosen?.environment.workdir ?? input.workdir ?? options.workdir ?? process.cwd(),
    effort: input.effort ?? options.effort ?? "medium",
    provider: model.descriptor.provider,
    model: model.descriptor.model,
    modelSource: savedSelection(selection),
    configuration: redactConfiguration(configuration),
    // Only host-driven runs (a gateway run carries `hostInput`) write the turn into one
    // `agent-answer` item; every other run keeps its text where it was spoken (OUT-1, OUT-2).
    answerItemId: input.hostInput === undefined ? null : (options.outputItemId ?? agentAnswerItemId(sessionKey)),
    // The start event is committed with the first step; the viewer's timeline starts here (VIEW-7).
    startedAt: context.clock.now(),
    ...(root ? { trace: root } : {}),
  };

  const head = await guard("reading the session head failed", store.head());
  const snapshotState = head.snapshot?.state as { messages?: ModelMessage[] } | null | undefined;
  const earlier = await guard("reading the session failed", readSessionMessages(cache.sessionMessages, identity, store, head));
  const startSeq = started?.seq ?? Number.POSITIVE_INFINITY;
  const history = completeToolResults([...(snapshotState?.messages ?? []), ...messagesFromEvents(earlier.filter((event) => event.runId !== runId && event.seq < startSeq))]);
  return { committed, saved, start, model, mode, policy, chosen, history, telemetry };
}

/** Assembles the run from its session half and its tools half (the two halves of its setup). */
async function setUpTurn(options: AgentOptions, cache: AgentCache, meter: ContextMeter, input: AgentInput, context: NodeContext, session: OpenedSession): Promise<Turn> {
  const { runId, sessionKey, sessionId, store, owned, identity } = session;
  const { committed, saved, start, model, mode, policy, chosen, history, telemetry } = await setUpRunSession(options, cache, input, context, session);
  const deferred: SessionEventInput[] = [];
  let turn!: Turn;
  const tools = await openTurnTools({ options, context, codingTools: cache.codingTools, runId, policy, workdir: start.workdir, environment: chosen?.environment, committed, view: () => turn }).catch((error: unknown) => {
    telemetry.finish({ status: "failed", error: "setup_failed" });
    throw error;
  });

  const budget = await createRunBudget(options.budget, context, runId, sessionKey, model.descriptor);
  turn = {
    runId, sessionKey, sessionId, options, input, context, store, committed, start, meter, mode, budget,
    extensions: tools.extensions,
    toolAnswers: (options as AgentInternalOptions).toolAnswers,
    model: tools.extensions.hooks.model(model, runId),
    effort: start.effort as AgentEffort,
    projector: createAgentOutputProjector({ runId, sessionKey, answerItemId: start.answerItemId, projectId: context.projectId }),
    registry: tools.registryFor(mode),
    registryFor: tools.registryFor,
    messages: history,
    turnStart: history.length,
    toolCallCount: 0,
    usage: zeroUsage(),
    telemetry,
    async append(events) {
      const all = deferred.length === 0 ? events : [...deferred.splice(0), ...events];
      const fresh = all.filter((event) => !committed.has(event.eventId));
      if (fresh.length === 0) return;
      const result = await guard("appending to the session failed", store.append(fresh));
      for (const event of result.events) committed.set(event.eventId, event);
    },
    defer(events) {
      deferred.push(...events);
    },
    async close() {
      try {
        // A run that ends before its first step (cancelled, failed) still records its prompt.
        if (deferred.length > 0) await turn.append([]).catch(() => undefined);
        rememberAppended(cache.sessionMessages, identity, committed.values());
        await tools.close();
      } finally {
        if (owned) await store.close();
      }
    },
  };
  if (saved) {
    const prompt = committed.get(runEventId(runId, "prompt"));
    if (prompt?.type === "user_message") turn.messages.push(promptForModel(prompt.payload.message, input.hostInput));
  } else {
    // A new run's start and prompt are committed with its first step (the model's response, a
    // compaction, or at the latest when the run ends): a crash before that leaves nothing, and
    // re-running the run id starts it afresh — nothing has happened that could be lost.
    const prompt: SessionEventInput = { eventId: runEventId(runId, "prompt"), runId, type: "user_message", payload: { message: { role: "user", content: input.prompt } } };
    turn.defer([{ eventId: runEventId(runId, "start"), runId, type: "run_started", payload: start }, prompt, ...(chosen?.record ? [chosen.record] : [])]);
    turn.messages.push(promptForModel({ role: "user", content: input.prompt }, input.hostInput));
  }
  meter.setTotal(options.modelAttributes?.contextWindow ?? model.descriptor.contextWindow);
  return turn;
}
