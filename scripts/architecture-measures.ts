/**
 * Architecture measures of issue 23 (ARCH-3), written to `bench/results/architecture.json`:
 *
 * - `storageLines`: non-blank, non-comment lines of TypeScript in the storage adapters (memory,
 *   SQLite, PostgreSQL and the store kernel), counted the same way on the base commit (read with
 *   `git show`) and on the working tree. `movedIn` names files that sat outside those folders at
 *   the base and inside them now (counted in `after`, not in `before`), with `beforeLikeForLike`
 *   adding their base lines to `before`.
 * - `storageDuplicatePairs`: pairs of places (six or more lines of the same shape) between two
 *   different storage folders, found by the workplace tool `duplicates` over a copy of just those
 *   folders, before and after. `null` with a reason when the tool is not on PATH.
 *
 * - `folderCrossings` (ARCH-5): calls that enter a different folder on the route of one agent
 *   turn and of one session-host run (scripts/architecture-crossings.ts says how they are
 *   counted), on each commit of `CROSSING_BASES` (read with `git archive`) and on the working tree.
 *
 * Other measures of the file are kept: only these keys are rewritten (`--crossings-only`: only
 * `folderCrossings`).
 *
 * Run: `node --import tsx scripts/architecture-measures.ts [--base <commit>] [--crossings-only]`
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { countCrossings, ROUTES } from "./architecture-crossings.js";
import { storageFigures } from "./storage-figures.js";

const BASE = process.argv.includes("--base") ? process.argv[process.argv.indexOf("--base") + 1] : "f1f6d79";
/** The storage folders now (src/adapters/driven/…) and at the base, before the hexagon move (src/adapters/…), by family. */
const FAMILY_NAMES = ["memory", "sqlite", "postgres", "kernel"];
export const FAMILIES = FAMILY_NAMES.map((family) => `src/adapters/driven/${family}`);
const BASE_FAMILIES = ["memory", "sqlite", "postgres", "store-kernel"].map((family) => `src/adapters/${family}`);
/** A storage file's family (`sqlite`, …; the kernel under either name). */
const familyOf = (path: string): string => path.replace(/^src\/adapters\/(out\/|driven\/)?/, "").split("/")[0]!.replace("store-kernel", "kernel");
const OUTPUT = "bench/results/architecture.json";
/** Files that were outside the storage folders at the base and moved in (base path → current path). */
const MOVED_IN: Record<string, string> = {
  "src/adapters/viewer/sqlite-session-catalog.ts": "src/adapters/driven/sqlite/sessions/sqlite-session-catalog.ts",
  "src/adapters/shared/kv-token-usage.ts": "src/adapters/driven/kernel/kv-token-usage.ts",
};

const git = (...args: string[]): string => execFileSync("git", args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });

/** Lines that are neither blank nor only comment (`//`, or inside / opening a block comment). */
export function codeLines(text: string): number {
  let count = 0;
  let inBlock = false;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (inBlock) {
      if (line.includes("*/")) inBlock = false;
      continue;
    }
    if (line === "" || line.startsWith("//")) continue;
    if (line.startsWith("/*")) {
      const end = line.indexOf("*/", 2);
      if (end === -1) inBlock = true;
      else if (line.slice(end + 2).trim() !== "") count++;
      continue;
    }
    count++;
  }
  return count;
}

/**
 * The `.ts` files under `dir` (recursively; none when it is missing).
 *
 * @example
 * filesUnder("src/adapters/driven/kernel") // ["src/adapters/driven/kernel/budget-ledger.ts", …]
 */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith(".ts") ? [path] : [];
  });
}

const baseFiles = (): string[] => git("ls-tree", "-r", "--name-only", BASE, "--", ...BASE_FAMILIES).split("\n").filter((path) => path.endsWith(".ts"));
const baseText = (path: string): string => git("show", `${BASE}:${path}`);

function lineCounts() {
  const perFolder = (files: string[], read: (path: string) => string) =>
    Object.fromEntries(FAMILY_NAMES.map((family) => [family, files.filter((file) => familyOf(file) === family).reduce((sum, file) => sum + codeLines(read(file)), 0)]));
  const before = perFolder(baseFiles(), baseText);
  const after = perFolder(FAMILIES.flatMap(filesUnder), (path) => readFileSync(path, "utf8"));
  const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
  const movedInLines = Object.keys(MOVED_IN).reduce((sum, path) => sum + codeLines(baseText(path)), 0);
  return {
    base: BASE,
    before: total(before),
    after: total(after),
    delta: total(after) - total(before),
    perFolder: { before, after },
    movedIn: MOVED_IN,
    beforeLikeForLike: total(before) + movedInLines,
    deltaLikeForLike: total(after) - total(before) - movedInLines,
  };
}

/** Copies the storage folders (from the base commit or the working tree) into a fresh folder. */
function materialize(fromBase: boolean): string {
  const root = mkdtempSync(join(tmpdir(), "arch-measures-"));
  const files = fromBase ? baseFiles() : FAMILIES.flatMap(filesUnder);
  for (const file of files) {
    const target = join(root, familyOf(file), relative(fromBase ? BASE_FAMILIES.find((folder) => file.startsWith(`${folder}/`))! : FAMILIES.find((folder) => file.startsWith(`${folder}/`))!, file));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, fromBase ? baseText(file) : readFileSync(file, "utf8"));
  }
  return root;
}

