/**
 * `steamharness/opentelemetry` (OBS-1): the telemetry port over OpenTelemetry. Every export here
 * is public API. It imports `@opentelemetry/api` (an optional peer dependency): the root entry
 * never loads it.
 */
export { createOpenTelemetry } from "./adapters/driven/opentelemetry/open-telemetry.js";
export type { OpenTelemetryOptions } from "./adapters/driven/opentelemetry/open-telemetry.js";
export type { Telemetry, TelemetryCarrier, TelemetryRun, TelemetryRunInfo, TelemetrySpan, TelemetryModelCall, TelemetryRequestInfo, TelemetryAttributes, TelemetryLeaseInfo } from "./ports/telemetry.js";
