/**
 * The library's session-host functions (HOST-1 … HOST-6): the application's, with the entry's
 * runtime: the host's own `runtime`, else one built per call (ARCH-1, ARCH-6). Here, at the edge, the options
 * become the one value the application decides by (ARCH-4): a session backend — the storage's,
 * the given `sessions`, or a SQLite backend for the `agentStoreDir` shorthand, opened here and
 * closed with the host — and a factory of the runs' node contexts.
 */
import { cancelAgentTasks, sendAgentSessionCommand, type AgentSessionStoredCommand } from "../app/session-host/control.js";
import { openAgentSessionHost } from "../app/session-host/create-agent-session-host.js";
import type { AgentSessionCommandResult, AgentSessionHost, AgentSessionHostSetup } from "../app/session-host/types.js";
import { buildNodeContext } from "../app/node-context/node-context.js";
import type { AgentSessionCommand } from "../domain/session-host/commands.js";
import { SteamharnessError } from "../domain/errors.js";
import type { NodeLogger, ToolCatalogEntry } from "../domain/node-context.js";
import type { Clock } from "../ports/clock.js";
import type { HarnessRuntime } from "../ports/runtime.js";
import type { SessionBackend } from "../ports/session-backend.js";
import type { Storage } from "../ports/storage.js";
import type { TokenUsageRecorder } from "../ports/token-usage.js";
import type { ToolPermissions } from "../ports/tool-permissions.js";
import type { UserInput } from "../ports/user-input.js";
import { createHarnessRuntime } from "./runtime.js";

/**
 * Options of `createAgentSessionHost`: where the session lives, how its runs are wired (the
 * node-context ports) and every agent option (model, tools, policy, …) except the session store,
 * which the host opens and keeps itself.
 */
export interface AgentSessionHostOptions extends Omit<AgentSessionHostSetup, "sessions" | "contextFor" | "onReleased"> {
  /** The driven adapters the host's runs use (models, sandbox, coding tools, session defaults); one built for this call when absent (ARCH-1, ARCH-6). */
  runtime?: HarnessRuntime;
  /**
   * The project storage runs see (KV, knowledge, …) and, through `storage.sessions`, where the
   * host's sessions, lease and record live; default an in-memory storage (a host reachable from
   * this process only).
   */
  storage?: Storage;
  /** Where the host's sessions, lease and record live (ARCH-10: the agent's one placement knob); default `storage.sessions`. */
  sessions?: SessionBackend;
  /** SQLite shorthand: keep the sessions, lease and record in this folder instead of `storage.sessions`. */
  agentStoreDir?: string;
  /** The host's tool catalog (CAP-3) for every run. */
  toolCatalog?: ToolCatalogEntry[];
  toolPermissions?: ToolPermissions;
  userInput?: UserInput;
  tokenUsage?: TokenUsageRecorder;
  log?: NodeLogger;
  clock?: Clock;
}

/** Options of {@link controlAgentSession}. */
export interface ControlAgentSessionOptions {
  /**
   * The storage whose session backend holds the conversation's host record: needed to reach a
   * host in another process (or on another machine, with PostgreSQL) through the durable inbox.
   */
  storage?: Storage;
  /** SQLite shorthand for `storage`: the session folder of a SQLite backend. */
  agentStoreDir?: string;
  /** How long to wait for a host in another process to answer (default 5000 ms). */
  timeoutMs?: number;
  /** The adapters behind the `agentStoreDir` shorthand; one built for this call when absent (ARCH-1, ARCH-6). */
  runtime?: HarnessRuntime;
}

/** Options of {@link cancelAgentConversation}. */
export interface CancelAgentConversationOptions {
  /** The storage whose session backend holds the conversation's host record. */
  storage?: Storage;
  /** SQLite shorthand for `storage`: the session folder of a SQLite backend. */
  agentStoreDir?: string;
  conversationId: string;
  /** The adapters behind the `agentStoreDir` shorthand; one built for this call when absent (ARCH-1, ARCH-6). */
  runtime?: HarnessRuntime;
}

/** A session backend chosen at the edge, and how to let it go (a no-op for one the caller owns). */
interface PlacedSessions {
  sessions: SessionBackend;
  release(): Promise<void>;
}

const borrowed = (sessions: SessionBackend): PlacedSessions => ({ sessions, release: async () => {} });

/** The SQLite backend of the `agentStoreDir` shorthand: opened here, closed by `release`. */
async function sqliteShorthand(folder: string, runtime: HarnessRuntime): Promise<PlacedSessions> {
  const sessions = await runtime.sessionsAt(folder);
  return { sessions, release: () => sessions.close() };
}

/**
 * Where a session host's sessions live (ARCH-4, ARCH-10): `sessions` (EXT-6) first, then the
 * `agentStoreDir` shorthand, then `storage.sessions`.
 *
 * @example
 * const placed = await hostSessions(options, storage, runtime);
 */
