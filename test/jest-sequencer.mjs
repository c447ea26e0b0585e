// The order in which jest hands test files to its two workers (jest.config.js `testSequencer`).
//
// Jest's own order runs the files that took longest last time first, so that both workers finish
// together — but it knows "last time" only from its cache, and CI runs on a clean clone without
// one: there it falls back to file size, which puts a short file with a long run (a torture sweep,
// a tsc check) near the end, where one worker runs it alone while the other has nothing left.
// This sequencer adds the committed durations of test/jest-timings.json (per file, measured in a
// full run: `node test/jest-timings.mjs <jest --json output>` rewrites it) for the files the
// cache does not know. Order: files that failed last time (from the cache) first, then by
// duration (the cache's, else the committed one), longest first, then the files neither knows,
// largest first.
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import Sequencer from "@jest/test-sequencer";

const BaseSequencer = Sequencer.default ?? Sequencer;
const TIMINGS = new URL("./jest-timings.json", import.meta.url);

/**
 * The committed durations: test file path relative to the repository → milliseconds.
 *
 * @example
 * const known = committedTimings(); // { "test/package/pack.test.ts": 94100, ... }
 */
export function committedTimings() {
  try {
    return JSON.parse(readFileSync(TIMINGS, "utf8")).files ?? {};
  } catch {
    return {};
  }
}

export default class SlowestFirstSequencer extends BaseSequencer {
  #timings = committedTimings();

  /** The cache's duration of the file's last run, else the committed one, else undefined. */
  time(test) {
    return super.time(test) ?? this.#timings[relative(test.context.config.rootDir, test.path).split("\\").join("/")];
  }

  sort(tests) {
    const sizes = new Map();
    const size = (test) => {
      if (!sizes.has(test.path)) sizes.set(test.path, test.context.hasteFS.getSize(test.path) ?? 0);
      return sizes.get(test.path);
    };
    for (const test of tests) test.duration = this.time(test);
    return tests.sort((a, b) => {
      const failed = Number(this.hasFailed(b)) - Number(this.hasFailed(a));
      if (failed !== 0) return failed;
      const known = Number(b.duration != null) - Number(a.duration != null);
      if (known !== 0) return known;
      if (a.duration != null && b.duration !== a.duration) return b.duration - a.duration;
      return size(b) - size(a) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
    });
  }
}
