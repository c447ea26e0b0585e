import type { TelemetryRun } from "../../ports/telemetry.js";
import type { AgentOutputProjector } from "../../domain/agent/output-projector.js";
import type { ContextMeter } from "../../domain/agent/context-meter.js";
import type { AgentMode } from "../../domain/agent/permission-policy.js";
import type { SessionEvent, SessionEventInput } from "../../domain/agent/session-events.js";
import type { NodeContext } from "../../domain/node-context.js";
import type { ModelMessage, ModelProvider } from "../../ports/model-provider.js";
import type { SessionStore } from "../../ports/session-store.js";
import type { TokenCounts } from "../../ports/token-usage.js";
import type { RunHooks } from "./extensions/hooks.js";
import type { RunBudget } from "./run-budget.js";
import type { AgentToolRegistry } from "./tool-registry.js";
import type { AgentEffort, AgentInput, AgentOptions, ToolAnswerer } from "./types.js";

/*
 * The parts of a run that its steps use. A step names the parts it reads (and the fields it
 * changes) instead of taking the whole `Turn`; the turn itself satisfies every one of them, so
 * the loop hands it over as it is and a step's changes are the run's.
 */

/** The run's event log: what is committed, and how to add to it (SES-5). */
export interface RunLog {
  readonly runId: string;
  /** Events of this run already in the log, by id; appends add to it. */
  readonly committed: Map<string, SessionEvent>;
  /**
   * Appends events (idempotently) and remembers them; store faults end the run (SES-5). Events
   * handed to `defer` are committed first, in the same transaction.
   */
  append(events: SessionEventInput[]): Promise<void>;
  /**
   * Holds events for the next `append` instead of committing them now: only for events whose
   * loss in a crash changes nothing (a new run's start and prompt before its first step, the
   * start and result of a tool that is safe to run again).
   */
  defer(events: SessionEventInput[]): void;
}

/** Where a step's output goes: the projector of the run's items and the context meter. */
export interface RunOutput {
  readonly projector: AgentOutputProjector;
  readonly meter: ContextMeter;
}

/** Where the run reports its model calls, tool calls, waits, compactions and retries (OBS-2). */
export interface RunTelemetry {
  readonly telemetry: TelemetryRun;
}

/** The run's token usage so far, added to in place by the steps that commit usage. */
export interface RunUsage {
  readonly usage: TokenCounts;
}

/** What a model step uses (AG-2, OUT-3, OUT-5, OUT-7). */
export interface ModelStepRun extends RunLog, RunOutput, RunUsage, RunTelemetry {
  readonly context: Pick<NodeContext, "signal" | "clock" | "tokenUsage" | "log">;
  readonly options: Pick<AgentOptions, "maxRetries" | "maxContinuations" | "retryDelayMs" | "systemPrompt" | "webSearch" | "modelAttributes">;
  readonly input: Pick<AgentInput, "systemPrompt" | "webSearch">;
  readonly model: ModelProvider;
  readonly effort: AgentEffort;
  readonly mode: AgentMode;
  /** The tools offered with the request (specs) and their replay rules (intents). */
  readonly registry: Pick<AgentToolRegistry, "specs" | "get">;
  /** The model's context: earlier runs, then this run's messages. */
  readonly messages: readonly ModelMessage[];
  /** Counted up by the web searches the model ran (OUT-5). */
  toolCallCount: number;
  /** The run's budget: reserved before each call, settled on its usage (BUD-2). */
  readonly budget: RunBudget | null;
}

/** What a tool step uses (SES-4, SES-8, CAP-3, CAP-11, EXT-2). */
export interface ToolStepRun extends RunLog, RunOutput, RunTelemetry {
  readonly context: Pick<NodeContext, "signal" | "userInput" | "toolPermissions" | "clock"> & Partial<Pick<NodeContext, "requester">>;
  readonly input: Pick<AgentInput, "askResume">;
  readonly registry: AgentToolRegistry;
  readonly extensions: { readonly hooks: Pick<RunHooks, "active" | "beforeTool"> };
  /** The session's log and key: a fork's record is read from it (FORK-2). */
  readonly store: Pick<SessionStore, "get">;
  readonly sessionKey: string;
  /** A replay's answers from the recorded run (REPLAY-1); absent for an ordinary run. */
  readonly toolAnswers?: ToolAnswerer | undefined;
}


/** What a compaction step uses (SES-7, SES-11). */
export interface CompactionStepRun extends RunLog, RunOutput, RunUsage, RunTelemetry {
  readonly context: Pick<NodeContext, "signal" | "clock" | "tokenUsage">;
  readonly options: Pick<AgentOptions, "compaction">;
  readonly model: ModelProvider;
  readonly store: Pick<SessionStore, "head" | "putSnapshot">;
  /** Replaced by the compacted transcript. */
  messages: ModelMessage[];
}

/** What a plan step uses (OUT-4, SES-8). */
export interface PlanStepRun extends RunLog, Pick<RunOutput, "projector"> {
  readonly context: Pick<NodeContext, "signal" | "userInput">;
  /** The plan is read from these; the decision's continuation prompt is pushed onto them. */
  readonly messages: ModelMessage[];
}

/** What a steer step uses (UI-5). */
export interface SteerStepRun extends RunLog, Pick<RunOutput, "meter"> {
  readonly input: Pick<AgentInput, "steering">;
  /** Steered messages are pushed onto these, before the next model call. */
  readonly messages: ModelMessage[];
}

/** What the run's `agent-session` item is written from (OUT-1, OUT-8). */
export interface RunSummary extends RunOutput, RunUsage {
  readonly runId: string;
  readonly sessionId: string;
  readonly sessionKey: string;
  readonly start: { prompt: string; workdir: string; provider: string; model: string; effort: string; mode: string };
  readonly toolCallCount: number;
  /** Spent and remaining per budget (BUD-2), when the run has one. */
  readonly budget: Pick<RunBudget, "view"> | null;
}
