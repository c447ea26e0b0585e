import { ROOT_CONTEXT, SpanKind, type Tracer } from "@opentelemetry/api";
import type { TelemetryLeaseInfo } from "../../../ports/telemetry.js";
import { clean } from "./otel-span.js";

/**
 * The attributes of a lease event: the session's address and the owner ids, nothing else (a
 * lease key may name a file or a database; it is not reported).
 *
 * @example
 * span.addEvent("steamharness.lease.takeover", leaseAttributes({ event: "takeover", projectId: "p", sessionKey: "agent", ownerId: "host-b", previousOwnerId: "host-a" }));
 */
export function leaseAttributes(info: TelemetryLeaseInfo): Record<string, string | number | boolean> {
  return clean({
    "steamharness.lease.event": info.event,
    "steamharness.project.id": info.projectId,
    "steamharness.session.conversation_id": info.conversationId,
    "steamharness.session.key": info.sessionKey,
    "steamharness.lease.owner": info.ownerId,
    "steamharness.lease.previous_owner": info.previousOwnerId,
  });
}

/**
 * A lease event outside any run as a short span of its own (`steamharness.lease.<event>`), from
 * the acquire's start (`startedAt`) to now, a root of its own trace.
 *
 * @example
 * leaseSpan(tracer, { event: "acquired", projectId: "p", conversationId: "c", sessionKey: "agent", ownerId: "host-1", startedAt });
 */
export function leaseSpan(tracer: Tracer, info: TelemetryLeaseInfo): void {
  const span = tracer.startSpan(`steamharness.lease.${info.event}`, { kind: SpanKind.INTERNAL, attributes: leaseAttributes(info), ...(info.startedAt === undefined ? {} : { startTime: info.startedAt }) }, ROOT_CONTEXT);
  span.end();
}
