import type { HarnessRuntime } from "../../ports/runtime.js";
import type { AgentToolFactory, AgentOptions } from "../agent/types.js";
import type { JsonObject } from "../../domain/json.js";
import type { NodeLogger, ToolPermissionDefinition } from "../../domain/node-context.js";
import type { OutputItem, OutputItemStreamChunk } from "../../domain/output-items.js";
import type { AgentSessionCommand } from "../../domain/session-host/commands.js";
import type { AgentSessionHostStatus, AgentSessionTaskRecord } from "../../domain/session-host/host-state.js";
import type { Clock } from "../../ports/clock.js";
import type { Storage } from "../../ports/storage.js";
import type { TokenUsageRecorder } from "../../ports/token-usage.js";
import type { ToolPermissions } from "../../ports/tool-permissions.js";
import type { UserInput } from "../../ports/user-input.js";

/**
 * Options of `createAgentSessionHost`: where the session lives, how its runs are wired (the
 * node-context ports) and every agent option (model, tools, policy, …) except the session store,
 * which the host opens and keeps itself.
 */
export interface AgentSessionHostOptions extends Omit<AgentOptions, "sessionStore" | "createTools" | "databasePath" | "sessionId" | "outputItemId"> {
  /** Reconnect to an existing durable session: recover its unfinished tasks, resubmit nothing (HOST-3). */
  resume?: boolean;
  projectId: string;
  /** The driven adapters the host's runs use (models, sandbox, coding tools, session defaults); the library's runtime when absent (ARCH-1). */
  runtime?: HarnessRuntime;
  /**
   * The project storage runs see (KV, knowledge, …) and, through `storage.sessions`, where the
   * host's sessions, lease and record live; default an in-memory storage (a host reachable from
   * this process only).
   */
  storage?: Storage;
  /** SQLite shorthand: keep the sessions, lease and record in this folder instead of `storage.sessions`. */
  agentStoreDir?: string;
  /** The session key of the main context (default `"agent"`). */
  sessionKey?: string;
  /** The host's tool catalog (`executor.tools`, CAP-3) for every run. */
  executorTools?: ToolPermissionDefinition[];
  toolPermissions?: ToolPermissions;
  userInput?: UserInput;
  tokenUsage?: TokenUsageRecorder;
  log?: NodeLogger;
  clock?: Clock;
  /**
   * Builds the host's tools once, when the host opens; they stay alive between turns and `close`
   * runs when the host closes or suspends (HOST-1). The context is the host's (its `runId` is the
   * host id).
   */
  createTools?: AgentToolFactory;
  /** How often the host reads its durable inbox for commands from other processes (default 50 ms). */
  inboxPollMs?: number;
}

/** What a command resolves (the inbox carries the same JSON back to another process). */
export type AgentSessionCommandResult =
  | { type: "submit"; taskId: string; runId: string; targetId: number; created: boolean }
  | { type: "cancel"; cancelled: string[] }
  | {
      type: "compact";
      targetId: number;
      compacted: boolean;
      usage: JsonObject;
      /** Who wrote the summary (SES-11): the session's model, or the mechanical fold because the model failed. */
      source: "model" | "fallback" | null;
      /** Why the model failed (`source: "fallback"`). */
      reason?: string;
      summary: string;
      /** How many messages were folded into the summary. */
      folded: number;
      /** The run id the compaction is recorded under in the context's session (its `compaction` event and rows). */
      runId: string;
    }
  | { type: "reset"; targetId: number; usage: JsonObject }
  | { type: "fork"; targetId: number; sourceTargetId: number; usage: JsonObject }
  | { type: "continue"; taskId: string }
  | { type: "select"; targetId: number };

/** A background job a host waits for before `close()` releases it. */
export type AgentSessionBackgroundWork = (signal: AbortSignal) => Promise<unknown>;

/** A resident session host (HOST-1 … HOST-6). */
export interface AgentSessionHost {
  readonly conversationId: string;
  /** A unique id of this host instance (the lease owner). */
  readonly hostId: string;
  status(): AgentSessionHostStatus;
  /** Runs a command here (what `controlAgentSession` does for a host in this process). */
  control(command: AgentSessionCommand): Promise<AgentSessionCommandResult>;
  /** Receives every output chunk: the runs' items and the `agent-session` snapshot. Returns an unsubscribe. */
  subscribe(listener: (chunk: OutputItemStreamChunk) => void): () => void;
  /** The current `agent-session` snapshot item (HOST-6). */
  snapshot(): Promise<OutputItem>;
  /** Every task of the session, in submission order. */
  tasks(): Promise<AgentSessionTaskRecord[]>;
  /** Resolves when the task is no longer queued or running (it may be waiting, or final). */
  waitForTask(taskId: string): Promise<AgentSessionTaskRecord>;
  /** Resolves when nothing is runnable: no task running, none queued (or the queue is held by a waiting task). */
  idle(): Promise<void>;
  /** Runs work the host must finish before `close()` releases it (HOST-2). */
  runInBackground(work: AgentSessionBackgroundWork): Promise<unknown>;
  /**
   * Stops scheduling in this process now: the running task is interrupted without any cancel
   * mark, pending input, checkpoints and committed text stay; then tools and the lease are
   * released. A host opened with `resume: true` continues the task (HOST-2, HOST-3).
   */
  suspend(): Promise<void>;
  /** Waits for running and queued work and background jobs, then releases tools and the lease (HOST-2). */
  close(): Promise<void>;
}
