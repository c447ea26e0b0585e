import type { TelemetryModelCall, TelemetryRun } from "../../../ports/telemetry.js";

/** What a report whose backend failed gets: a span that does nothing (the port: an adapter that fails drops the report). */
export const DROPPED_SPAN: TelemetryModelCall = { event() {}, set() {}, end() {}, finish() {}, carrier: () => null };

/** A run whose backend failed at its start: it reports nothing. */
export const DROPPED_RUN: TelemetryRun = {
  ...DROPPED_SPAN,
  captureContent: false,
  root: () => null,
  modelCall: () => DROPPED_SPAN,
  toolCall: () => DROPPED_SPAN,
  approvalWait: () => DROPPED_SPAN,
  compaction: () => DROPPED_SPAN,
  retry() {},
  lease() {},
  finish() {},
};

/**
 * Runs `report`, or gives `dropped` when the backend throws (a host's provider, a processor, a
 * meter): telemetry never fails the work it reports on (OBS-1).
 *
 * @example
 * const span = guarded(() => startSpan(), DROPPED_SPAN);
 */
export function guarded<T>(report: () => T, dropped: T): T {
  try {
    return report();
  } catch {
    return dropped;
  }
}
