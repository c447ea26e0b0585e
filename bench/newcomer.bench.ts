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
// Issue 49's figures, beside the steps: toDemoLastLine (npm ci start to the demo's last line);
// toFirstMcpAnswer (right after the build, the README's MCP client recipe for a clone, read out of
// README.md, started by the MCP SDK client from an unrelated folder with npx offline, until the
// first tools/call result); npmTestStderrLines (NEWCOMER_TEST_LOG_ONLY=1 updates only this one: the lines a passing `npm test` prints besides
// jest's report, filtered as .ci/run does, read from NEWCOMER_TEST_LOG=<file> — the output of a
// passing `npm test 2>&1` or of a whole .ci/run — because the suite takes half an hour here).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { fillPlaceholders, readmeMcpRecipes } from "../test/cli/readme-recipes.js";

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
function timed(step: string, command: string, cwd: string): Step & { output: string; stdout: string } {
  process.stdout.write(`${step}: ${command} (in ${cwd === clone ? "the clone" : "the scaffold"}) … `);
  const started = performance.now();
  const result = spawnSync("sh", ["-c", command], { cwd, env, encoding: "utf8", maxBuffer: 256 * 1024 * 1024, stdio: ["ignore", "pipe", "pipe"] });
  const seconds = (performance.now() - started) / 1000;
  const output = `${result.stdout}${result.stderr}`;
  if (result.status !== 0) throw new Error(`${command} exited ${result.status}:\n${output.slice(-4000)}`);
  process.stdout.write(`${seconds.toFixed(1)} s\n`);
  return { step, command, cwd: cwd === clone ? "clone" : "scaffold", seconds: round(seconds), output, stdout: result.stdout };
}

