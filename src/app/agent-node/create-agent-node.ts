import { createOutputStreamAccumulator } from "../../domain/output-stream.js";
import type { NodeContext } from "../../domain/node-context.js";
import type { OutputItem, OutputItemStreamChunk } from "../../domain/output-items.js";
import type { BaseStreamNode } from "../../domain/stream-node.js";
import { createAgent } from "../agent/create-agent.js";
import { createSessionNodeRunner } from "./session-node.js";
import { DEFAULT_HISTORY_LIMIT, readExecutionHistory, type ExecutionRecord } from "../agent/execution-history.js";
import type { Agent, AgentCompactInput, AgentCompactResult, AgentEffort, AgentInput, AgentInternalOptions, AgentMode, AgentOptions, AgentOutputPayload } from "../agent/types.js";
import { SteamharnessError } from "../../domain/errors.js";
import type { AgentContextUsage } from "../../domain/agent/context-meter.js";
import type { AgentSessionHost } from "../session-host/types.js";

/** Options of {@link createAgentNode}: every `createAgent` option plus the node's own (AG-3). */
export interface AgentNodeOptions extends AgentOptions {
  /** The node name (default `"agent"`). */
  name?: string;
  /**
   * Upper bound of the node's execution history (default 50): how many of its newest runs
   * `node.history(context)` lists, read from its durable session (see {@link readExecutionHistory}).
   */
  historyLimit?: number;
}

/** An agent node: a stream node that also exposes its agent (context usage) and its execution history. */
export type AgentNode = BaseStreamNode<AgentInput, OutputItemStreamChunk, AgentOutputPayload, NodeContext> & {
  readonly agent: Agent;
  /** The node's newest runs (at most `historyLimit`), oldest first, from its session log. */
  history(context: NodeContext): Promise<ExecutionRecord[]>;
  /**
   * Compacts the node's session now (SES-11, `/compact`): see `Agent.compact`. With `session`
   * it goes through the conversation's resident host, which waits for its running task first.
   */
  compact(input: AgentCompactInput, context: NodeContext): Promise<AgentCompactResult>;
  /**
   * Closes the resident session hosts this node opened (a node with `session: { … }`, EXT-1):
   * waits for their running work, then releases tools and leases. Nothing to do otherwise.
   */
  close(): Promise<void>;
  /**
   * Opens the conversation's resident session host now, as the node's first build-mode run
   * would (a node with `session: { … }`, CONV-3), and resolves it — with `session.resume` it
   * has recovered what an earlier host left and lists that host's turns. `null` for a node
   * without `session`, a context without a conversation, or a live host this node did not open.
   */
  openSessionHost(context: NodeContext): Promise<AgentSessionHost | null>;
};

export { DEFAULT_HISTORY_LIMIT };

const isContextUsage = (value: unknown): value is AgentContextUsage =>
  typeof value === "object" && value !== null && typeof (value as AgentContextUsage).used === "number" && typeof (value as AgentContextUsage).total === "number";

const asString = (value: unknown, fallback: string): string => (typeof value === "string" ? value : fallback);

/**
 * Folds an agent run's chunks into its payload (AG-1). The values (workdir, model, effort, mode,
 * tool count) come from the run's `agent-session` item: what the turn actually used.
 *
 * @example
 * const payload = agentPayloadFromChunks(chunks, { prompt: "hi" });
 */
export function agentPayloadFromChunks(chunks: readonly OutputItemStreamChunk[], input: AgentInput, fallback: { sessionId?: string; effort?: AgentEffort; mode?: AgentMode } = {}): AgentOutputPayload {
  const accumulator = createOutputStreamAccumulator();
  accumulator.pushAll(chunks);
  const items: OutputItem[] = accumulator.items();
  const session = items.find((item) => item.metadata.kind === "agent-session")?.content as Record<string, unknown> | undefined;
  const error = items.find((item) => item.metadata.kind === "agent-error");
  return {
    errCode: error ? 1 : 0,
    errMessage: error ? asString(error.content, "agent error") : "",
    items,
    prompt: asString(session?.prompt, input.prompt),
    workdir: asString(session?.workdir, input.workdir ?? ""),
    provider: asString(session?.provider, ""),
    model: asString(session?.model, ""),
    effort: asString(session?.effort, input.effort ?? fallback.effort ?? "medium") as AgentEffort,
    agent: asString(session?.agent, input.mode ?? fallback.mode ?? "build") as AgentMode,
    sessionId: asString(session?.sessionId, fallback.sessionId ?? ""),
    toolCallCount: typeof session?.toolCallCount === "number" ? session.toolCallCount : 0,
    ...(isContextUsage(session?.contextUsage) ? { contextUsage: session.contextUsage } : {}),
  };
}

/**
 * The agent as a workflow stream node (AG-1, AG-2): chunks are output items, `finalize` folds
 * them with `createOutputStreamAccumulator` into {@link AgentOutputPayload}. Run it with
 * `runStreamNode`. Tool approval goes through `context.toolPermissions`, plan approval and
 * questions through `context.userInput`, usage through `context.tokenUsage`.
 *
 * @example
 * const node = createAgentNode({ name: "agent", models: createOfflineModel({ steps }) });
 * const { output } = await runStreamNode(node, { prompt: "Summarise the notes" }, context);
 */
export function createAgentNode(options: AgentNodeOptions = {}): AgentNode {
  const { name = "agent", historyLimit = DEFAULT_HISTORY_LIMIT, ...agentOptions } = options;
  if (!Number.isInteger(historyLimit) || historyLimit < 1) {
    throw new SteamharnessError("input_validation", `historyLimit must be an integer ≥ 1 (got ${String(historyLimit)})`, { field: "historyLimit" });
  }
  const agent = createAgent(agentOptions);
  // Tests and the application may hand a node an opened session store (AgentInternalOptions).
  const internal: AgentInternalOptions = agentOptions;
  // EXT-1: with `session`, build-mode conversation runs go through the resident session host.
  const runner = agentOptions.session ? createSessionNodeRunner(agentOptions, agent) : null;
  return {
    name,
    agent,
    // How each run ended is in its session log (`run_finished` / `run_stopped`), the node's
    // execution history (seed: the durable session is the only record of what ran).
    stream: (input, context) => (runner ? runner.run(input, context) : agent.run(input, context)),
    close: async () => runner?.close(),
    openSessionHost: async (context) => (runner ? runner.open(context) : null),
    compact: (input, context) => (runner ? runner.compact(input, context) : agent.compact(input, context)),
    history: (context) =>
      readExecutionHistory(context, {
        limit: historyLimit,
        ...(options.sessionKey === undefined ? {} : { sessionKey: options.sessionKey }),
        ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
        ...(options.databasePath === undefined ? {} : { databasePath: options.databasePath }),
        ...(options.sessions === undefined ? {} : { sessions: options.sessions }),
        ...(internal.sessionStore === undefined ? {} : { sessionStore: internal.sessionStore }),
      }),
    finalize: (chunks, _context, input) =>
      agentPayloadFromChunks(chunks, input, {
        ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
        ...(options.effort === undefined ? {} : { effort: options.effort }),
        ...(options.mode === undefined ? {} : { mode: options.mode }),
      }),
  };
}
