/**
 * The session extension layer (EXT-1 … EXT-6): what a host puts in `session: { … }` on
 * `createAgentNode`, `createAgent` and `createAgentSessionHost`.
 */
import type { AgentTool } from "../../../domain/agent-tool.js";
import type { JsonObject, JsonValue } from "../../../domain/json.js";
import type { ModelRequest } from "../../../ports/model-provider.js";

/**
 * A tool group: a named, authorized group of tools whose schemas are not sent to the model up
 * front (EXT-3), say one MCP server with 40 tools. The model finds them through `tool_search`;
 * the group is connected (`connect()`) only when one of its tools is found or called, once per
 * run. (Not the host's tool catalog, `NodeContext.toolCatalog`, which says which tools are
 * declared and approved; a group's tools are declared there like any other.)
 */
export interface AgentToolGroup {
  /** The group's name (shown with search results). */
  name: string;
  /** What the group is about; searched with its tools' descriptions. */
  description?: string;
  /** The names and descriptions of its tools: what `tool_search` ranks without connecting. */
  entries: ReadonlyArray<{ name: string; description: string }>;
  /** Connects and resolves the real tools (schemas and `execute`); called at most once per run. */
  connect(): Promise<AgentTool[]> | AgentTool[];
  /** Releases the connection; runs at the end of the turn when `connect` was called. */
  close?(): void | Promise<void>;
}

/** `session.toolSearch` (EXT-3). */
export interface AgentToolSearchOptions {
  /**
   * Most tools one search returns and loads (default 3, at least 1). The host's choice, not the
   * model's: `tool_search` takes only a query, because every loaded schema rides along with each
   * later request of the run.
   */
  maxResults?: number;
}

/** `session.codeMode` (EXT-4): the limits of one `codemode` snippet. */
export interface AgentCodeModeOptions {
  /** Wall time of one snippet in ms, nested tool calls included (default 30000). */
  timeoutMs?: number;
  /** Memory of the sandbox in bytes (default 64 MiB). */
  memoryBytes?: number;
  /** Most characters of the snippet's output (return value plus console output, default 20000). */
  maxOutputChars?: number;
  /** Most nested tool calls in one snippet (default 50). */
  maxToolCalls?: number;
}

/** What a `beforeToolCall` hook may decide (EXT-2). */
export type AgentToolCallDecision = void | undefined | { deny: string } | { arguments: JsonObject };

/** The tool call a hook sees. `parentToolCallId` is set for a codemode snippet's nested call. */
export interface AgentHookToolCall {
  runId: string;
  toolCallId: string;
  name: string;
  arguments: JsonObject;
  parentToolCallId?: string;
}

/**
 * Hooks of `session.registry` (EXT-2). Hooks of one kind run in registration order; a hook that
 * throws fails the run with an `agent-error` (code `hook_failed`), never silently. Hooks run
 * live only: work replayed from the session log (committed model responses and tool results) is
 * not hooked again.
 */
export interface AgentSessionHooks {
  /** Before each live model request; may not change it. */
  beforeModelRequest?(event: { runId: string; step: number; request: ModelRequest }): void | Promise<void>;
  /** After each committed model response. */
  afterModelResponse?(event: { runId: string; step: number; toolCalls: number; stopReason: string }): void | Promise<void>;
  /** Before a live tool call: `{ deny: reason }` refuses it (the model gets the reason), `{ arguments }` rewrites them. */
  beforeToolCall?(call: AgentHookToolCall): AgentToolCallDecision | Promise<AgentToolCallDecision>;
  /** After a live tool call, with its result. */
  afterToolCall?(call: AgentHookToolCall & { isError: boolean; text: string }): void | Promise<void>;
  /** When the run pauses for a person (`user_input_required`). */
  onPause?(event: { runId: string; requestId: string; request: Record<string, unknown> }): void | Promise<void>;
  /** When the run ends: completed, failed or cancelled (not when it pauses). */
  onRunEnd?(event: { runId: string; status: "completed" | "failed" | "cancelled"; error?: string }): void | Promise<void>;
}

/** What a background task of a session gets (EXT-2). */
export interface AgentSessionTaskContext {
  /** Aborted when the session is cancelled, suspended or closed. */
  signal: AbortSignal;
  /** The task's last saved state (`null` the first time). */
  state: JsonValue | null;
  /** Saves the task's state durably; a resumed host hands it back. */
  save(state: JsonValue): Promise<void>;
}

/** A named background job a session host runs under its lease (EXT-2). */
export interface AgentSessionTask {
  name: string;
  run(context: AgentSessionTaskContext): Promise<void>;
}

/** `session.registry` (EXT-2): hooks for every run and background tasks of the session host. */
export interface AgentSessionRegistry {
  hooks?: AgentSessionHooks[];
  tasks?: AgentSessionTask[];
}

/** `session.environment` (EXT-5): the stable execution target of the coding tools. */
export interface AgentSessionEnvironment {
  /** The directory the coding tools work in. */
  workdir: string;
  /** Directories the file tools may touch besides `workdir`. */
  allowedDirectories?: string[];
  /** Environment variables of `bash` (added to a minimal PATH/HOME). */
  env?: Record<string, string>;
  /** The shell `bash` runs (default `bash`). */
  shell?: string;
}

/**
 * The `session: { … }` option (EXT-1 … EXT-6). On a node it makes runs go through the resident
 * session host; on `createAgent` and `createAgentSessionHost` it turns the features on.
 */
export interface AgentSessionOptions {
  /** `tool_search` over the tool groups of `createTools` (EXT-3); `tool_search` must be permitted. */
  toolSearch?: AgentToolSearchOptions;
  /** The `codemode` tool (EXT-4); `codemode` must be permitted. */
  codeMode?: AgentCodeModeOptions;
  /** Hooks and background tasks (EXT-2). */
  registry?: AgentSessionRegistry;
  /** The stable execution target of the coding tools (EXT-5). */
  environment?: AgentSessionEnvironment;
  /**
   * Open the conversation's host with `resume: true` (HOST-3): it recovers the tasks an earlier
   * host left unfinished and lists that host's turns (default false; `steamharness chat` sets it,
   * CONV-3).
   */
  resume?: boolean;
}
