/**
 * Tracing overhead (issue 27, OBS): the durable 100-step tool loop of bench/durable-ours.ts with
 * telemetry off (the no-op default), on (the real SDK, batch span processor, OTLP/HTTP JSON to a
 * loopback receiver in this process), on without the flush at each run's start (`flushOnRunStart:
 * false`) and with @opentelemetry/api absent (every import of it
 * failing). Each mode runs in its own process, interleaved over several rounds; the statistic is
 * the median of the per-round differences against `off` of the same round. Goals: on ≤ 3 % wall
 * time and ≤ 0.1 ms per step; absent 0 % (within noise). Writes bench/results/observability.json.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startOtlpReceiver } from "../test/fixtures/otlp-receiver.js";

const STEPS = 100;
const ROUNDS = Number(process.env.OBS_BENCH_ROUNDS ?? 7);
const MODES = ["off", "on", "on-noflush", "absent"] as const;
type Mode = (typeof MODES)[number];

const ABSENT_HOOKS = `export async function resolve(specifier, context, next) { if (specifier.startsWith("@opentelemetry/")) { const error = new Error("Cannot find package '" + specifier + "'"); error.code = "ERR_MODULE_NOT_FOUND"; throw error; } return next(specifier, context); }`;
const ABSENT = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(ABSENT_HOOKS)}`)});`;

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round3 = (value: number): number => Math.round(value * 1000) / 1000;

const receiver = await startOtlpReceiver();
const root = mkdtempSync(join(tmpdir(), "bench-observability-"));

/** One child run (async: the receiver in this process must answer the child's exports). */
function child(mode: Mode, dir: string): Promise<{ msPerStep: number }> {
  const flags = mode === "absent" ? ["--import", `data:text/javascript,${encodeURIComponent(ABSENT)}`] : [];
  const proc = spawn(process.execPath, [...flags, "--import", "tsx", join("bench", "observability-loop.ts"), mode, dir, String(STEPS), receiver.url], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  proc.stdout.on("data", (part: Buffer) => (out += part));
  return new Promise((resolve, reject) =>
    proc.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out.trim().split("\n").pop()!)) : reject(new Error(`${mode} run exited ${code}`)))),
  );
}

const rounds: Record<Mode, number[]> = { off: [], on: [], "on-noflush": [], absent: [] };
try {
  for (let round = 0; round < ROUNDS; round++) {
    // The order rotates, so no mode always runs first (or right after another's exports).
    const order = MODES.map((_, i) => MODES[(i + round) % MODES.length]!);
    for (const mode of order) rounds[mode].push((await child(mode, join(root, `${round}-${mode}`))).msPerStep);
  }
} finally {
  await receiver.close();
  rmSync(root, { recursive: true, force: true });
}

const spans = receiver.spans.filter((span) => span.service === "bench");
const diff = (mode: Mode) => median(rounds[mode].map((ms, r) => ms - rounds.off[r]!));
const percent = (mode: Mode) => median(rounds[mode].map((ms, r) => ((ms - rounds.off[r]!) / rounds.off[r]!) * 100));
const onMs = diff("on");
const onPercent = percent("on");
const absentPercent = percent("absent");
const result = {
  bench: "observability",
  at: new Date().toISOString(),
  node: process.version,
  loop: `durable ${STEPS}-step tool loop (bench/durable-ours.ts: SQLite session, one lookup call per step), measured run after a warm run, one process per mode and round`,
  statistic: `median of the per-round differences against off (${ROUNDS} interleaved rounds)`,
  offMsPerStep: round3(median(rounds.off)),
  onMsPerStep: round3(median(rounds.on)),
  absentMsPerStep: round3(median(rounds.absent)),
  onOverheadPercent: Math.round(onPercent * 100) / 100,
  onOverheadMsPerStep: round3(onMs),
  absentOverheadPercent: Math.round(absentPercent * 100) / 100,
  onNoFlushMsPerStep: round3(median(rounds["on-noflush"])),
  onNoFlushOverheadPercent: Math.round(percent("on-noflush") * 100) / 100,
  onNoFlushOverheadMsPerStep: round3(diff("on-noflush")),
  goals: { onPercent: 3, onMsPerStep: 0.1, absentPercent: 0 },
  met: { onPercent: onPercent <= 3, onMsPerStep: onMs <= 0.1 },
  spansReceived: spans.length,
  exportRequests: receiver.requests,
  rounds: Object.fromEntries(MODES.map((mode) => [mode, rounds[mode].map(round3)])),
};
console.log(`off ${result.offMsPerStep} ms/step, on ${result.onMsPerStep} ms/step (+${result.onOverheadMsPerStep} ms, ${result.onOverheadPercent} %; goal ≤ 0.1 ms and ≤ 3 %), absent ${result.absentMsPerStep} ms/step (${result.absentOverheadPercent} %); ${spans.length} spans received`);
writeFileSync(join("bench", "results", "observability.json"), `${JSON.stringify(result, null, 2)}\n`);
