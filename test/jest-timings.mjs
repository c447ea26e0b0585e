// Rewrites test/jest-timings.json (the durations test/jest-sequencer.mjs orders CI's test files
// by) from the JSON report of a full run:
//   npm test -- --json --outputFile=/tmp/suite.json && node test/jest-timings.mjs /tmp/suite.json
// Each file's duration is its wall time in that run (ms, rounded to 100 ms): what matters is
// the order, not the figures (they grow with the machine's load). `wallSeconds` is the run's wall
// time (from jest's start to the last file's end: ARCH-12's figure, which
// bench/architecture.bench.ts reports; `--suite` there measures it on a fresh clone).
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
const measured = `${new Date().toISOString().slice(0, 10)}, ${results.length} files`;
const wallSeconds = Math.round((Math.max(...results.map((result) => result.endTime)) - json.startTime) / 1000);
const command = "CI=true npm test -- --json --outputFile=/tmp/suite.json && node test/jest-timings.mjs /tmp/suite.json (on a fresh clone after npm ci && npm run build: npm run bench -- architecture --suite)";
writeFileSync(resolve(root, "test/jest-timings.json"), `${JSON.stringify({ measured, wallSeconds, command, files }, null, 1)}\n`);
process.stdout.write(`test/jest-timings.json: ${results.length} files\n`);
