// Rewrites test/jest-timings.json (the durations test/jest-sequencer.mjs orders CI's test files
// by) from the JSON report of a full run:
//   npm test -- --json --outputFile=/tmp/suite.json && node test/jest-timings.mjs /tmp/suite.json
// Each file's duration is its wall time in that run (ms, rounded to 100 ms): what matters is
// the order, not the figures (they grow with the machine's load). `wallSeconds` is the run's wall
// time (from jest's start to the last file's end: ARCH-12's figure, which
// bench/architecture.bench.ts reports; `--suite` there measures it on a fresh clone and adds
// `cpuSeconds`, the run's CPU time).
// `--merge` (a partial run, e.g. of files added since the last full one beside a few files it
// timed): keeps the committed figures and adds the report's other files, scaled by the ratio of
// committed to measured time of the files both know (a loaded machine runs everything slower).
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const report = process.argv[2];
if (!report) {
  process.stderr.write("usage: node test/jest-timings.mjs <jest --json output>\n");
  process.exit(2);
}
const json = JSON.parse(readFileSync(report, "utf8"));
const results = json.testResults;
const files = Object.fromEntries(
  results
    .map((result) => [relative(root, result.name).split("\\").join("/"), Math.round((result.endTime - result.startTime) / 100) * 100])
    .sort(([a, ma], [b, mb]) => mb - ma || (a < b ? -1 : 1)),
);
const committed = JSON.parse(readFileSync(resolve(root, "test/jest-timings.json"), "utf8"));
const command = "CI=true npm test -- --json --outputFile=/tmp/suite.json && node test/jest-timings.mjs /tmp/suite.json [--merge] (a fresh clone's full run: npm run bench -- architecture --suite)";
if (process.argv.includes("--merge")) {
  const known = Object.keys(files).filter((file) => file in committed.files);
  const sum = (values) => values.reduce((a, b) => a + b, 0);
  const scale = known.length === 0 ? 1 : sum(known.map((file) => committed.files[file])) / sum(known.map((file) => files[file]));
  const added = Object.entries(files).filter(([file]) => !(file in committed.files));
  const merged = Object.fromEntries(
    [...Object.entries(committed.files), ...added.map(([file, ms]) => [file, Math.round((ms * scale) / 100) * 100])].sort(([a, ma], [b, mb]) => mb - ma || (a < b ? -1 : 1)),
  );
  const measured = `${committed.measured}; ${added.length} files added ${new Date().toISOString().slice(0, 10)} (--merge, scaled ×${scale.toFixed(2)} by ${known.length} files timed in both runs)`;
  writeFileSync(resolve(root, "test/jest-timings.json"), `${JSON.stringify({ measured, wallSeconds: committed.wallSeconds ?? null, cpuSeconds: committed.cpuSeconds ?? null, command, files: merged }, null, 1)}\n`);
  process.stdout.write(`test/jest-timings.json: ${added.length} files added\n`);
} else {
  const measured = `${new Date().toISOString().slice(0, 10)}, ${results.length} files`;
  const wallSeconds = Math.round((Math.max(...results.map((result) => result.endTime)) - json.startTime) / 1000);
  writeFileSync(resolve(root, "test/jest-timings.json"), `${JSON.stringify({ measured, wallSeconds, command, files }, null, 1)}\n`);
  process.stdout.write(`test/jest-timings.json: ${results.length} files\n`);
}
