/**
 * Tracing overhead in CPU time (issue 27, OBS), beside bench/observability.bench.ts's wall-time
 * figures: the same durable 100-step tool loop with telemetry off (the no-op) and on (the real
 * SDK, batch span processor, OTLP/HTTP JSON to a loopback receiver in this process), one process
 * per mode and round, each timing `OBS_CPU_BENCH_RUNS` (default 3) measured runs after a warm run
 * with `process.cpuUsage` (user + system). CPU time depends far less on the machine's load than
 * wall time. The statistic is the median of the per-round differences against `off`. Goal as for
 * wall time: ≤ 0.1 ms per step. Writes bench/results/observability-cpu.json.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startOtlpReceiver } from "../test/fixtures/otlp-receiver.js";

const STEPS = 100;
const ROUNDS = Number(process.env.OBS_CPU_BENCH_ROUNDS ?? 5);
const RUNS = Number(process.env.OBS_CPU_BENCH_RUNS ?? 3);
const MODES = ["off", "on"] as const;
type Mode = (typeof MODES)[number];

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round3 = (value: number): number => Math.round(value * 1000) / 1000;

const receiver = await startOtlpReceiver();
const root = mkdtempSync(join(tmpdir(), "bench-observability-cpu-"));

function child(mode: Mode, dir: string): Promise<{ cpuMsPerStep: number; wallMsPerStep: number }> {
  const proc = spawn(process.execPath, ["--import", "tsx", join("bench", "observability-cpu-loop.ts"), mode, dir, String(STEPS), String(RUNS), receiver.url], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  proc.stdout.on("data", (part: Buffer) => (out += part));
  return new Promise((resolve, reject) => proc.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out.trim().split("\n").pop()!)) : reject(new Error(`${mode} run exited ${code}`)))));
}

const cpu: Record<Mode, number[]> = { off: [], on: [] };
const wall: Record<Mode, number[]> = { off: [], on: [] };
try {
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? MODES : ([...MODES].reverse() as Mode[]);
    for (const mode of order) {
      const result = await child(mode, join(root, `${round}-${mode}`));
      cpu[mode].push(result.cpuMsPerStep);
      wall[mode].push(result.wallMsPerStep);
    }
  }
} finally {
  await receiver.close();
  rmSync(root, { recursive: true, force: true });
}

const cpuOverhead = median(cpu.on.map((ms, r) => ms - cpu.off[r]!));
const result = {
  bench: "observability-cpu",
  at: new Date().toISOString(),
  node: process.version,
  loop: `durable ${STEPS}-step tool loop (bench/durable-ours.ts), ${RUNS} measured runs after a warm run per process`,
  statistic: `median of the per-round differences against off (${ROUNDS} interleaved rounds); CPU = process.cpuUsage user + system`,
  offCpuMsPerStep: round3(median(cpu.off)),
  onCpuMsPerStep: round3(median(cpu.on)),
  onCpuOverheadMsPerStep: round3(cpuOverhead),
  onCpuOverheadPercent: Math.round(median(cpu.on.map((ms, r) => ((ms - cpu.off[r]!) / cpu.off[r]!) * 100)) * 100) / 100,
  offWallMsPerStep: round3(median(wall.off)),
  onWallMsPerStep: round3(median(wall.on)),
  goals: { onCpuMsPerStep: 0.1 },
  met: { onCpuMsPerStep: cpuOverhead <= 0.1 },
  rounds: { cpu: { off: cpu.off.map(round3), on: cpu.on.map(round3) }, wall: { off: wall.off.map(round3), on: wall.on.map(round3) } },
};
console.log(`CPU: off ${result.offCpuMsPerStep} ms/step, on ${result.onCpuMsPerStep} ms/step (+${result.onCpuOverheadMsPerStep} ms, ${result.onCpuOverheadPercent} %; goal ≤ 0.1 ms)`);
writeFileSync(join("bench", "results", "observability-cpu.json"), `${JSON.stringify(result, null, 2)}\n`);
