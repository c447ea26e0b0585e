/**
 * Splits a V8 CPU profile of the measured runs of bench/observability-split-loop.ts (taken with
 * `OBS_SPLIT_PROFILE=<file>`) by where the code lives: our adapter, the OpenTelemetry API, the
 * SDK's spans, its metrics, the OTLP serialization and exporter, garbage collection, and the rest
 * (the agent, the store, the tools). Samples are counted (not their wall-time gaps, which a loaded
 * machine stretches at random), native and node-internal frames are charged to their nearest
 * package caller, and the shares are scaled to the process's CPU time per step.
 * Usage: node --import tsx bench/observability-profile-split.ts <profile> <cpuMsPerStep>
 * Prints one JSON line: µs per step by part.
 */
import { readFileSync } from "node:fs";

type ProfileNode = { id: number; callFrame: { url: string; functionName: string }; children?: number[] };
type Profile = { nodes: ProfileNode[]; samples: number[] };

const [file, cpuArg] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file!, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map<number, ProfileNode>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node);

const PARTS: Array<[string, (url: string) => boolean]> = [
  ["adapter", (url) => url.includes("/src/adapters/driven/opentelemetry/")],
  ["api", (url) => url.includes("@opentelemetry/api")],
  ["sdkMetrics", (url) => url.includes("@opentelemetry/sdk-metrics")],
  ["sdkSpans", (url) => /@opentelemetry\/(sdk-trace|core|resources)/.test(url)],
  ["otlpSerialization", (url) => url.includes("@opentelemetry/otlp-transformer")],
  ["otlpExporter", (url) => /@opentelemetry\/(otlp-exporter-base|exporter-)/.test(url)],
];

function partOf(node: ProfileNode): string {
  if (node.callFrame.functionName === "(garbage collector)") return "gc";
  for (let at: ProfileNode | undefined = node; at; at = parentOf.get(at.id)) {
    const url = at.callFrame.url;
    if (!url || url.startsWith("node:")) continue;
    return PARTS.find(([, test]) => test(url))?.[0] ?? "rest";
  }
  return "rest";
}

const counts = new Map<string, number>();
const memo = new Map<number, string>();
let total = 0;
for (const id of profile.samples) {
  const node = byId.get(id)!;
  if (node.callFrame.functionName === "(idle)") continue;
  const part = memo.get(id) ?? partOf(node);
  memo.set(id, part);
  counts.set(part, (counts.get(part) ?? 0) + 1);
  total++;
}
const cpuUs = Number(cpuArg) * 1000;
console.log(JSON.stringify(Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]).map(([part, count]) => [part, Math.round((count / total) * cpuUs)]))));
