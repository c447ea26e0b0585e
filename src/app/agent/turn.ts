import type { HarnessRuntime } from "../../ports/runtime.js";
import type { AgentTool } from "../../domain/agent-tool.js";
import { wrapAdapterError } from "../../domain/errors.js";
import { completeToolResults } from "../../domain/agent/history.js";
import { promptForModel } from "../../domain/agent/host-input.js";
import { agentAnswerItemId, defaultSessionId, runEventId } from "../../domain/agent/ids.js";
import type { AgentModelSelection } from "../../domain/agent/model-selection.js";
import { createAgentOutputProjector, type AgentOutputProjector } from "../../domain/agent/output-projector.js";
import type { ContextMeter } from "../../domain/agent/context-meter.js";
import { validatePermissionPolicy, type AgentMode } from "../../domain/agent/permission-policy.js";
import { messagesFromEvents, type RunStartedPayload, type SessionEvent, type SessionEventInput } from "../../domain/agent/session-events.js";
import type { JsonObject } from "../../domain/json.js";
import { toolCatalogOf, type NodeContext } from "../../domain/node-context.js";
import type { ModelMessage, ModelProvider } from "../../ports/model-provider.js";
import type { SessionStore } from "../../ports/session-store.js";
import type { TokenCounts } from "../../ports/token-usage.js";
import { redactConfiguration } from "./model-resolver.js";
import { chooseRunModel } from "./run-model.js";
import { createSessionMessagesCache, readSessionMessages, rememberAppended, type SessionIdentity, type SessionMessagesCache } from "./history-cache.js";
import { openSessionStore, sessionAddressOf } from "./session-resolver.js";
import { buildToolRegistry, type AgentToolRegistry } from "./tool-registry.js";
import { sessionEnvironment } from "./extensions/environment.js";
import { openTurnExtensions, type TurnExtensions } from "./extensions/turn-extensions.js";
import type { AgentToolGroup } from "./extensions/types.js";
import type { AgentEffort, AgentInput, AgentOptions, AgentToolSet } from "./types.js";

