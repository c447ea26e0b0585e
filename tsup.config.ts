import { defineConfig } from "tsup";

/** Library entries; a test checks these stay in step with package.json "exports". */
export const libraryEntries = {
  index: "src/index.ts",
  agent: "src/agent.ts",
  testing: "src/testing.ts",
  postgres: "src/postgres.ts",
  gateway: "src/gateway.ts",
};

export default defineConfig([
  {
    entry: libraryEntries,
    format: ["esm", "cjs"],
    dts: true,
    sourcemap: true,
    clean: true,
    target: "node20",
    splitting: false,
    external: ["@mariozechner/pi-ai", "better-sqlite3", "pg"],
  },
  {
    entry: { cli: "src/cli.ts", "workflow-worker": "src/adapters/workflow/worker-main.ts" },
    format: ["esm"],
    sourcemap: true,
    target: "node20",
    banner: { js: "#!/usr/bin/env node" },
    external: ["@mariozechner/pi-ai", "better-sqlite3", "pg"],
  },
]);
