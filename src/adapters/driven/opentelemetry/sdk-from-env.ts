import type { Telemetry } from "../../../ports/telemetry.js";
import { createOpenTelemetry } from "./open-telemetry.js";

/** The SDK the CLI started from the environment, and the telemetry over it. */
export interface EnvironmentTelemetry {
  telemetry: Telemetry;
  /** Exports what is buffered and stops the SDK. */
  shutdown(): Promise<void>;
}

/**
 * Starts the OpenTelemetry Node SDK for a CLI process (OBS-3) when the environment asks for it —
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) set and
 * `OTEL_SDK_DISABLED` not `true` — and `@opentelemetry/sdk-node` is installed; null otherwise.
 * The SDK reads the rest of its settings (`OTEL_SERVICE_NAME`, `OTEL_EXPORTER_OTLP_PROTOCOL`,
 * `OTEL_METRICS_EXPORTER`, …) itself. Content is captured when
 * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`.
 *
 * @example
 * const started = await telemetryFromEnvironment(process.env);
 */
export async function telemetryFromEnvironment(env: Readonly<Record<string, string | undefined>>): Promise<EnvironmentTelemetry | null> {
  if (env.OTEL_SDK_DISABLED === "true") return null;
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return null;
  let sdkNode: typeof import("@opentelemetry/sdk-node");
  try {
    sdkNode = await import("@opentelemetry/sdk-node");
  } catch {
    return null;
  }
  const sdk = new sdkNode.NodeSDK({ serviceName: env.OTEL_SERVICE_NAME ?? "steamharness", instrumentations: [] });
  sdk.start();
  const telemetry = createOpenTelemetry({ captureContent: env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT === "true", env });
  return { telemetry, shutdown: () => sdk.shutdown().catch(() => undefined) };
}