/** Everything one run works with; built by {@link prepareTurn}. */
export interface Turn {
  runId: string;
  sessionKey: string;
  sessionId: string;
  options: AgentOptions;
  input: AgentInput;
  context: NodeContext;
  store: SessionStore;
  /** Events of this run already in the log, by id; appends add to it. */
  committed: Map<string, SessionEvent>;
  start: RunStartedPayload;
  model: ModelProvider;
  projector: AgentOutputProjector;
  meter: ContextMeter;
  mode: AgentMode;
  effort: AgentEffort;
  registry: AgentToolRegistry;
  /** The registry of a mode; rebuilt when the extensions loaded tools (EXT-3). */
  registryFor(mode: AgentMode): AgentToolRegistry;
  /** The session extension layer of the run: catalogs, tool search, code mode (EXT-3, EXT-4). */
  extensions: TurnExtensions;
  /** The model's context: earlier runs, then this run's messages. */
  messages: ModelMessage[];
  /** Index in `messages` where this run's messages start. */
  turnStart: number;
  toolCallCount: number;
  usage: TokenCounts;
  /**
   * Appends events (idempotently) and remembers them; store faults end the run (SES-5). Events
   * handed to `defer` are committed first, in the same transaction.
   */
  append(events: SessionEventInput[]): Promise<void>;
  /**
   * Holds events for the next `append` instead of committing them now: only for events whose
   * loss in a crash changes nothing (a new run's start and prompt before its first step, the
   * start and result of a tool that is safe to run again). `close()` commits what is still held.
   */
  defer(events: SessionEventInput[]): void;
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
export function runFinishedEvent(turn: Pick<Turn, "runId" | "toolCallCount">): SessionEventInput {
  return { eventId: runEventId(turn.runId, "end"), runId: turn.runId, type: "run_finished", payload: { status: "completed", toolCallCount: turn.toolCallCount } };
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

/** The built-in tools for a workdir, kept per agent: the path guard resolves its roots once. */
function codingToolsFor(cache: AgentCache, runtime: HarnessRuntime, options: AgentOptions, workdir: string, shell: { env?: Record<string, string>; shell?: string } = {}): AgentTool[] {
  const key = JSON.stringify([workdir, options.allowedDirectories ?? [], options.bashTimeoutMs ?? null, shell.env ?? null, shell.shell ?? null]);
  let tools = cache.codingTools.get(key);
  if (!tools) {
    tools = runtime.codingTools({
      workdir,
      ...(options.allowedDirectories ? { allowedDirectories: options.allowedDirectories } : {}),
      ...(options.bashTimeoutMs === undefined ? {} : { bashTimeoutMs: options.bashTimeoutMs }),
      ...(shell.env === undefined ? {} : { env: shell.env }),
      ...(shell.shell === undefined ? {} : { shell: shell.shell }),
    });
    cache.codingTools.set(key, tools);
  }
  return tools;
}

async function toolsOf(options: AgentOptions, context: NodeContext): Promise<{ tools: AgentTool[]; catalogs: AgentToolGroup[]; close: () => Promise<void> }> {
  const created = options.createTools ? await options.createTools(context) : [];
  const set: AgentToolSet = Array.isArray(created) ? { tools: created } : created;
  return { tools: [...(options.extraTools ?? []), ...set.tools], catalogs: set.toolGroups ?? set.catalogs ?? [], close: async () => void (await set.close?.()) };
}

/**
 * Prepares a run: opens the session, reads the run's committed events, fixes what the run uses
 * (from its `run_started` event when resuming: model selection, configuration, mode, workdir —
 * AG-4, CFG-2), records the start and the prompt, and assembles the context and tools.
 *
 * @example
 * const turn = await prepareTurn(options, createAgentCache(), meter, input, context);
 */
export async function prepareTurn(options: AgentOptions, cache: AgentCache, meter: ContextMeter, input: AgentInput, context: NodeContext): Promise<Turn> {
  const runId = input.runId ?? context.runId;
  const address = sessionAddressOf(options, context);
  const { sessionKey } = address;
  const sessionId = options.sessionId ?? defaultSessionId(context.projectId, context.conversationId, sessionKey);
  const { store, owned, identity } = await openSessionStore(options, address, context, input);
  try {
    return await setUpTurn(options, cache, meter, input, context, { runId, sessionKey, sessionId, store, owned, identity });
  } catch (error) {
    if (owned) await store.close().catch(() => undefined);
    throw error;
  }
}

async function setUpTurn(
  options: AgentOptions,
  cache: AgentCache,
  meter: ContextMeter,
  input: AgentInput,
  context: NodeContext,
  session: { runId: string; sessionKey: string; sessionId: string; store: SessionStore; owned: boolean; identity: SessionIdentity | undefined },
): Promise<Turn> {
  const { runId, sessionKey, sessionId, store, owned, identity } = session;
  const guard = <T>(what: string, promise: Promise<T>): Promise<T> => promise.catch((error: unknown) => Promise.reject(wrapAdapterError("session", what, error)));
  const committed = new Map<string, SessionEvent>();
  const deferred: SessionEventInput[] = [];
  for (const event of await guard("reading the run failed", store.readRun(runId))) committed.set(event.eventId, event);
  const startId = runEventId(runId, "start");
  const started = committed.get(startId);
  const saved = started?.type === "run_started" ? started.payload : null;

  const { selection, model, configuration } = await chooseRunModel(options, context, saved, input.model);

  // EXT-5: the session's stable execution target, chosen once (recorded with the first run).
  const chosen = options.session?.environment ? await sessionEnvironment(store, options.session.environment, runId) : null;
  const mode: AgentMode = (saved?.mode as AgentMode | undefined) ?? input.mode ?? options.mode ?? "build";
  const policy = options.permissionPolicy ?? "ask";
  validatePermissionPolicy(policy, mode);
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
  };

  const head = await guard("reading the session head failed", store.head());
  const snapshotState = head.snapshot?.state as { messages?: ModelMessage[] } | null | undefined;
  const earlier = await guard("reading the session failed", readSessionMessages(cache.sessionMessages, identity, store, head));
  const startSeq = started?.seq ?? Number.POSITIVE_INFINITY;
  const history = completeToolResults([...(snapshotState?.messages ?? []), ...messagesFromEvents(earlier.filter((event) => event.runId !== runId && event.seq < startSeq))]);

  const environment = chosen?.environment;
  const coding = codingToolsFor(
    cache,
    context.runtime,
    environment?.allowedDirectories ? { ...options, allowedDirectories: environment.allowedDirectories } : options,
    environment?.workdir ?? start.workdir,
    { ...(environment?.env ? { env: environment.env } : {}), ...(environment?.shell ? { shell: environment.shell } : {}) },
  );
  const catalog = [...toolCatalogOf(context), ...(options.extraToolCatalog ?? [])];
  // The tools' own context carries the same catalog the runtime approves against, so a tool
  // declared only in `extraToolCatalog` that asks the gate itself (CAP-11) is found there.
  const tools = await toolsOf(options, options.extraToolCatalog?.length ? { ...context, toolCatalog: catalog, executor: { tools: catalog } } : context);
  let turn!: Turn;
  const extensions = await openTurnExtensions({ session: options.session, policy, catalogs: tools.catalogs, definitions: catalog, runId, committed, codeSandbox: () => context.runtime.codeSandbox(), view: () => turn }).catch(async (error: unknown) => {
    await tools.close();
    throw error;
  });
  const registries = new Map<string, AgentToolRegistry>();
  const registryFor = (forMode: AgentMode): AgentToolRegistry => {
    const key = `${forMode}:${extensions.version}`;
    let registry = registries.get(key);
    if (!registry) {
      registry = extensions.buildRegistry(forMode, (features, loaded, definitions) =>
        buildToolRegistry({ mode: forMode, policy, coding: coding.map((tool) => extensions.hooks.tool(tool, runId)), extra: tools.tools.map((tool) => extensions.hooks.tool(tool, runId)), catalog: [...catalog, ...definitions], features, loaded, ...(options.tools ? { only: options.tools } : {}) }),
      );
      registries.set(key, registry);
    }
    return registry;
  };

  turn = {
    runId, sessionKey, sessionId, options, input, context, store, committed, start, meter, mode, extensions,
    model: extensions.hooks.model(model, runId),
    effort: start.effort as AgentEffort,
    projector: createAgentOutputProjector({ runId, sessionKey, answerItemId: start.answerItemId, projectId: context.projectId }),
    registry: registryFor(mode),
    registryFor,
    messages: history,
    turnStart: history.length,
    toolCallCount: 0,
    usage: zeroUsage(),
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
        try {
          await extensions.close();
        } finally {
          await tools.close();
        }
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
    turn.defer([{ eventId: startId, runId, type: "run_started", payload: start }, prompt, ...(chosen?.record ? [chosen.record] : [])]);
    turn.messages.push(promptForModel({ role: "user", content: input.prompt }, input.hostInput));
  }
  meter.setTotal(options.modelAttributes?.contextWindow ?? model.descriptor.contextWindow);
  return turn;
}
