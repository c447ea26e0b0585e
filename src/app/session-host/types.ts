import type { AgentToolFactory, AgentOptions } from "../agent/types.js";
import type { JsonObject } from "../../domain/json.js";
import type { NodeContext } from "../../domain/node-context.js";
import type { OutputItem, OutputItemStreamChunk } from "../../domain/output-items.js";
import type { AgentSessionCommand } from "../../domain/session-host/commands.js";
import type { AgentSessionHostStatus, AgentSessionTaskRecord } from "../../domain/session-host/host-state.js";
import type { SessionBackend } from "../../ports/session-backend.js";

/**
 * Builds the node context of one run of a session host (ARCH-4): the host calls it for each task
 * it runs (`runId`, the task's abort signal) and once for its tools (the host id as `runId`). The
 * entry that opens the host decides what the contexts carry; the host never rebuilds them.
 */
export type AgentSessionContextFactory = (runId: string, signal: AbortSignal) => NodeContext;

/**
 * What the application's session host is opened with: where its sessions live (one value, the
 * session backend), how each run's node context is made (a factory), and every agent option
 * (model, tools, policy, …) except the session store, which the host opens and keeps itself.
 * The library's `createAgentSessionHost` builds it from its options (src/compose/session-host.ts).
 */
export interface AgentSessionHostSetup extends Omit<AgentOptions, "sessionStore" | "createTools" | "databasePath" | "sessionId" | "outputItemId"> {
  /** Reconnect to an existing durable session: recover its unfinished tasks, resubmit nothing (HOST-3). */
  resume?: boolean;
  projectId: string;
  /** The session backend that holds the host's sessions, its lease and its host record. */
  sessions: SessionBackend;
  /** The node context of each run, and of the host's tools. */
  contextFor: AgentSessionContextFactory;
  /** The session key of the main context (default `"agent"`). */
  sessionKey?: string;
  /**
   * Builds the host's tools once, when the host opens; they stay alive between turns and `close`
   * runs when the host closes or suspends (HOST-1). The context is the host's (its `runId` is the
   * host id).
   */
  createTools?: AgentToolFactory;
  /** How often the host reads its durable inbox for commands from other processes (default 50 ms). */
  inboxPollMs?: number;
  /** Runs once when the host has released its lease (close, suspend) or failed to open: what the opener must close with it. */
  onReleased?: () => Promise<void>;
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
  /** UI-5: `into` is the run the message is delivered to at its next step boundary, `null` when nothing ran (then it is a normal turn). */
  | { type: "steer"; taskId: string; runId: string; targetId: number; created: boolean; into: string | null }
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
  /** Receives every output chunk: the runs' items and the `agent-session` snapshot (none with `snapshots: false`: the runs' items only, no snapshot is built for it). Returns an unsubscribe. */
  subscribe(listener: (chunk: OutputItemStreamChunk) => void, options?: { snapshots?: boolean }): () => void;
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
