// What a newcomer waits for (issue 24 item 9, DX-7). Run:
//   npm run bench -- newcomer                 (or: node --import tsx bench/newcomer.bench.ts)
//   NEWCOMER_DIR=/path NEWCOMER_COLD_CACHE=1 npm run bench -- newcomer
// From a fresh `git clone` of this checkout's HEAD into a scratch folder (NEWCOMER_DIR, default a
// temp folder; removed at the end unless NEWCOMER_KEEP=1), the README's newcomer path, timed
// step by step as one shell command each, exactly as the README writes it:
//   1. npm ci                 (a real install: better-sqlite3 compiles from source where no
//                              prebuilt binary can be downloaded, as here)
//   2. npm run build          (tsup: ESM, CJS, bin, declarations; the viewer assets)
//   3. npm run demo
//   4. npx steamharness init conversation ../my-assistant --steamharness-from .
//   5. npm install            (in the scaffold; its steamharness is the clone, a file: dependency)
//   6. npm test               (the scaffold's own test, offline model)
// npm's cache is the machine's unless NEWCOMER_COLD_CACHE=1 (an empty cache in the scratch
// folder: every package comes from the registry, as on a machine that never ran npm). The
// build's own phases are read from tsup's log (each "Build success in N ms"). Results go to
// bench/results/newcomer.json. Needs the npm registry; takes minutes (run once).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const scratch = process.env.NEWCOMER_DIR ?? mkdtempSync(join(tmpdir(), "newcomer-"));
const clone = join(scratch, "steamharness");
const app = join(scratch, "my-assistant");
const cold = process.env.NEWCOMER_COLD_CACHE === "1";
const env: NodeJS.ProcessEnv = { ...process.env, ...(cold ? { npm_config_cache: join(scratch, "npm-cache") } : {}) };
// A newcomer's shell: no NODE_ENV (bench/run.ts sets production, which would make npm skip the
// dev dependencies), no CI flag, none of our variables.
for (const key of Object.keys(env)) if (key === "NODE_ENV" || key === "CI" || key.startsWith("STEAMHARNESS_") || key.startsWith("JEST")) delete env[key];
const round = (value: number, digits = 1) => Number(value.toFixed(digits));

interface Step {
  step: string;
  command: string;
  cwd: string;
  seconds: number;
  /** Phases tsup reported (build only), milliseconds by label in log order. */
  phases?: Array<{ phase: string; ms: number }>;
}

/** Runs `command` in a shell in `cwd`, timed; a failure ends the benchmark with its output. */
function timed(step: string, command: string, cwd: string): Step & { output: string } {
  process.stdout.write(`${step}: ${command} (in ${cwd === clone ? "the clone" : "the scaffold"}) … `);
  const started = performance.now();
  const result = spawnSync("sh", ["-c", command], { cwd, env, encoding: "utf8", maxBuffer: 256 * 1024 * 1024, stdio: ["ignore", "pipe", "pipe"] });
  const seconds = (performance.now() - started) / 1000;
  const output = `${result.stdout}${result.stderr}`;
  if (result.status !== 0) throw new Error(`${command} exited ${result.status}:\n${output.slice(-4000)}`);
  process.stdout.write(`${seconds.toFixed(1)} s\n`);
  return { step, command, cwd: cwd === clone ? "clone" : "scaffold", seconds: round(seconds), output };
}

/** tsup's "<FORMAT> ⚡️ Build success in N ms" lines (declaration builds say DTS). */
function phasesOf(output: string): Array<{ phase: string; ms: number }> {
  const plain = output.replace(/\u001b\[[0-9;]*m/g, "");
  return [...plain.matchAll(/^(\w+) .*Build success in (\d+)ms/gm)].map((m) => ({ phase: m[1]!, ms: Number(m[2]) }));
}

const load = { before: round(loadavg()[0]!, 2), after: 0 };
mkdirSync(scratch, { recursive: true });
const commit = execFileSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
execFileSync("git", ["clone", "--quiet", "--no-hardlinks", root, clone], { stdio: "inherit" });
const steps: Step[] = [];
try {
  for (const [step, command, cwd] of [
    ["install", "npm ci", clone],
    ["build", "npm run build", clone],
    ["demo", "npm run demo", clone],
    ["init", "npx steamharness init conversation ../my-assistant --steamharness-from .", clone],
    ["scaffold install", "npm install", app],
    ["scaffold test", "npm test", app],
  ] as const) {
    const { output, ...done } = timed(step, command, cwd);
    steps.push(step === "build" ? { ...done, phases: phasesOf(output) } : done);
  }
} finally {
  if (process.env.NEWCOMER_KEEP !== "1" && process.env.NEWCOMER_DIR === undefined) rmSync(scratch, { recursive: true, force: true });
}
load.after = round(loadavg()[0]!, 2);

const seconds = (name: string) => steps.find((s) => s.step === name)!.seconds;
const result = {
  benchmark: "newcomer",
  definition: "wall seconds of each step of the README's newcomer path, one shell command each, from a fresh git clone of HEAD in a scratch folder",
  commit,
  node: process.version,
  npm: execFileSync("npm", ["--version"], { encoding: "utf8" }).trim(),
  machine: { cores: availableParallelism(), loadAverage1m: load, npmCache: cold ? "cold (empty, in the scratch folder)" : "the machine's (warm)" },
  steps,
  totals: {
    cloneToDemoSeconds: round(seconds("install") + seconds("build") + seconds("demo")),
    firstProjectSeconds: round(seconds("init") + seconds("scaffold install") + seconds("scaffold test")),
  },
};
writeFileSync(join(root, "bench/results/newcomer.json"), `${JSON.stringify(result, null, 2)}\n`);
console.log(`clone to demo ${result.totals.cloneToDemoSeconds} s, first project ${result.totals.firstProjectSeconds} s; wrote bench/results/newcomer.json`);
