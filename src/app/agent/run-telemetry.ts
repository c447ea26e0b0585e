import type { SessionEvent } from "../../domain/agent/session-events.js";
import type { NodeContext } from "../../domain/node-context.js";
import type { SessionAddress } from "../../ports/session-store.js";
import type { TelemetryCarrier, TelemetryRun } from "../../ports/telemetry.js";

/** What a run's telemetry is opened with (OBS-2, OBS-4). */
export interface RunTelemetryInput {
  runId: string;
  sessionId: string;
  sessionKey: string;
  provider: string;
  model: string;
  /** The run's committed events (resuming when it has a start). */
  committed: ReadonlyMap<string, SessionEvent>;
  /** The stored root of the run, from its `run_started` event. */
  stored: TelemetryCarrier | undefined;
  resuming: boolean;
  /** The session whose lease the run took itself (not a host's, nor a store it was handed), and when. */
  leased?: { address: SessionAddress; startedAt: number };
}

/** Why the run's last part ended: a stop record (`paused`/`stopped`), or none after it (a crash). */
function resumedAfter(committed: ReadonlyMap<string, SessionEvent>): "paused" | "interrupted" | "stopped" {
  let last: SessionEvent | undefined;
  for (const event of committed.values()) if (!last || event.seq > last.seq) last = event;
  if (last?.type !== "run_stopped") return "interrupted";
  return last.payload.status === "waiting" ? "paused" : "stopped";
}

/**
 * The telemetry of one run (or one part of it): a resumed run continues the root stored with
 * its start, so every process's spans of the run are one trace (OBS-4). The parent of a new run
 * is the context's `trace` (an MCP call, a gateway request). A run that took its session's lease
 * reports it on its span: `takeover` when it resumes after a part that ended without a stop record
 * (that part's process died holding the lease), else `acquired`.
 *
 * @example
 * const telemetry = openRunTelemetry(context, { runId, sessionId, sessionKey, provider, model, committed, stored: saved?.trace, resuming: saved !== null });
 */
export function openRunTelemetry(context: NodeContext, input: RunTelemetryInput): TelemetryRun {
  const telemetry = context.runtime.telemetry;
  const after = input.resuming ? resumedAfter(input.committed) : undefined;
  const run = telemetry.run({
    runId: input.runId,
    agentName: input.sessionKey,
    conversationId: input.sessionId,
    provider: input.provider,
    model: input.model,
    ...(input.stored ? { stored: input.stored } : {}),
    ...(after ? { resumedAfter: after } : {}),
    ...(context.trace ? { parent: context.trace } : {}),
  });
  if (telemetry.enabled && input.leased) {
    const { address, startedAt } = input.leased;
    const takeover = after === "interrupted";
    run.lease({
      event: takeover ? "takeover" : "acquired",
      projectId: address.projectId,
      ...(address.conversationId === undefined ? {} : { conversationId: address.conversationId }),
      sessionKey: address.sessionKey,
      ownerId: input.runId,
      // A run's lease is owned by its run id, in every process that works on it.
      ...(takeover ? { previousOwnerId: input.runId } : {}),
      startedAt,
    });
  }
  return run;
}

/**
 * Content for a span when the host opted in (the adapter redacts it), else undefined.
 *
 * @example
 * const input = contentFor(turn.telemetry, () => turn.messages);
 */
export function contentFor<T>(telemetry: Pick<TelemetryRun, "captureContent">, value: () => T): T | undefined {
  return telemetry.captureContent ? value() : undefined;
}
