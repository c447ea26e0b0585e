/**
 * The runtime of one CLI process (OBS-3, ARCH-6): built once by the entry that starts the process,
 * with OpenTelemetry as its telemetry when the environment configures an OTLP endpoint and the
 * SDK is installed. The telemetry is set when the runtime is built, never swapped in later, so a
 * surface reads it from the runtime it was handed, not from a global mid-request.
 */
import type { HarnessRuntime } from "../ports/runtime.js";

/** A process's runtime and how to end its telemetry. */
export interface ProcessRuntime {
  runtime: HarnessRuntime;
  /** Exports what the telemetry buffered and stops its SDK; a no-op when none was started. */
  shutdown(): Promise<void>;
}

/**
 * Builds the runtime of a process from its environment (see `telemetryFromEnvironment`). Loads
 * nothing of OpenTelemetry when no OTLP endpoint is set.
 *
 * @example
 * const { runtime, shutdown } = await openProcessRuntime(process.env);
 * await shutdown();
 */
export async function openProcessRuntime(env: Readonly<Record<string, string | undefined>> = process.env): Promise<ProcessRuntime> {
  // Loaded here, not at start: a command that never asks for its runtime loads none of it (cold start).
  const { createHarnessRuntime } = await import("./runtime.js");
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return { runtime: createHarnessRuntime(), shutdown: async () => undefined };
  const started = await import("../adapters/driven/opentelemetry/sdk-from-env.js").then(({ telemetryFromEnvironment }) => telemetryFromEnvironment(env)).catch(() => null);
  if (!started) return { runtime: createHarnessRuntime(), shutdown: async () => undefined };
  return { runtime: createHarnessRuntime({ telemetry: started.telemetry }), shutdown: started.shutdown };
}
