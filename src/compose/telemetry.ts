/**
 * Telemetry of the CLI's processes (OBS-3): the library runtime's no-op is replaced by
 * OpenTelemetry when the environment configures an OTLP endpoint and the SDK is installed.
 */
let started: Promise<{ shutdown(): Promise<void> } | null> | null = null;

/**
 * Sets the library runtime's telemetry from the environment once per process (see
 * `telemetryFromEnvironment`); resolves to its shutdown (flush and stop), or null when off.
 * Loads nothing when no OTLP endpoint is set.
 *
 * @example
 * const telemetry = await telemetryFromEnv();
 * await telemetry?.shutdown();
 */
export function telemetryFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): Promise<{ shutdown(): Promise<void> } | null> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return Promise.resolve(null);
  // The runtime too is loaded only here: a process without telemetry does not load it for this.
  started ??= Promise.all([import("../adapters/driven/opentelemetry/sdk-from-env.js"), import("./runtime.js")])
    .then(async ([{ telemetryFromEnvironment }, { defaultRuntime }]) => {
      const result = await telemetryFromEnvironment(env);
      if (!result) return null;
      defaultRuntime().telemetry = result.telemetry;
      return { shutdown: result.shutdown };
    })
    .catch(() => null);
  return started;
}
