// ARCH-12: CPU seconds per test file, to tell a file that computes from one that waits (on the
// processes it starts, on PostgreSQL, on timers). Wall time alone cannot: it grows with the
// machine's load and with the other workers. Only an in-band run can say (a worker's children are
// reaped, and counted, only when the worker exits), so run the files in jest's own process:
//   npm test -- --runInBand <files…> --reporters=default --reporters=./test/jest-cpu-reporter.mjs
// Each file's line: user + system seconds of the jest process and of the children it reaped while
// the file ran (from /proc/self/stat; Linux), and its wall seconds. JEST_CPU_REPORT names the output
// (default jest-cpu.json in the working directory); it is rewritten after every file, so an
// interrupted run keeps what it measured. CPU over a quiet run's wall of the same file is how
// much of a core the file kept busy.
import { readFileSync, writeFileSync } from "node:fs";
import { relative } from "node:path";

/**
 * User + system CPU seconds of this process and of its reaped children.
 *
 * @example
 * const before = cpuSeconds(); work(); const spent = cpuSeconds() - before;
 */
export function cpuSeconds() {
  // Fields after the command's closing parenthesis: state is the first, utime the 12th.
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ").at(-1).split(" ");
  return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) / 100;
}

/**
 * A jest reporter writing each file's CPU and wall seconds (see the top of this file).
 *
 * @example
 * // npm test -- --runInBand test/cli --reporters=default --reporters=./test/jest-cpu-reporter.mjs
 */
export default class CpuReporter {
  #started = new Map();
  #rows = [];

  onTestFileStart(test) {
    this.#started.set(test.path, { cpu: cpuSeconds(), wall: Date.now() });
  }

  onTestFileResult(test, result) {
    const started = this.#started.get(test.path);
    if (!started) return;
    const file = relative(test.context.config.rootDir, test.path).split("\\").join("/");
    this.#rows.push({ file, cpuSeconds: +(cpuSeconds() - started.cpu).toFixed(2), wallSeconds: +((Date.now() - started.wall) / 1000).toFixed(2), failed: result.numFailingTests });
    writeFileSync(process.env.JEST_CPU_REPORT ?? "jest-cpu.json", `${JSON.stringify(this.#rows, null, 1)}\n`);
  }
}
