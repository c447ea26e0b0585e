// Types only: the tests import `libraryEntries` from this file, and loading tsup itself there
// (its `defineConfig` is the identity) printed jest's "Failed to parse the inline source map"
// warning for tsup's bundle, which holds a source-map comment template.
import type { Options } from "tsup";

/** Library entries; a test checks these stay in step with package.json "exports". */
export const libraryEntries = {
  index: "src/index.ts",
  agent: "src/agent.ts",
  testing: "src/testing.ts",
  memory: "src/memory.ts",
  sqlite: "src/sqlite.ts",
  ports: "src/ports.ts",
  configuration: "src/configuration.ts",
  capabilities: "src/capabilities.ts",
  mcp: "src/mcp.ts",
  postgres: "src/postgres.ts",
  gateway: "src/gateway.ts",
  viewer: "src/viewer.ts",
  opentelemetry: "src/opentelemetry.ts",
};

// PERF-1: TypeBox is bundled (its ESM build is hundreds of small files; resolving them cost
// ~130 ms per process, bundled it is a few ms). Its schemas are marked with `Symbol.for` kinds,
// so a user's own TypeBox copy and ours read each other's schemas. The `.d.ts` files still import
// types from the real `@sinclair/typebox`, which stays a dependency.
const bundled = ["@sinclair/typebox"];
// The SDKs pi-ai brings are used directly by the provider adapter (SEC-6) and stay pi-ai's copies.
// OpenTelemetry stays the host's own copy (the API keeps one global registry per process).
// esbuild (a native binary) is loaded by `gateway --ui` only, from the host's node_modules (UI-6).
const external = ["@mariozechner/pi-ai", "openai", "@anthropic-ai/sdk", "better-sqlite3", "pg", /^@opentelemetry\//, "esbuild"];

// Source maps without the sources' text (`sourcesContent`): two thirds of the maps' 24 MB were
// copies of src/ and of the bundled packages, which the package does not otherwise ship. The
// mappings stay: `node --enable-source-maps` still names src/… files and lines in a stack trace
// (what a bug report needs), and in a checkout a debugger opens them from src/ itself. The
// tarball is 37 → 20 MB unpacked, which every install and the pack test unpack (ARCH-12).
const maps: Pick<Options, "sourcemap" | "esbuildOptions"> = { sourcemap: true, esbuildOptions: (options) => void (options.sourcesContent = false) };

const library: Options = {
  entry: libraryEntries,
  ...maps,
  target: "node20",
  external,
  noExternal: bundled,
};

const config: Options[] = [
  // ESM with code splitting: `import()` of an adapter (QuickJS, the MCP SDK, SQLite sessions, the
  // provider library) becomes a chunk loaded on first use instead of being inlined with its
  // packages hoisted to static imports of the entry.
  { ...library, format: ["esm"], splitting: true, clean: true },
  // CJS stays one file per entry (esbuild splits ESM only); there a dynamic `import()` of our own
  // module becomes a lazily initialised wrapper whose `require` calls run on first use.
  // `import.meta` is empty there, as esbuild warns for each use: every use is guarded for CommonJS
  // (`typeof __dirname`/`__filename` first, or `import.meta.url ? … : require`), so that one
  // warning is off here, where it can only repeat what the code already handles.
  {
    ...library,
    format: ["cjs"],
    splitting: false,
    esbuildOptions: (options, context) => {
      library.esbuildOptions!(options, context);
      options.logOverride = { ...options.logOverride, "empty-import-meta": "silent" };
    },
  },
  // The declarations, once for both formats: one TypeScript program and one rollup bundle write
  // dist/*.d.ts and dist/*.d.cts together. With `dts: true` on the two configs above, each built
  // its own program over the same sources — the build's longest step, run twice.
  { ...library, format: ["esm", "cjs"], dts: { only: true } },
  // Cold start: drizzle's SQLite side as one CommonJS file, dist/drizzle-sqlite.cjs, which the SQLite
  // adapters of every build above (and of the CLI below) load instead of drizzle's ~110 files.
  {
    entry: { "drizzle-sqlite": "src/adapters/driven/sqlite/shared/drizzle-sqlite-bundle.ts" },
    format: ["cjs"],
    ...maps,
    target: "node20",
    external: ["better-sqlite3"],
    noExternal: [/^drizzle-orm(\/|$)/],
  },
  ...Object.entries({ cli: "src/cli.ts", "workflow-worker": "src/compose/workflow-worker.ts", "sandbox-worker": "src/adapters/driven/sandbox/sandbox-worker.ts" }).map(([name, file]): Options => ({
    // One build per process entry (the workflow worker and the sandbox worker thread, SEC-3, are
    // found next to the CLI bundle): built together, esbuild cut their code into a chunk per set of
    // entries sharing it, and every process started by loading a hundred small chunks, each one an
    // ESM module resolved, compiled and linked at start (ARCH-12).
    entry: { [name]: file },
    format: ["esm"],
    ...maps,
    target: "node20",
    // Cold start: the CLI also inlines the MCP Apps helpers. The MCP SDK's v2 packages stay
    // external: each is a handful of bundled files (the v1 SDK it replaced was a few hundred ESM
    // and CommonJS files, with express, and was inlined here for that reason). The library
    // entries keep the SDK external too (a host's own SDK objects meet ours there). `require` is
    // defined for inlined CommonJS code (its requires of node built-ins).
    banner: { js: '#!/usr/bin/env node\nimport { createRequire as __steamharnessCreateRequire } from "node:module";\nconst require = __steamharnessCreateRequire(import.meta.url);' },
    external,
    // commander and dotenv too: imported from ESM, each CommonJS file was resolved and scanned
    // for its export names (cjs-module-lexer) before the first line of the CLI ran.
    noExternal: [...bundled, "@modelcontextprotocol/ext-apps", "commander", "dotenv"],
  })),
];

export default config;
