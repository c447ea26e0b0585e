import type { DecisionAnswerer } from "../../domain/agent/decision-answerer.js";
import type { AgentTool } from "../../domain/agent-tool.js";
import type { AgentBudgetOptions } from "../../domain/budget/budget-options.js";
import type { AgentContextUsage } from "../../domain/agent/context-meter.js";
import type { AgentApiKind, AgentConfigurationSnapshot, AgentModelSelection } from "../../domain/agent/model-selection.js";
import type { AgentMode, AgentPermissionPolicy } from "../../domain/agent/permission-policy.js";
import type { JsonValue } from "../../domain/json.js";
import type { NodeContext, ToolCatalogEntry } from "../../domain/node-context.js";
import type { OutputItem, OutputItemStreamChunk } from "../../domain/output-items.js";
import type { ModelProvider, ModelToolCallBlock } from "../../ports/model-provider.js";
import type { SessionAddress, SessionStore } from "../../ports/session-store.js";
import type { SessionBackend } from "../../ports/session-backend.js";
import type { AgentSessionOptions, AgentToolGroup } from "./extensions/types.js";

export type { AgentMode, AgentPermissionPolicy } from "../../domain/agent/permission-policy.js";

/** How hard a reasoning model thinks (AG-3). Default `medium`. */
export type AgentEffort = "minimal" | "low" | "medium" | "high";

/** Facts about the model the endpoint does not tell (AG-3 `modelAttributes`). */
export interface AgentModelAttributes {
  /** Context window in tokens (for the ring, AG-7); default from the model or 128000. */
  contextWindow?: number;
  /** Whether the model supports the provider's built-in web search (OUT-5). */
  webSearch?: boolean;
  /** Whether the model reasons (then `effort` is sent). */
  reasoning?: boolean;
  /** Output token limit per response. */
  maxTokens?: number;
}

/**
 * What `createTools` may return (AG-5): tools, and a `close` run at the end of the turn. With
 * `session.toolSearch`, also tool groups: tools the model finds through `tool_search` (EXT-3).
 */
export interface AgentToolSet {
  tools: AgentTool[];
  toolGroups?: AgentToolGroup[];
  close?(): void | Promise<void>;
}

/** Builds tools for one run from its context (AG-5). */
export type AgentToolFactory = (context: NodeContext) => AgentTool[] | AgentToolSet | Promise<AgentTool[] | AgentToolSet>;

/** Opens the session store of a session (application-internal; see {@link AgentInternalOptions}). */
export type AgentSessionStoreFactory = (address: SessionAddress, context: NodeContext) => SessionStore | Promise<SessionStore>;

