import { SteamharnessError } from "../../domain/errors.js";
import { contextConfiguration } from "../agent/context-configuration.js";
import type { JsonObject } from "../../domain/json.js";
import type { NodeContext } from "../../domain/node-context.js";
import type { OutputItemStreamChunk } from "../../domain/output-items.js";
import type { SessionStore } from "../../ports/session-store.js";
import type { SessionBackend } from "../../ports/session-backend.js";
import { openAgentSessionHost } from "../session-host/create-agent-session-host.js";
import { liveHost, type RegisteredSessionHost } from "../session-host/registry.js";
import type { AgentSessionHost } from "../session-host/types.js";
import { openAgent } from "../agent/create-agent.js";
import { sessionAddressOf } from "../agent/session-resolver.js";
import type { Agent, AgentCompactInput, AgentCompactResult, AgentInput, AgentInternalOptions, AgentOptions } from "../agent/types.js";
import { agentItemIdPrefix, agentRingItemId } from "../../domain/agent/ids.js";

/** How a node with `session: { … }` runs its turns (EXT-1). */
export interface SessionNodeRunner {
  run(input: AgentInput, context: NodeContext): AsyncIterable<OutputItemStreamChunk>;
  /** A manual compaction (SES-11): through the conversation's host, after its running work. */
  compact(input: AgentCompactInput, context: NodeContext): Promise<AgentCompactResult>;
  /** Closes the hosts the node opened itself (waits for their running work, HOST-2). */
  close(): Promise<void>;
  /**
   * Opens the conversation's host now, as the first build-mode run would (CONV-3), and resolves
   * it; `null` without a conversation or when the live host is one this node did not open.
   */
  open(context: NodeContext): Promise<AgentSessionHost | null>;
}

/** A session store handed to a run that must not close it (the host keeps it open). */
const borrowed = (store: SessionStore): SessionStore => ({
  address: store.address,
  append: (events) => store.append(events),
  readRun: (runId) => store.readRun(runId),
  readAfter: (afterSeq, options) => store.readAfter(afterSeq, options),
  get: (eventId) => store.get(eventId),
  head: () => store.head(),
  putSnapshot: (snapshot) => store.putSnapshot(snapshot),
  close: async () => {},
});

/** Where a node's session host keeps its sessions: the node's `sessions` (ARCH-10, EXT-6), else the run's storage's. */
function hostSessionsOf(options: AgentOptions, context: NodeContext): SessionBackend {
  const sessions = options.sessions ?? context.storage.sessions;
  if (!sessions) throw new SteamharnessError("input_validation", "a session host needs storage.sessions (a session backend)", { field: "storage" });
  return sessions;
}

/**
 * The runner of a node given `session: { … }` (EXT-1): build-mode runs in a conversation go
 * through the conversation's resident session host — the live one of this process, or one the
 * node opens on first use and keeps until `close()` — so the lease, the tools and the model stay
 * alive between turns. Plan-mode runs and gateway runs (`hostInput`) stay plain runs and never
 * take the host's lease (seed): a plan run reads and writes the host's session log through the
 * store the host holds, a gateway run uses its in-memory session (SES-6). Runs outside a
 * conversation have no host to go through and run plainly.
 *
 * The host's runs get the node context of the run in progress (its ports, configuration, log),
 * with the task's run id and signal: the host takes a context factory and never rebuilds a
 * context (ARCH-4), so each turn's approvals go through that turn's `context.toolPermissions` (AG-2).
 *
 * @example
 * const runner = createSessionNodeRunner(options, agent);
 * for await (const chunk of runner.run({ prompt: "next step" }, context)) render(chunk);
 * await runner.close();
 */