interface DuplicatePair {
  left: string;
  right: string;
  boilerplate: boolean;
}

/**
 * The duplicate pairs between two different storage folders, of the base commit or the working tree.
 *
 * @example
 * duplicatePairs(false).pairs.length // 11
 */
export function duplicatePairs(fromBase: boolean): { pairs: DuplicatePair[]; report: string } {
  const root = materialize(fromBase);
  try {
    const run = spawnSync("duplicates", ["--repo", root, "--most", "200", "--seconds", "120"], { cwd: root, encoding: "utf8" });
    if (run.error) throw run.error;
    const family = (place: string) => place.split("/")[0];
    const pairs = run.stdout
      .split("\n")
      .map((line) => /^D\d+ (\S+) ~ (\S+)(.*)$/.exec(line))
      .filter((match): match is RegExpExecArray => match !== null && family(match[1]) !== family(match[2]))
      .map((match) => ({ left: match[1], right: match[2], boilerplate: /\bboilerplate\b/.test(match[3]) }));
    return { pairs, report: run.stdout.split("\n")[0] ?? "" };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** The figure CI checks (scripts/storage-figures.ts), computed without the workplace tool. */
const ciPairs = () => {
  const { pairs } = storageFigures(".");
  return { definition: "pairs of files in two storage folders sharing a run of 6 code lines of the same shape (scripts/storage-figures.ts)", pairs: pairs.length, places: pairs };
};

function duplicateCounts() {
  const probe = spawnSync("duplicates", ["--help"], { encoding: "utf8" });
  if (probe.error) return { before: null, after: null, reason: "the workplace tool `duplicates` is not on PATH", ci: ciPairs() };
  const before = duplicatePairs(true);
  const after = duplicatePairs(false);
  const summary = (found: { pairs: DuplicatePair[] }) => ({
    pairs: found.pairs.length,
    notBoilerplate: found.pairs.filter((pair) => !pair.boilerplate).length,
    places: found.pairs.map((pair) => `${pair.left} ~ ${pair.right}${pair.boilerplate ? " (boilerplate)" : ""}`),
  });
  return { definition: "pairs of places of >= 6 same-shape lines between two different storage folders (memory, sqlite, postgres, kernel)", before: summary(before), after: summary(after), ci: ciPairs() };
}

/** Where the crossings are counted before: the commit, and main after the hexagon move (before ARCH-5). */
const CROSSING_BASES = ["f1f6d79", "3d36de1"];

/** The `src/` of a commit in a fresh folder, with this checkout's `node_modules` for the checker. */
function checkout(commit: string): string {
  const root = mkdtempSync(join(tmpdir(), "arch-crossings-"));
  execFileSync("sh", ["-c", `git archive ${commit} src | tar -x -C ${JSON.stringify(root)}`]);
  execFileSync("ln", ["-s", resolve("node_modules"), join(root, "node_modules")]);
  return root;
}

function crossingCounts() {
  const counted = (root: string) => Object.fromEntries(countCrossings(root, ROUTES).map(({ name, ...count }) => [name, count]));
  const before = Object.fromEntries(
    CROSSING_BASES.map((commit) => {
      const root = checkout(commit);
      try {
        return [commit, counted(root)];
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    }),
  );
  const after = counted(".");
  const first = before[CROSSING_BASES[0]!]!;
  const goal = Object.fromEntries(ROUTES.map(({ name }) => [name, { before: first[name]!.crossings, after: after[name]!.crossings, halved: after[name]!.crossings * 2 <= first[name]!.crossings }]));
  return {
    definition: "call sites on the route of an entry function (static calls resolved by the TypeScript checker, following callees with a body in src/) whose callee is declared in another area folder; crossings leaves out calls into the pure domain (intoDomain) and through src/ports interfaces (throughPorts); backAndForth: crossings between two folders that call each other on the route",
    routes: Object.fromEntries(ROUTES.map((route) => [route.name, `${route.files.join(" | ")}#${route.fn}`])),
    before,
    after,
    goal,
  };
}

// Run as a script only: bench/architecture.bench.ts imports the counters above (ARCH-12).
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const existing = existsSync(OUTPUT) ? (JSON.parse(readFileSync(OUTPUT, "utf8")) as Record<string, unknown>) : {};
  mkdirSync(dirname(OUTPUT), { recursive: true });
  if (process.argv.includes("--crossings-only")) {
    const result = { ...existing, folderCrossings: crossingCounts() };
    writeFileSync(OUTPUT, `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify(result.folderCrossings.goal));
  } else {
    const result = { ...existing, storageLines: lineCounts(), storageDuplicatePairs: duplicateCounts(), folderCrossings: crossingCounts() };
    writeFileSync(OUTPUT, `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify({ folderCrossings: result.folderCrossings.goal, storageLines: { before: result.storageLines.before, after: result.storageLines.after, delta: result.storageLines.delta, deltaLikeForLike: result.storageLines.deltaLikeForLike }, storageDuplicatePairs: { before: (result.storageDuplicatePairs.before as { pairs?: number } | null)?.pairs ?? null, after: (result.storageDuplicatePairs.after as { pairs?: number } | null)?.pairs ?? null } }));
  }
}
