import type { Telemetry, TelemetryModelCall, TelemetryRun } from "../../../ports/telemetry.js";

const span: TelemetryModelCall = { event() {}, set() {}, end() {}, finish() {}, carrier: () => null };
const run: TelemetryRun = { ...span, captureContent: false, root: () => null, modelCall: () => span, toolCall: () => span, approvalWait: () => span, compaction: () => span, retry() {}, lease() {}, finish() {} };

/**
 * The telemetry of a runtime given none (OBS-1): reports nothing, allocates nothing per call,
 * loads nothing.
 *
 * @example
 * const runtime = { ...createHarnessRuntime(), telemetry: createNoopTelemetry() };
 */
export function createNoopTelemetry(): Telemetry {
  return { enabled: false, captureContent: false, run: () => run, lease() {}, mcpRequest: () => span, gatewayRequest: () => span, flush: async () => undefined };
}
