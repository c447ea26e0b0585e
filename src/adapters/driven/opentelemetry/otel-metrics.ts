import type { Histogram, Meter } from "@opentelemetry/api";

/** The histograms of OBS-5: the GenAI client metrics, run duration and approval wait time. */
export interface RunMetrics {
  /** `gen_ai.client.token.usage` ({token}), one record per token type. */
  tokenUsage: Histogram;
  /** `gen_ai.client.operation.duration` (s) of model calls. */
  operationDuration: Histogram;
  /** `steamharness.run.duration` (s) of one part of a run (a process's work on it). */
  runDuration: Histogram;
  /** `steamharness.approval.wait.duration` (s): from the wait's start to a person's decision. */
  approvalWait: Histogram;
}

/** The GenAI conventions' advised bucket boundaries. */
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

/**
 * The run histograms on a meter.
 *
 * @example
 * const metrics = createRunMetrics(metrics.getMeter("steamharness"));
 */
export function createRunMetrics(meter: Meter): RunMetrics {
  return {
    tokenUsage: meter.createHistogram("gen_ai.client.token.usage", { unit: "{token}", description: "Number of input and output tokens used.", advice: { explicitBucketBoundaries: TOKEN_BUCKETS } }),
    operationDuration: meter.createHistogram("gen_ai.client.operation.duration", { unit: "s", description: "GenAI operation duration.", advice: { explicitBucketBoundaries: DURATION_BUCKETS } }),
    runDuration: meter.createHistogram("steamharness.run.duration", { unit: "s", description: "Duration of one part of an agent run (one process's work on it)." }),
    approvalWait: meter.createHistogram("steamharness.approval.wait.duration", { unit: "s", description: "Time from an approval or question wait's start to the decision." }),
  };
}