/** tsup's "<FORMAT> ⚡️ Build success in N ms" lines (declaration builds say DTS). */
function phasesOf(output: string): Array<{ phase: string; ms: number }> {
  const plain = output.replace(/\u001b\[[0-9;]*m/g, "");
  return [...plain.matchAll(/^(\w+) .*Build success in (\d+)ms/gm)].map((m) => ({ phase: m[1]!, ms: Number(m[2]) }));
}

/** How long the README's stdio recipe for a clone takes from client start to its first tools/call result. */
async function firstMcpAnswer(): Promise<{ recipe: string[]; cwd: string; tool: string; connectSeconds: number; listToolsSeconds: number; clientSeconds: number }> {
  const recipe = (await readmeMcpRecipes(clone))[1]!;
  const args = recipe.args.map((arg) => fillPlaceholders(arg, { "/absolute/path/to/steamharness": clone }));
  // An MCP host's own folder, unrelated to the clone; npx offline, as test/cli/mcp-client-recipe.test.ts runs it.
  const host = join(scratch, "mcp-host");
  mkdirSync(host, { recursive: true });
  const hostEnv: Record<string, string> = { npm_config_offline: "true", npm_config_update_notifier: "false" };
  for (const [key, value] of Object.entries(env)) if (value !== undefined && !(key in hostEnv)) hostEnv[key] = value;
  process.stdout.write(`first MCP answer: ${recipe.command} ${args.join(" ")} (in an unrelated folder) … `);
  const transport = new StdioClientTransport({ command: recipe.command, args, env: hostEnv, cwd: host, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "newcomer-bench", version: "1.0.0" });
  // The first start loads the example under a loaded machine: wait longer than the SDK's 60 s.
  const patience = { timeout: 600_000 };
  const started = performance.now();
  const since = () => round((performance.now() - started) / 1000, 2);
  try {
    await client.connect(transport, patience);
    const connectSeconds = since();
    const { tools } = await client.listTools(undefined, patience);
    const listToolsSeconds = since();
    const tool = tools.find((t) => t.name === "greet") ?? tools[0]!;
    const result = await client.callTool({ name: tool.name, arguments: { name: "Ada" } }, undefined, patience);
    const clientSeconds = since();
    if (result.isError || !JSON.stringify(result).includes("Hello, Ada!")) throw new Error(`unexpected tools/call result: ${JSON.stringify(result)}`);
    process.stdout.write(`${clientSeconds.toFixed(1)} s\n`);
    return { recipe: [recipe.command, ...recipe.args], cwd: "an unrelated folder beside the clone", tool: tool.name, connectSeconds, listToolsSeconds, clientSeconds };
  } catch (error) {
    throw new Error(`the README's MCP recipe failed after ${since()} s: ${String(error)}\nserver stderr:\n${stderr.slice(-4000)}`);
  } finally {
    await client.close();
  }
}

/**
 * The lines of a passing `npm test` besides jest's report, counted with .ci/run's own filter (read
 * from it, so the figure and the CI gate cannot disagree). A whole .ci/run log is cut to npm test's
 * part: from npm's `> steamharness@… test` header on, without a runner's trailing `exit N` line.
 */
function npmTestStderrLines(logFile: string | undefined): { lines: number | null; reason?: string; log?: string; filter?: string; first?: string[] } {
  if (logFile === undefined) return { lines: null, reason: "NEWCOMER_TEST_LOG not given (the whole suite takes about half an hour here; pass the log of a passing `npm test 2>&1`)" };
  const posix = /^report='(.*)'$/m.exec(readFileSync(join(root, ".ci/run"), "utf8"))?.[1];
  if (posix === undefined) throw new Error(".ci/run has no report='…' filter line");
  const report = new RegExp(posix.split("[[:space:]]").join("\\s"));
  let lines = readFileSync(logFile, "utf8").split("\n");
  const header = lines.findIndex((line) => /^> steamharness@\S+ test$/.test(line));
  if (header >= 0) lines = lines.slice(header);
  while (lines.length > 0 && /^(exit \d+|\s*)$/.test(lines[lines.length - 1]!)) lines.pop();
  const passed = lines.some((line) => /^Tests:.* passed/.test(line)) && !lines.some((line) => /^(Tests|Test Suites):.* failed/.test(line));
  if (!passed) return { lines: null, reason: `${logFile} is not the log of a passing npm test (no "Tests: … passed" line, or failures)`, log: logFile };
  const noise = lines.filter((line) => !report.test(line));
  return { lines: noise.length, log: logFile, filter: `lines not matching .ci/run's report pattern ${posix}`, first: noise.slice(0, 10).map((line) => line.slice(0, 200)) };
}

// NEWCOMER_TEST_LOG_ONLY=1: only the npm test figure, from NEWCOMER_TEST_LOG, into the existing
// results (the steps take minutes; the suite's log comes from a CI run of the same commit).
if (process.env.NEWCOMER_TEST_LOG_ONLY === "1") {
  const file = join(root, "bench/results/newcomer.json");
  const previous = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  const figure = npmTestStderrLines(process.env.NEWCOMER_TEST_LOG);
  writeFileSync(file, `${JSON.stringify({ ...previous, npmTestStderrLines: { ...figure, commit: execFileSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8" }).trim() } }, null, 2)}\n`);
  console.log(`npm test noise ${figure.lines ?? "not measured"} lines; wrote bench/results/newcomer.json`);
  process.exit(0);
}

const load = { before: round(loadavg()[0]!, 2), after: 0 };
mkdirSync(scratch, { recursive: true });
const commit = execFileSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
execFileSync("git", ["clone", "--quiet", "--no-hardlinks", root, clone], { stdio: "inherit" });
const steps: Step[] = [];
let mcp: Awaited<ReturnType<typeof firstMcpAnswer>> | undefined;
let demoLastLine = "";
try {
  for (const [step, command, cwd] of [
    ["install", "npm ci", clone],
    ["build", "npm run build", clone],
    ["demo", "npm run demo", clone],
    ["init", "npx steamharness init conversation ../my-assistant --steamharness-from .", clone],
    ["scaffold install", "npm install", app],
    ["scaffold test", "npm test", app],
  ] as const) {
    const { output, stdout, ...done } = timed(step, command, cwd);
    steps.push(step === "build" ? { ...done, phases: phasesOf(output) } : done);
    if (step === "build") mcp = await firstMcpAnswer();
    if (step === "demo") demoLastLine = stdout.trimEnd().split("\n").pop()!;
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
  toDemoLastLine: {
    definition: "wall seconds from the start of `npm ci` to the demo's last output line: the install, build and demo steps as measured above (the demo prints its last line as it exits)",
    seconds: round(seconds("install") + seconds("build") + seconds("demo")),
    lastLine: demoLastLine,
  },
  toFirstMcpAnswer: {
    definition:
      "right after the build step, the README's MCP client recipe for a clone (its second mcpServers entry, read out of README.md) started by the MCP SDK Client over StdioClientTransport from an unrelated folder, npx offline (npm_config_offline=true): clientSeconds from client start to the first tools/call result (initialize, tools/list, tools/call); fromInstallSeconds adds the install and build steps",
    ...mcp!,
    fromInstallSeconds: round(seconds("install") + seconds("build") + mcp!.clientSeconds),
  },
  npmTestStderrLines: npmTestStderrLines(process.env.NEWCOMER_TEST_LOG),
};
writeFileSync(join(root, "bench/results/newcomer.json"), `${JSON.stringify(result, null, 2)}\n`);
console.log(`clone to demo ${result.totals.cloneToDemoSeconds} s, first project ${result.totals.firstProjectSeconds} s, npm ci to the first MCP answer ${result.toFirstMcpAnswer.fromInstallSeconds} s, npm test noise ${result.npmTestStderrLines.lines ?? "not measured"} lines; wrote bench/results/newcomer.json`);
