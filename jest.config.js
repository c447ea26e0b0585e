// Jest runs in native ESM mode (node --experimental-vm-modules, see package.json "test").
// Why: the provider library (@mariozechner/pi-ai) and its dependencies are ESM-only; transforming
// node_modules to CJS is brittle (import.meta, top-level await). Our TypeScript is compiled by
// @swc/jest to ESM; `.js` suffixes on relative imports are mapped back to the `.ts` sources.
/** @type {import('jest').Config} */
export default {
  testEnvironment: "node",
  extensionsToTreatAsEsm: [".ts"],
  transform: {
    "^.+\\.ts$": [
      "@swc/jest",
      {
        jsc: { parser: { syntax: "typescript" }, target: "es2022" },
        module: { type: "es6" },
      },
    ],
  },
  moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
  testMatch: ["<rootDir>/test/**/*.test.ts"],
  testTimeout: 30000,
  // Three workers on CI's two cores (ARCH-12): part of a test file's time is waiting: on the
  // processes it starts (servers, workers, CLIs coming up), on PostgreSQL, on timed runs, leases and
  // sweeps. Measured per file (test/jest-cpu-reporter.mjs or /usr/bin/time, at load 15-28): CPU
  // seconds over the file's wall seconds in the last quiet two-worker fresh-clone run (769 s) are
  // 0.59 over thirteen of the heaviest (184 CPU-s in 311 s: tasks-eager-takeover 0.18,
  // approval-sweeper 0.24, conformance 0.47, mcp-pool 0.55, durable torture 1.09), 0.91 over 45
  // others (up to 2.4: children on both cores), 0.75 together. Loaded CPU runs high, so two workers
  // kept at most ~1.5 of the 2 cores busy; a third fills the waits.
  maxWorkers: 3,
  // In ESM mode every test file keeps its module graph in the worker's heap (measured with
  // --logHeapUsage: ~790 MB per worker by the end of a full run). Exiting such a worker took
  // longer than jest's 500 ms grace, so every full run ended with "A worker process has failed to
  // exit gracefully". Workers above 256 MB after a file are replaced: heaps stay ≤ ~320 MB, the
  // notice is gone, and the run is no slower.
  workerIdleMemoryLimit: "256MB",
  // The longest files first, also on a clean clone without jest's cache (CI): see the file.
  testSequencer: "<rootDir>/test/jest-sequencer.mjs",
  // One throwaway PostgreSQL cluster for the run unless STEAMHARNESS_TEST_POSTGRES_URL names one
  // (or a line saying which suites are skipped when this machine has no initdb): see the file.
  globalSetup: "<rootDir>/test/jest-postgres.mjs",
  globalTeardown: "<rootDir>/test/jest-postgres-teardown.mjs",
};
