// Root import benchmark (PERF-1, issue 16 item 6). Run:
//   npm run bench -- import        (or: node --import tsx bench/import.bench.ts)
// Wall time of a fresh node process that imports the built root entry, versus `node -e 0`, in
// interleaved rounds (median of 21 each; target: ESM import ≤ 2× `node -e 0`):
//   (a) ESM: `node esm.mjs` where esm.mjs is `await import(".../dist/index.js")`
//   (b) CJS: `node cjs.cjs` where cjs.cjs is `require(".../dist/index.cjs")` (report, same target)
//   (c) `steamharness --version` (the built bin; report)
// Builds the library and the bin from the current sources with tsup.config.ts's own options
// (declarations off) into bench/tmp/import/dist first. Results go to bench/results/import.json.
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type { Options } from "tsup";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const work = join(here, "tmp", "import");
const outDir = join(work, "dist");
const ROUNDS = 21;
const TARGET = 2;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (value: number, digits = 2) => Number(value.toFixed(digits));

/** Builds every tsup.config.ts entry (ESM with its chunks, CJS, the bin) into `outDir`. */
async function build(): Promise<void> {
  const { build: tsup } = await import("tsup");
  const configs = (await import("../tsup.config.js")).default as unknown as Options[];
  rmSync(outDir, { recursive: true, force: true });
  // The declarations-only config has nothing to build without declarations.
  for (const config of configs) {
    if (typeof config.dts === "object" && config.dts.only) continue;
    await tsup({ ...config, outDir, dts: false, clean: false, sourcemap: false, silent: true, config: false });
  }
}

/** Wall milliseconds of one process run to exit (stdout and stderr discarded; a failure aborts the benchmark). */
function wall(args: string[]): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  const elapsed = performance.now() - started;
  if (result.status !== 0) throw new Error(`node ${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  return elapsed;
}

async function main(): Promise<void> {
  mkdirSync(work, { recursive: true });
  await build();
  const esm = join(work, "esm.mjs");
  const cjs = join(work, "cjs.cjs");
  writeFileSync(esm, `await import(${JSON.stringify(join(outDir, "index.js"))});\n`);
  writeFileSync(cjs, `require(${JSON.stringify(join(outDir, "index.cjs"))});\n`);
  const runs = {
    nodeE0: ["-e", "0"],
    esm: [esm],
    cjs: [cjs],
    cliVersion: [join(outDir, "cli.js"), "--version"],
  } satisfies Record<string, string[]>;
  const names = Object.keys(runs) as Array<keyof typeof runs>;
  const samples = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<keyof typeof runs, number[]>;
  for (const name of names) wall(runs[name]); // warm the file cache once; not counted
  const loadBefore = loadavg()[0];
  for (let i = 0; i < ROUNDS; i++) {
    // Rotate the order each round so that no kind always runs right after another.
    for (let j = 0; j < names.length; j++) {
      const name = names[(i + j) % names.length]!;
      samples[name].push(wall(runs[name]));
    }
  }
  const base = median(samples.nodeE0);
  const figure = (name: keyof typeof runs, target?: number) => {
    const ms = median(samples[name]);
    const ratio = round(ms / base);
    return { ms: round(ms), ratio, ...(target === undefined ? {} : { target, withinTarget: ratio <= target }) };
  };
  const result = {
    benchmark: "import",
    node: process.version,
    built: "bench/tmp/import/dist (tsup, tsup.config.ts's options without declarations or source maps)",
    definition: `wall time of a fresh node process to exit, median of ${ROUNDS} interleaved rounds; ratios to node -e 0 in the same run`,
    loadAverage1m: { before: round(loadBefore), after: round(loadavg()[0]) },
    nodeE0Ms: round(base),
    esmImport: { definition: "node esm.mjs: await import(dist/index.js)", ...figure("esm", TARGET) },
    cjsRequire: { definition: "node cjs.cjs: require(dist/index.cjs)", ...figure("cjs", TARGET) },
    cliVersion: { definition: "node dist/cli.js --version", ...figure("cliVersion") },
  };
  mkdirSync(join(here, "results"), { recursive: true });
  writeFileSync(join(here, "results", "import.json"), `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result, null, 2));
}

await main();