export function createSessionNodeRunner(options: AgentInternalOptions, plain: Agent): SessionNodeRunner {
  const opened = new Map<string, Promise<AgentSessionHost>>();
  const current = new Map<string, NodeContext>();
  let planAgent: Agent | null = null;
  let gatewayAgent: Agent | null = null;

  const openHost = (conversationId: string, context: NodeContext): Promise<AgentSessionHost> => {
    let host = opened.get(conversationId);
    if (!host) {
      const { sessions: _sessions, sessionStore: _store, databasePath: _path, sessionId: _id, outputItemId: _answer, sessionKey: _key, ...agentOptions } = options;
      host = openAgentSessionHost(conversationId, {
        ...agentOptions,
        // CONV-3: `session.resume` reopens the conversation's host on what an earlier one left.
        resume: options.session?.resume ?? false,
        projectId: context.projectId,
        sessions: hostSessionsOf(options, context),
        contextFor: (runId, signal) => ({ ...(current.get(conversationId) ?? context), runId, signal }),
        sessionKey: sessionAddressOf(options, context).sessionKey,
        // WF-2: without models of its own the host's runs pick theirs from the configuration
        // snapshot of the node context in progress (each run's own).
        ...(options.configuration === undefined && options.models === undefined ? { configuration: () => contextConfiguration(current.get(conversationId)) } : {}),
      });
      opened.set(conversationId, host);
      host.catch(() => opened.delete(conversationId));
    }
    return host;
  };

  const hostFor = async (context: NodeContext, conversationId: string): Promise<RegisteredSessionHost> => {
    // Set before the host opens: a resumed host may run a recovered task at once, and its
    // approvals and questions go through the ports of the context in progress.
    current.set(conversationId, context);
    if (!liveHost(conversationId)) {
      // No live host (never opened, or one this node opened was closed or suspended since).
      const stale = opened.get(conversationId);
      if (stale) {
        opened.delete(conversationId);
        await stale.catch(() => null);
      }
      await openHost(conversationId, context);
    }
    const host = liveHost(conversationId);
    if (!host) throw new SteamharnessError("unavailable", `[steamharness] conversation ${conversationId} has no session host`);
    return host;
  };

  /**
   * SES-11: the host's `compact` command (it waits for the running task, seed); the chunks the
   * host emitted for this compaction (its row, the ring) are handed back like `agent.compact`'s.
   */
  async function compactViaHost(input: AgentCompactInput, context: NodeContext, conversationId: string): Promise<AgentCompactResult> {
    const host = await hostFor(context, conversationId);
    const seen: OutputItemStreamChunk[] = [];
    const stop = host.subscribe((chunk) => seen.push(chunk));
    try {
      const result = await host.control({ type: "compact", keepLast: input.keepLast ?? 0, ...(input.instructions ? { instructions: input.instructions } : {}) });
      if (result.type !== "compact") throw new SteamharnessError("internal", "[steamharness] [session-host] compact answered with another command's result");
      const own = agentItemIdPrefix(result.runId);
      const ring = agentRingItemId(sessionAddressOf(options, context).sessionKey);
      const id = (chunk: OutputItemStreamChunk) => (chunk.type === "add" ? chunk.item.id : chunk.id);
      return {
        compacted: result.compacted,
        source: result.source,
        ...(result.reason ? { reason: result.reason } : {}),
        summary: result.summary,
        folded: result.folded,
        usage: result.usage as unknown as AgentCompactResult["usage"],
        chunks: seen.filter((chunk) => id(chunk).startsWith(own) || id(chunk) === ring),
      };
    } finally {
      stop();
    }
  }

  async function* viaHost(input: AgentInput, context: NodeContext, conversationId: string): AsyncGenerator<OutputItemStreamChunk, void, undefined> {
    const host = await hostFor(context, conversationId);
    const runInput: JsonObject = {
      ...(input.effort ? { effort: input.effort } : {}),
      ...(input.model ? { model: input.model } : {}),
      ...(input.workdir ? { workdir: input.workdir } : {}),
      ...(input.systemPrompt ? { systemPrompt: input.systemPrompt } : {}),
      ...(input.askResume ? { askResume: { answer: input.askResume.answer, ...(input.askResume.requestId ? { requestId: input.askResume.requestId } : {}), ...(input.askResume.answeredBy ? { answeredBy: { ...input.askResume.answeredBy } } : {}) } } : {}),
    };
    yield* host.run({ runId: input.runId ?? context.runId, prompt: input.prompt, input: runInput, signal: context.signal });
  }

  return {
    run(input, context) {
      const conversationId = context.conversationId;
      const plan = (input.mode ?? options.mode) === "plan";
      if (conversationId === undefined || conversationId === "") return plain.run(input, context);
      if (input.hostInput !== undefined) {
        // A gateway run is never conversation history (SES-6); beside a live host it keeps its
        // in-memory session apart from the storage's, whose lease the host holds.
        if (!liveHost(conversationId)) return plain.run(input, context);
        gatewayAgent ??= openAgent({ ...options, sessionStore: (address, runContext) => runContext.runtime.gatewaySessions(runContext.storage).open({ address, ownerId: input.runId ?? runContext.runId, clock: runContext.clock }) });
        return gatewayAgent.run(input, context);
      }
      if (plan) {
        // A plan run never takes the lease; while a host holds it, the run borrows the host's log.
        const held = liveHost(conversationId)?.mainStore();
        if (!held) return plain.run(input, context);
        planAgent ??= openAgent({ ...options, sessionStore: (_address, runContext) => borrowed(liveHost(runContext.conversationId ?? "")?.mainStore() ?? held) });
        return planAgent.run(input, context);
      }
      return viaHost(input, context, conversationId);
    },
    compact(input, context) {
      const conversationId = context.conversationId;
      if (conversationId === undefined || conversationId === "") return plain.compact(input, context);
      return compactViaHost(input, context, conversationId);
    },
    async open(context) {
      const conversationId = context.conversationId;
      if (conversationId === undefined || conversationId === "") return null;
      await hostFor(context, conversationId);
      const mine = opened.get(conversationId);
      return mine ? mine.catch(() => null) : null;
    },
    async close() {
      const hosts = [...opened.values()];
      opened.clear();
      for (const host of hosts) await (await host.catch(() => null))?.close();
    },
  };
}