/** Options of `createAgent` (AG-3). Every field is optional. */
export interface AgentOptions {
  /** The directory the coding tools work in (default: the process's working directory). */
  workdir?: string;
  /** Extra directories the file tools may touch besides `workdir`. */
  allowedDirectories?: string[];
  systemPrompt?: string;
  /** Provider name of an explicit endpoint, or a filter on the configured models (AG-4). */
  provider?: string;
  /** A configured entry id, an injected model id, or the model of an explicit endpoint. */
  model?: string;
  /** An explicit endpoint (third-party connection). */
  baseUrl?: string;
  /** The key of an explicit endpoint. Keys are never read from the environment. */
  apiKey?: string;
  apiKind?: AgentApiKind;
  modelAttributes?: AgentModelAttributes;
  /**
   * `false` turns the model's native web search off (OUT-5); per turn, `AgentInput.webSearch`
   * wins. On by default where the model supports it (`modelAttributes.webSearch`, a configured
   * entry's `webSearch`, or the injected provider's descriptor).
   */
  webSearch?: boolean;
  effort?: AgentEffort;
  /** Governs the 7 built-in coding tools (AG-6); default `"ask"`. */
  permissionPolicy?: AgentPermissionPolicy;
  /** `build` (default) or `plan` (read-only research ending in a plan that needs approval). */
  mode?: AgentMode;
  /** When given, only tools with these names are offered (`ask_user` always is). */
  tools?: string[];
  /** Tool catalog entries this agent adds to `context.toolCatalog` for its extra tools (CAP-3). */
  extraToolCatalog?: ToolCatalogEntry[];
  /** Tools besides the built-ins; governed by the host's tool catalog (CAP-3). */
  extraTools?: AgentTool[];
  /** Builds tools for each run (AG-5); `close` runs at the end of the turn, success or failure. */
  createTools?: AgentToolFactory;
  /** The session id reported in the payload; default derived from project, conversation and key. */
  sessionId?: string;
  /** Isolates sessions of several agents in one conversation (default `sessionId`, else `"agent"`). */
  sessionKey?: string;
  /**
   * The id of the `agent-answer` item of host-driven runs (OUT-1): runs whose input carries
   * `hostInput` (the gateway's). Other runs ignore it and keep text parts in place (OUT-2).
   */
  outputItemId?: string;
  /** An injected model set (one model, or models by id). Refused when `allowThirdParty` is false. */
  models?: ModelProvider | Record<string, ModelProvider>;
  /**
   * Builds the provider of a configured or explicit model, instead of the built-in provider
   * adapter: how a host re-authenticates system models with its own account (AG-4).
   */
  createModel?: (selection: Exclude<AgentModelSelection, { source: "injected" }>, context: NodeContext) => ModelProvider | Promise<ModelProvider>;
  /** The project configuration snapshot (`STEAMHARNESS_AGENT_MODELS`, `agentModelPolicy`), or a loader. */
  configuration?: AgentConfigurationSnapshot | ((context: NodeContext) => AgentConfigurationSnapshot | undefined | Promise<AgentConfigurationSnapshot | undefined>);
  /**
   * Where the agent's sessions live (ARCH-10: the one placement knob, as on the session host): a
   * session backend (`storage.sessions` of a SQLite, PostgreSQL or memory storage, or your own).
   * Default: the run's `storage.sessions` for conversation runs when it is durable, else the
   * storage's in-memory sessions (SES-1, SES-6).
   */
  sessions?: SessionBackend;
  /**
   * Shorthand for one explicit durable SQLite file of the session (SES-1, AG-3): a session backend
   * on that file takes the place of the default choice. Ignored when `sessions` is given.
   */
  databasePath?: string;
  /** Automatic retries of one model request (default 10, OUT-3). */
  maxRetries?: number;
  /**
   * Continuations of one answer (default 4, OUT-7): an answer cut at the output token limit is
   * continued, a tool call cut off or lost is asked again; silently, the text joined seamlessly.
   */
  maxContinuations?: number;
  /** Base wait before a retry in ms, doubled per attempt (default 500). */
  retryDelayMs?: number;
  /** Token and money budgets, call limits and what happens at a limit (BUD-2, BUD-3; docs/budgets.md). */
  budget?: AgentBudgetOptions;
  /** Most model requests in one run (default 64); exceeding it fails the run. */
  maxSteps?: number;
  /**
   * Automatic compaction (SES-7), checked before every model request: when the context reaches
   * `threshold` of the window (default 0.9) the model summarises the conversation and the run
   * continues from the summary. `false` turns it off. `summaryTokens` bounds every summary,
   * automatic or manual (`agent.compact`, SES-11; default 2000).
   */
  compaction?: false | { threshold?: number; summaryTokens?: number };
  /** Timeout of one bash command in ms (default 120000). */
  bashTimeoutMs?: number;
  /** The grep tool's hard deadline in ms (default 30000): a regex running longer is stopped (SEC-3). */
  grepTimeoutMs?: number;
  /**
   * The session extension layer (EXT-1 … EXT-6): its storage, tool search, code mode, hooks and
   * tasks, and the execution environment. On a node it also makes runs go through the resident
   * session host (see `docs/session-extensions.md`).
   */
  session?: AgentSessionOptions;
}

/**
 * Agent options as the application uses them: the public options plus `sessionStore`, a session
 * store (or a factory) opened by the caller. The session host hands its contexts' agents the log
 * it holds, and the node's gateway and plan runs borrow theirs, through it. Not public: a host
 * places sessions with `sessions` only (the application builds such agents with `openAgent`).
 */
export interface AgentInternalOptions extends AgentOptions {
  sessionStore?: SessionStore | AgentSessionStoreFactory;
  /** A replay's answers from its recorded run (REPLAY-1, src/app/time-travel/replay.ts). */
  toolAnswers?: ToolAnswerer;
}

/**
 * REPLAY-1: answers a call from a recording instead of approving and running it, as a resumed
 * run answers a committed call from its own log; `null` lets the call run as usual. Throws to
 * fail the run (a divergence the replay's policy refuses).
 */
export type ToolAnswerer = (call: ModelToolCallBlock, tool: AgentTool) => Promise<{ isError: boolean; text: string; details: JsonValue } | null>;

