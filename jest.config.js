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
  maxWorkers: 2,
};
