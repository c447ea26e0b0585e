/**
 * Issue 44's figures (ARCH-8, ARCH-11, ARCH-12), measured on whatever tree this runs in and
 * written to `bench/results/architecture.json` under `issue44` (the file's other keys are kept):
 *
 * - `storageLines`: code lines (not blank, not comment-only) of every `.ts` file under the driven
 *   memory, SQLite, PostgreSQL and kernel folders (target ≤ 4,000), per folder too.
 * - `storageDuplicatePairs`: pairs of places of ≥ 6 same-shape lines between two of those
 *   folders (target ≤ 3); `null` with a reason when the workplace tool `duplicates` is missing.
 * - `publicNames`: the names each built entry's `.d.ts` exports (values and types), by
 *   `package.json` subpath (root target ≤ 150). Reads `dist/`: run `npm run build` first.
 * - `srcLines`: code lines and files of `src/**\/*.ts`.
 * - `routeCrossings`: folder crossings (scripts/architecture-crossings.ts says how they are
 *   counted) on four routes, each ≤ 6. A route is a chain of entry functions that meet only
 *   through a port or a process boundary (the walker stops at an interface member): its crossings
 *   are the sum of its segments'. A segment is found by its function's name in the first file of
 *   `src/` that declares it, so a moved file is still found; a missing one is named in `missing`.
 * - `suite`: wall time of a fresh clone's `CI=true npm test`, as recorded in
 *   test/jest-timings.json by `node test/jest-timings.mjs`; `--suite` measures it here first
 *   (a `git clone` of HEAD, this checkout's node_modules hard-linked, `npm run build`, then
 *   `CI=true npm test -- --json`; minutes; on a quiet machine, or the figure means little), and
 *   with it the run's CPU seconds (user + system of jest, its workers and the processes they
 *   waited for; Linux): CPU over wall near the machine's core count means the cores were busy,
 *   well under it that the workers waited (on timers, servers, the disk) and more of them may pay.
 *
 * Run: `npm run bench -- architecture` (or `node --import tsx bench/architecture.bench.ts [--suite]`).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { countCrossings, type RouteCount } from "../scripts/architecture-crossings.js";
import { codeLines, duplicatePairs, FAMILIES, filesUnder } from "../scripts/architecture-measures.js";

const OUTPUT = "bench/results/architecture.json";
const TIMINGS = "test/jest-timings.json";

/** One segment of a route: a function found by name, preferably in a file whose path matches `near`. */
interface Segment {
  fn: string;
  near: RegExp;
}

