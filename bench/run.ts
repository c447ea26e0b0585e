/**
 * `npm run bench`: runs every bench/*.bench.ts in its own process, one after another (the machine
 * has two cores; parallel benchmarks would measure each other). Each benchmark prints ratios
 * against a baseline measured in the same run and writes bench/results/<name>.json.
 * `npm run bench -- storage agent` runs only the named ones.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

const wanted = process.argv.slice(2);
const benches = readdirSync("bench")
  .filter((name) => name.endsWith(".bench.ts"))
  .filter((name) => wanted.length === 0 || wanted.includes(name.replace(/\.bench\.ts$/, "")))
  .sort();

let failed = 0;
for (const name of benches) {
  process.stdout.write(`\n=== ${name} ===\n`);
  const started = Date.now();
  const result = spawnSync(process.execPath, ["--import", "tsx", join("bench", name)], { stdio: "inherit", env: { ...process.env, NODE_ENV: "production" } });
  process.stdout.write(`--- ${name}: exit ${result.status} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  if (result.status !== 0) failed++;
}
process.exitCode = failed === 0 ? 0 : 1;