async function hostSessions(options: Pick<AgentSessionHostOptions, "sessions" | "agentStoreDir">, storage: Storage, runtime: HarnessRuntime): Promise<PlacedSessions> {
  if (options.sessions) return borrowed(options.sessions);
  if (options.agentStoreDir !== undefined) return sqliteShorthand(options.agentStoreDir, runtime);
  if (!storage.sessions) throw new SteamharnessError("input_validation", "a session host needs storage.sessions (a session backend) or agentStoreDir", { field: "storage" });
  return borrowed(storage.sessions);
}

/** Where a command or a cancel reaches a host of another process: `storage.sessions`, else the `agentStoreDir` shorthand. */
async function reachOf(options: { storage?: Storage; agentStoreDir?: string }, runtime: HarnessRuntime): Promise<PlacedSessions | null> {
  if (options.storage?.sessions) return borrowed(options.storage.sessions);
  if (options.agentStoreDir) return sqliteShorthand(options.agentStoreDir, runtime);
  return null;
}

/**
 * Opens a resident session host for a conversation (HOST-1): takes the session's execution lease
 * (one process per session; a second host anywhere gets `session_busy`, HOST-4), keeps tools,
 * session store and model between turns, and serves typed commands from this process and from
 * others through the durable inbox. With `resume: true` it recovers unfinished tasks (HOST-3).
 *
 * @example
 * const host = await createAgentSessionHost("conv-1", { projectId: "demo", storage: createSqliteStorage({ directory }), models });
 * const { taskId } = await host.control({ type: "submit", prompt: "Summarise the notes" });
 * await host.waitForTask(taskId);
 * await host.close();
 */
export async function createAgentSessionHost(conversationId: string, options: AgentSessionHostOptions): Promise<AgentSessionHost> {
  if (typeof conversationId !== "string" || conversationId === "") throw new SteamharnessError("input_validation", "conversationId must be a non-empty string", { field: "conversationId" });
  if (!options?.projectId) throw new SteamharnessError("input_validation", "projectId is required", { field: "projectId" });
  const { runtime: givenRuntime, storage: givenStorage, agentStoreDir: _dir, toolCatalog, toolPermissions: givenPermissions, userInput: givenUserInput, tokenUsage, log, clock, ...setup } = options;
  const runtime = givenRuntime ?? createHarnessRuntime();
  const storage = givenStorage ?? runtime.storage();
  const catalog = toolCatalog ?? [];
  // One approval port and one question port for the host's lifetime, given or not (CAP-11): the
  // tools' context and every run share it, so a decision the runtime obtained is the one a tool
  // asking the gate again sees, and an answer recorded between turns is found by the resumed run.
  const toolPermissions = givenPermissions ?? runtime.toolPermissions();
  const userInput = givenUserInput ?? runtime.userInput();
  const placed = await hostSessions(options, storage, runtime);
  try {
    return await openAgentSessionHost(conversationId, {
      ...setup,
      sessions: placed.sessions,
      contextFor: (runId, signal) =>
        buildNodeContext({ projectId: options.projectId, storage, runId, conversationId, toolCatalog: catalog, signal, toolPermissions, userInput, ...(tokenUsage ? { tokenUsage } : {}), ...(log ? { log } : {}), ...(clock ? { clock } : {}) }, runtime),
      onReleased: placed.release,
    });
  } catch (error) {
    await placed.release().catch(() => undefined);
    throw error;
  }
}

/**
 * Sends a typed command to a conversation's resident host (HOST-1): a host of this process
 * directly, a host elsewhere through the durable inbox of `storage` (or `agentStoreDir`).
 *
 * @example
 * await controlAgentSession("conv-1", { type: "cancel" }, { storage });
 */
export async function controlAgentSession(conversationId: string, command: AgentSessionCommand, options: ControlAgentSessionOptions = {}): Promise<AgentSessionCommandResult | AgentSessionStoredCommand> {
  const placed = await reachOf(options, options.runtime ?? createHarnessRuntime());
  try {
    return await sendAgentSessionCommand(conversationId, command, { ...(placed ? { sessions: placed.sessions } : {}), ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) });
  } finally {
    await placed?.release();
  }
}

/**
 * Clears a conversation's active tasks so that no host revives them (HOST-5). Idempotent.
 *
 * @example
 * await cancelAgentConversation({ storage, conversationId: "conv-1" });
 */
export async function cancelAgentConversation(options: CancelAgentConversationOptions): Promise<{ cancelled: string[] }> {
  if (!options?.storage?.sessions && !options?.agentStoreDir) throw new SteamharnessError("input_validation", "a storage with a session backend (or agentStoreDir) is required", { field: "storage" });
  if (!options.conversationId) throw new SteamharnessError("input_validation", "conversationId is required", { field: "conversationId" });
  const placed = (await reachOf(options, options.runtime ?? createHarnessRuntime()))!;
  try {
    return await cancelAgentTasks(options.conversationId, { sessions: placed.sessions });
  } finally {
    await placed.release();
  }
}