/** The four routes of issue 44; each segment ends where the walker stops (a port member, a process boundary). */
const ROUTES: Record<string, { description: string; segments: Segment[] }> = {
  agentTurnToSqliteCommit: {
    description: "one agent turn, then the SQLite session store it commits through",
    segments: [
      { fn: "runAgentTurn", near: /app\/agent\// },
      { fn: "createSqliteSessionStore", near: /driven\/sqlite\// },
    ],
  },
  mcpToolsCallOverHttp: {
    description: "one MCP tools/call over HTTP, per request (ARCH-12): the HTTP request handler of a plain POST on an open session, the workflow server's tools/call handler, the project runner's run, the worker process's run",
    segments: [
      { fn: "direct", near: /mcp\/transport\/http-handler/ },
      { fn: "callTool", near: /mcp\/workflow-server/ },
      { fn: "run", near: /workflow-runs\/project-runner/ },
      { fn: "serve", near: /workflow-runs\/worker-service/ },
    ],
  },
  gatewayRequest: {
    description: "a chat-completions request: the API handler and the gateway's runs",
    segments: [
      { fn: "createChatCompletionsApi", near: /gateway\// },
      { fn: "createGatewayRuns", near: /gateway\// },
    ],
  },
  budgetReserve: {
    description: "one budget reserve, per call (ARCH-12): the agent's reserve through the ledger port, the kernel ledger's reserve, the SQLite rows' reserve (the insert into budget_reserve)",
    segments: [
      { fn: "reserveWith", near: /app\/agent\/run-budget/ },
      { fn: "reserve", near: /driven\/kernel\/budget-ledger/ },
      { fn: "reserve", near: /driven\/sqlite\/store\/sqlite-budget-ledger/ },
    ],
  },
};

const srcFiles = (): string[] => filesUnder("src").filter((file) => !file.endsWith(".d.ts"));
const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);

function storageLines() {
  const perFolder = Object.fromEntries(FAMILIES.map((folder) => [folder.split("/").pop()!, sum(filesUnder(folder).map((file) => codeLines(readFileSync(file, "utf8"))))]));
  return { total: sum(Object.values(perFolder)), perFolder, target: 4000 };
}

function storageDuplicates() {
  if (spawnSync("duplicates", ["--help"], { encoding: "utf8" }).error) return { pairs: null, reason: "the workplace tool `duplicates` is not on PATH", target: 3 };
  const { pairs } = duplicatePairs(false);
  return { pairs: pairs.length, notBoilerplate: pairs.filter((pair) => !pair.boilerplate).length, places: pairs.map((pair) => `${pair.left} ~ ${pair.right}${pair.boilerplate ? " (boilerplate)" : ""}`), target: 3 };
}

/** The names a built `.d.ts` exports, split into values (anything with a runtime binding) and types only. */
function publicNames() {
  const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { exports: Record<string, { import?: { types?: string } }> };
  const entries = Object.entries(pkg.exports).flatMap(([subpath, conditions]) => (conditions.import?.types ? [[subpath, conditions.import.types] as const] : []));
  const missing = entries.filter(([, file]) => !existsSync(file));
  if (missing.length > 0) return { error: `not built: ${missing.map(([, file]) => file).join(", ")} (run npm run build)` };
  const program = ts.createProgram(
    entries.map(([, file]) => file),
    { noEmit: true, skipLibCheck: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022 },
  );
  const checker = program.getTypeChecker();
  const bySubpath = Object.fromEntries(
    entries.map(([subpath, file]) => {
      const module = checker.getSymbolAtLocation(program.getSourceFile(resolve(file))!)!;
      const names = checker.getExportsOfModule(module);
      const flags = (symbol: ts.Symbol) => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol).flags : symbol.flags);
      const values = names.filter((symbol) => flags(symbol) & ts.SymbolFlags.Value).length;
      return [subpath === "." ? "steamharness" : `steamharness/${subpath.slice(2)}`, { total: names.length, values, types: names.length - values }];
    }),
  );
  const builtAt = statSync(entries[0]![1]).mtime.toISOString();
  return { root: bySubpath.steamharness?.total ?? null, rootTarget: 150, total: sum(Object.values(bySubpath).map((entry) => entry.total)), bySubpath, builtAt };
}

function srcLines() {
  const files = srcFiles();
  return { code: sum(files.map((file) => codeLines(readFileSync(file, "utf8")))), files: files.length };
}

/** The first file under src/ that declares `fn` (a function, a const holding one, or a method), preferring files near the segment's folder. */
function locate(segment: Segment, files: string[]): string | undefined {
  const declares = new RegExp(`(function\\*?\\s+${segment.fn}\\s*[(<]|(const|let)\\s+${segment.fn}\\s*[=:]|^\\s+(async\\s+)?${segment.fn}\\s*\\([^)]*\\)\\s*\\{)`, "m");
  const holding = files.filter((file) => declares.test(readFileSync(file, "utf8")));
  return holding.find((file) => segment.near.test(file)) ?? holding[0];
}

function routeCrossings() {
  const files = srcFiles();
  return Object.fromEntries(
    Object.entries(ROUTES).map(([name, route]) => {
      const found = route.segments.map((segment) => ({ segment, file: locate(segment, files) }));
      const present = found.filter((entry): entry is { segment: Segment; file: string } => entry.file !== undefined);
      const counts: Array<RouteCount & { name: string }> = countCrossings(".", present.map(({ segment, file }) => ({ name: segment.fn, files: [relative(".", file)], fn: segment.fn })));
      const byFolders: Record<string, number> = {};
      for (const count of counts) for (const [pair, n] of Object.entries(count.byFolders)) byFolders[pair] = (byFolders[pair] ?? 0) + n;
      return [
        name,
        {
          description: route.description,
          crossings: sum(counts.map((count) => count.crossings)),
          target: 6,
          segments: counts.map((count) => ({ entry: count.entry, crossings: count.crossings, throughPorts: count.throughPorts, intoDomain: count.intoDomain })),
          byFolders,
          missing: found.filter((entry) => entry.file === undefined).map((entry) => entry.segment.fn),
        },
      ];
    }),
  );
}

/**
 * CPU seconds (user + system) of the children this process has waited for, from /proc/self/stat
 * (cutime and cstime, in clock ticks of 1/100 s), or null off Linux. A process that detached
 * (the run's PostgreSQL server) is not counted.
 */
function childCpuSeconds(): number | null {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return null;
  }
}

