import type { JsonObject } from "../json.js";
import type { OutputItem, OutputItemStreamChunk } from "../output-items.js";
import { createOutputItemChunk, outputChunk } from "../output-stream.js";
import type { AgentContextUsage } from "../agent/context-meter.js";
import { agentRingItemId, agentSessionItemId } from "../agent/ids.js";
import type { TokenCounts } from "../../ports/token-usage.js";
import type { AgentSessionHostStatus, AgentSessionContextRecord, AgentSessionTaskRecord } from "./host-state.js";

/** The version of the host snapshot content; bumped when a field changes meaning. */
export const AGENT_SESSION_SNAPSHOT_VERSION = 1;

/** A context of the snapshot: its ring and where it came from (HOST-6). */
export interface AgentSessionSnapshotContext extends AgentSessionContextRecord {
  /** The context's current occupancy. */
  usage: AgentContextUsage;
}

/** What {@link buildAgentSessionSnapshot} needs. */
export interface AgentSessionSnapshotInput {
  /** The workflow conversation id: the snapshot's scope. */
  conversationId: string;
  /** The session key of the main context; the snapshot item id derives from it. */
  sessionKey: string;
  hostStatus: AgentSessionHostStatus;
  activeTargetId: number;
  contexts: readonly AgentSessionSnapshotContext[];
  tasks: readonly AgentSessionTaskRecord[];
  /** Billing usage per run id (summed from the runs' usage events). */
  usageByRun: ReadonlyMap<string, TokenCounts>;
  /** Usage of the child runs (delegation) per parent run id. */
  childUsageByRun?: ReadonlyMap<string, TokenCounts>;
  /** The output items of runs this host ran, by run id, in output order (OUT-8). */
  itemsByRun?: ReadonlyMap<string, readonly OutputItem[]>;
  /** The fields of the latest run's own session item (status, model, …), kept at the top level. */
  run?: JsonObject;
}

const zero = (): TokenCounts => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 });

/**
 * The ring output item of a context (AG-7): the same id the agent's runs use for that session
 * key, so a host showing `contexts[].outputs` and a live run update one ring.
 *
 * @example
 * contextRingItem("agent", { used: 120, total: 128000, unit: "tokens", source: "estimate" })
 */
export function contextRingItem(sessionKey: string, usage: AgentContextUsage): OutputItem {
  return {
    id: agentRingItemId(sessionKey),
    display: { type: "ring", placement: "composer-right" },
    content: { value: usage.used, total: usage.total, unit: "tokens" },
    metadata: {},
    done: false,
  };
}

/**
 * The content of the host's `agent-session` snapshot (OUT-1, HOST-6): the latest run's fields at
 * the top level (as a run's own session item has them), plus `scopeId`, `hostStatus`,
 * `activeTargetId`, `contexts[]` (each with `outputs`: its ring item) and `turns[]` (one per task,
 * with its own `usage`, and `childUsage` of its delegated child runs when there are any). Child sessions and forks are addressed by their numeric `targetId`.
 *
 * @example
 * const content = buildAgentSessionSnapshot(input);
 * content.contexts[0].outputs[0].display // { type: "ring", placement: "composer-right" }
 */
export function buildAgentSessionSnapshot(input: AgentSessionSnapshotInput): JsonObject {
  const contexts = input.contexts.map((context) => ({
    targetId: context.targetId,
    kind: context.kind,
    sessionKey: context.sessionKey,
    parentTargetId: context.parentTargetId,
    active: context.targetId === input.activeTargetId,
    usage: { ...context.usage },
    outputs: [contextRingItem(context.sessionKey, context.usage) as unknown as JsonObject],
  }));
  const turns = [...input.tasks]
    .sort((a, b) => a.order - b.order)
    .map((task) => ({
      taskId: task.taskId,
      runId: task.runId,
      targetId: task.targetId,
      prompt: task.prompt,
      status: task.status,
      cancelRequested: task.cancelRequested,
      usage: { ...(input.usageByRun.get(task.runId) ?? zero()) },
      ...(input.childUsageByRun?.has(task.runId) ? { childUsage: { ...input.childUsageByRun.get(task.runId)! } } : {}),
      ...(task.detail ? { detail: task.detail } : {}),
      ...(input.itemsByRun?.has(task.runId) ? { items: input.itemsByRun.get(task.runId)! as unknown as JsonObject[] } : {}),
    }));
  return {
    ...(input.run ?? {}),
    version: AGENT_SESSION_SNAPSHOT_VERSION,
    scopeId: input.conversationId,
    sessionKey: input.sessionKey,
    hostStatus: input.hostStatus,
    activeTargetId: input.activeTargetId,
    contexts,
    turns,
  } as JsonObject;
}

/**
 * The id of a host's snapshot item: the main context's session item id, so the host's snapshot
 * replaces the per-run session item instead of adding a second one.
 *
 * @example
 * hostSnapshotItemId("agent")
 */
export function hostSnapshotItemId(sessionKey: string): string {
  return agentSessionItemId(sessionKey);
}

/**
 * The chunk that publishes a snapshot: `add` the first time, `replace` afterwards. The item is
 * auxiliary (`metadata.kind: "agent-session"`) and never shown as body.
 *
 * @example
 * emit(snapshotChunk("agent", content, first));
 */
export function snapshotChunk(sessionKey: string, content: JsonObject, first: boolean): OutputItemStreamChunk {
  const id = hostSnapshotItemId(sessionKey);
  const metadata = { kind: "agent-session" as const, version: AGENT_SESSION_SNAPSHOT_VERSION };
  return first ? createOutputItemChunk({ id, content, metadata }) : outputChunk.replace(id, content, metadata);
}

/**
 * The snapshot as a finished output item.
 *
 * @example
 * host.snapshot().metadata.kind // "agent-session"
 */
export function snapshotItem(sessionKey: string, content: JsonObject): OutputItem {
  return { id: hostSnapshotItemId(sessionKey), content, metadata: { kind: "agent-session", version: AGENT_SESSION_SNAPSHOT_VERSION }, done: false };
}
