// Jest runs in native ESM mode (node --experimental-vm-modules, see package.json "test").
// Why: the provider library (@mariozechner/pi-ai) and its dependencies are ESM-only; transforming
// node_modules to CJS is brittle (import.meta, top-level await). Our TypeScript is compiled by
// @swc/jest to ESM; `.js` suffixes on relative imports are mapped back to the `.ts` sources.
import { bundledModuleMap } from "./test/jest-modules.mjs";

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
  // TypeBox, zod, the provider SDKs and drizzle load as bundles of a few files instead of ~100-200
  // modules each per test file: see the file.
  moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1", ...(await bundledModuleMap()) },
  testMatch: ["<rootDir>/test/**/*.test.ts"],
  testTimeout: 30000,
  // Two workers on CI's two cores (ARCH-12). A third was tried in stop 49 (per-file CPU over wall
  // suggested two workers kept ~1.5 cores busy): quiet fresh-clone runs the same day took 852.9 s
  // of jest with three workers and 842.1 s with two — the waits it filled were paid back in
  // contention (docs-blocks 84 s, mcp-pool 120 s with three).
  maxWorkers: 2,
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