/** Clones HEAD, builds it and runs its suite as CI does; records the timings (and the wall and CPU time) in this checkout. */
function measureSuite(): void {
  const clone = mkdtempSync(join(tmpdir(), "steamharness-suite-"));
  // A checkout's folder is world-readable as a git clone's is (mkdtemp makes it 0700): the SES-5
  // read-only test runs its child as an unprivileged user when the suite runs as root.
  chmodSync(clone, 0o755);
  try {
    execFileSync("git", ["clone", "--quiet", "--local", ".", clone], { stdio: "inherit" });
    execFileSync("cp", ["-al", resolve("node_modules"), join(clone, "node_modules")]);
    rmSync(join(clone, "node_modules/steamharness"), { force: true });
    execFileSync("npm", ["run", "build"], { cwd: clone, stdio: "inherit" });
    const report = join(clone, "suite.json");
    const cpuBefore = childCpuSeconds();
    const run = spawnSync("npm", ["test", "--", "--json", `--outputFile=${report}`], { cwd: clone, stdio: "inherit", env: { ...process.env, CI: "true" } });
    if (run.status !== 0) throw new Error(`the suite failed on the clone (exit ${run.status}): no figure recorded`);
    // The clone's paths are what the report names: the timings are written there, then copied here.
    const cpuAfter = childCpuSeconds();
    execFileSync(process.execPath, ["test/jest-timings.mjs", report], { cwd: clone, stdio: "inherit" });
    const { files, ...head } = JSON.parse(readFileSync(join(clone, TIMINGS), "utf8")) as Record<string, unknown>;
    const cpuSeconds = cpuBefore === null || cpuAfter === null ? null : Math.round(cpuAfter - cpuBefore);
    writeFileSync(TIMINGS, `${JSON.stringify({ ...head, cpuSeconds, files }, null, 1)}\n`);
  } finally {
    rmSync(clone, { recursive: true, force: true });
  }
}

function suite() {
  if (!existsSync(TIMINGS)) return { wallSeconds: null, reason: `${TIMINGS} is missing` };
  const timings = JSON.parse(readFileSync(TIMINGS, "utf8")) as { measured?: string; wallSeconds?: number; cpuSeconds?: number; command?: string };
  return { wallSeconds: timings.wallSeconds ?? null, cpuSeconds: timings.cpuSeconds ?? null, measured: timings.measured ?? null, target: 360, command: timings.command ?? null };
}

if (process.argv.includes("--suite")) measureSuite();
const existing = existsSync(OUTPUT) ? (JSON.parse(readFileSync(OUTPUT, "utf8")) as Record<string, unknown>) : {};
const issue44 = {
  measured: new Date().toISOString().slice(0, 10),
  commit: execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim(),
  storageLines: storageLines(),
  storageDuplicatePairs: storageDuplicates(),
  publicNames: publicNames(),
  srcLines: srcLines(),
  routeCrossings: routeCrossings(),
  suite: suite(),
};
writeFileSync(OUTPUT, `${JSON.stringify({ ...existing, issue44 }, null, 2)}\n`);
const crossings = Object.fromEntries(Object.entries(issue44.routeCrossings).map(([name, route]) => [name, route.crossings]));
console.log(JSON.stringify({ storageLines: issue44.storageLines.total, storageDuplicatePairs: issue44.storageDuplicatePairs.pairs, rootNames: "root" in issue44.publicNames ? issue44.publicNames.root : null, srcLines: issue44.srcLines.code, crossings, suiteWallSeconds: issue44.suite.wallSeconds }));
