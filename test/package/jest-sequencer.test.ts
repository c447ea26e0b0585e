// DX-1 `npm test` on a clean clone (CI has no jest cache): the test files run longest first by
// the committed durations, so the two workers finish together.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "@jest/globals";
// @ts-expect-error: a JavaScript module of the jest configuration, without declarations
import SlowestFirstSequencer, { committedTimings } from "../jest-sequencer.mjs";

const rootDir = resolve(".");
type FakeTest = { path: string; context: { config: { rootDir: string; cache: boolean; cacheDirectory: string; id: string }; hasteFS: { getSize: (path: string) => number } } };

function fakeTests(files: Record<string, number>): FakeTest[] {
  // Without jest's cache (`cache: false`, as on a clean clone): only the committed durations are known.
  const context = { config: { rootDir, cache: false, cacheDirectory: "/nonexistent", id: "t" }, hasteFS: { getSize: (path: string) => files[path.slice(rootDir.length + 1)] ?? 0 } };
  return Object.keys(files).map((file) => ({ path: join(rootDir, file), context }));
}

describe("DX-1 test order without jest's cache", () => {
  it("DX-1 files with a committed duration run first, longest first; the others after them, largest first", () => {
    const timings = committedTimings() as Record<string, number>;
    const known = Object.entries(timings).sort(([, a], [, b]) => b - a).map(([file]) => file);
    expect(known.length).toBeGreaterThan(100);
    const [slowest, , third] = known as [string, string, string];
    // Sizes that would order them the other way round (jest's own fallback).
    const tests = fakeTests({ "test/not-timed-small.test.ts": 10, [third]: 1, "test/not-timed-large.test.ts": 1_000_000, [slowest]: 2 });
    const sorted = (new SlowestFirstSequencer({}) as { sort(tests: FakeTest[]): FakeTest[] }).sort(tests).map((test) => test.path.slice(rootDir.length + 1));
    expect(sorted).toEqual([slowest, third, "test/not-timed-large.test.ts", "test/not-timed-small.test.ts"]);
  });

  it("DX-1 the committed durations name test files of this repository (none left for a moved or deleted file)", () => {
    const missing = Object.keys(committedTimings() as Record<string, number>).filter((file) => !file.endsWith(".test.ts") || !existsSync(file));
    expect(missing).toEqual([]);
  });
});