/** The input of one run (turn). Per-turn overrides win over the agent's options. */
export interface AgentInput {
  prompt: string;
  /** The run to execute or resume; default `context.runId`. Re-sending a run id replays it (SES-3). */
  runId?: string;
  /** The answer to a pending `ask_user` question (SES-8), and who gave it (UI-7). */
  askResume?: { requestId?: string; answer: string; answeredBy?: DecisionAnswerer };
  /**
   * Input of a gateway run: makes the run host-driven (the whole turn's text in one `agent-answer`
   * item at `outputItemId`) and keeps its session in memory (SES-6). The model sees it, as a
   * `<host-input>` block before the prompt; the session log records only `prompt`, so it never
   * enters conversation history.
   */
  hostInput?: JsonValue;
  workdir?: string;
  effort?: AgentEffort;
  mode?: AgentMode;
  model?: string;
  systemPrompt?: string;
  /** `false` turns the model's native web search off for this turn (OUT-5). */
  webSearch?: boolean;
  /**
   * UI-5: where messages steered into this run wait (the session host passes its queued steer
   * tasks). At each step boundary — the tool results of a response committed, the next model
   * call not yet made — the run takes `pending()` (oldest first; `[]` when none), commits each as
   * a user message of the run, then calls `delivered` with their ids (again on a replay, so it
   * must be idempotent). Without it a run takes no steered messages.
   */
  steering?: {
    pending(): Promise<Array<{ id: string; text: string }>>;
    delivered(ids: readonly string[]): Promise<void>;
  };
}

/** The node's output (AG-1): values of what this turn actually used. */
export interface AgentOutputPayload {
  errCode: number;
  errMessage: string;
  items: OutputItem[];
  prompt: string;
  workdir: string;
  provider: string;
  model: string;
  effort: AgentEffort;
  agent: AgentMode;
  sessionId: string;
  toolCallCount: number;
  /**
   * The context occupancy at the end of the turn, for programs (the ring item is what hosts
   * show, AG-7). Absent when the run failed before it started.
   */
  contextUsage?: AgentContextUsage;
}

/** The input of a manual compaction (SES-11 `/compact`, the host's `compact` command). */
export interface AgentCompactInput {
  /** What the summary should keep or focus on (`/compact <instructions>`). */
  instructions?: string;
  /** How many recent messages stay verbatim, rounded to an input boundary (default 0: all are summarised). */
  keepLast?: number;
  /** The id the compaction is recorded under; re-sending it applies the stored compaction again (default `context.runId`). */
  runId?: string;
}

/** What a manual compaction did (SES-11). */
export interface AgentCompactResult {
  /** `false` when there was nothing to fold (an empty session, or everything is kept). */
  compacted: boolean;
  /** Who wrote the summary: the session's model, or the mechanical fold because the model failed. */
  source: "model" | "fallback" | null;
  /** Why the model could not write it (`source: "fallback"`). */
  reason?: string;
  summary: string;
  /** How many messages were folded into the summary. */
  folded: number;
  /** The recalibrated context occupancy (AG-7). */
  usage: AgentContextUsage;
  /** The compaction row and the ring, as output items (chunks of a run carry the same). */
  chunks: OutputItemStreamChunk[];
}

/** The agent runtime of `createAgent` (AG-1). */
export interface Agent {
  /**
   * Runs (or resumes) one turn, streaming output items. Throws after the stream on failure:
   * `user_input_required` to pause, `cancelled`, or the error (after an `agent-error` item, SES-9).
   */
  run(input: AgentInput, context: NodeContext): AsyncIterable<OutputItemStreamChunk>;
  /**
   * Compacts the session now (SES-11): the session's own model (the one its latest run used)
   * summarises the transcript with the documented compaction prompt, bounded by
   * `compaction.summaryTokens`; the mechanical fold only when the model fails (the row and the
   * `compaction` event say so). Appends a `compaction` event and writes the snapshot the next
   * run starts from; earlier events stay in the log. Recalibrates the ring. Throws `cancelled`
   * when the context's signal aborts, `session_busy` when a run holds the session.
   */
  compact(input: AgentCompactInput, context: NodeContext): Promise<AgentCompactResult>;
  /** The current context occupancy (AG-7). */
  getContextUsage(): AgentContextUsage;
  /** Replaces the occupancy with an external measurement; resolves the new value. */
  updateContextUsage(update: { used: number; total?: number }): AgentContextUsage;
}
