import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

// PERF-1: the root entry loads no heavy backend. Checked on the built files as a consumer gets
// them (run `npm run build` first; CI does), from the modules a fresh node actually loaded: an
// ESM loader hook records every module URL the ESM loader loads, and `require.cache` lists every
// CommonJS module (what `createRequire` loads never reaches the ESM hooks). No timing here: the
// wall-clock figure is bench/import.bench.ts.

/** Packages the root entry must not load; each is needed only by the API that uses it. */
const HEAVY = ["@modelcontextprotocol/server", "@modelcontextprotocol/core", "@modelcontextprotocol/sdk", "zod", "drizzle-orm", "better-sqlite3", "pg", "quickjs-emscripten", "@mariozechner/pi-ai", "openai", "@anthropic-ai/sdk", "@opentelemetry/api", "@opentelemetry/sdk-node", "@opentelemetry/sdk-trace-base"];

/** Prints `PERF1-LOADED <url>` to stderr for every module the ESM loader loads. */
const HOOKS = `export async function load(url, context, next) { process.stderr.write("PERF1-LOADED " + url + "\\n"); return next(url, context); }`;
const RECORDER = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;

interface Loaded {
  /** Every loaded module, as a path or URL. */
  modules: string[];
  /** The packages among them (the name after the last `node_modules/`). */
  packages: string[];
}

/** The package a module path belongs to, or null for a file outside node_modules. */
function packageOf(path: string): string | null {
  const match = /.*[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(path);
  return match ? match[1].replace(/\\/g, "/") : null;
}

/** Runs `script` (ESM) in a fresh node with the recorder, from the package root, and lists what it loaded. */
function loadedBy(script: string): Loaded {
  const body = `${script}\nimport { createRequire as __perf1Require } from "node:module";\nconsole.log(JSON.stringify(Object.keys(__perf1Require(import.meta.url).cache)));`;
  const result = spawnSync(process.execPath, ["--import", `data:text/javascript,${encodeURIComponent(RECORDER)}`, "--input-type=module", "-e", body], { encoding: "utf8" });
  const stderrLines = result.stderr.split("\n").filter((line) => line.trim() !== "");
  const esm = stderrLines.filter((line) => line.startsWith("PERF1-LOADED ")).map((line) => line.slice("PERF1-LOADED ".length));
  expect(stderrLines.filter((line) => !line.startsWith("PERF1-LOADED "))).toEqual([]);
  expect(result.status).toBe(0);
  const cjs = JSON.parse(result.stdout.trim().split("\n").pop()!) as string[];
  const modules = [...esm, ...cjs];
  return { modules, packages: [...new Set(modules.map(packageOf).filter((name): name is string => name !== null))].sort() };
}

/** Runs a CommonJS script in a fresh node and lists `require.cache` afterwards. */
function requiredBy(script: string): Loaded {
  const result = spawnSync(process.execPath, ["-e", `${script}\nconsole.log(JSON.stringify(Object.keys(require.cache)));`], { encoding: "utf8" });
  expect(result.stderr).toBe("");
  const modules = JSON.parse(result.stdout.trim().split("\n").pop()!) as string[];
  return { modules, packages: [...new Set(modules.map(packageOf).filter((name): name is string => name !== null))].sort() };
}

const heavyAmong = (loaded: Loaded): string[] => HEAVY.filter((name) => loaded.packages.includes(name));

describe("PERF-1 a lean root import", () => {
  beforeAll(() => {
    if (!existsSync("dist/index.js") || !existsSync("dist/index.cjs")) throw new Error("dist/ is missing: run `npm run build` before the tests (CI does)");
  });

  it("PERF-1: the recorder sees what a script loads, through ESM imports and createRequire alike", () => {
    const loaded = loadedBy(`await import("@modelcontextprotocol/sdk/types.js"); __perf1Require(import.meta.url)("better-sqlite3");`);
    expect(heavyAmong(loaded)).toEqual(["@modelcontextprotocol/sdk", "zod", "better-sqlite3"]);
    expect(heavyAmong(requiredBy(`require("drizzle-orm/sqlite-core")`))).toEqual(["drizzle-orm"]);
  });

  it("PERF-1: import(\"steamharness\") (dist/index.js) loads no MCP SDK, zod, drizzle, better-sqlite3, pg, QuickJS, pi-ai or its SDKs", () => {
    const loaded = loadedBy(`const m = await import("steamharness"); if (typeof m.createAgent !== "function") throw new Error("not the root entry");`);
    expect(loaded.modules.some((url) => url.endsWith("/dist/index.js"))).toBe(true);
    expect(heavyAmong(loaded)).toEqual([]);
    // TypeBox is bundled into dist (its ESM build is hundreds of files): none of them resolve.
    expect(loaded.packages).not.toContain("@sinclair/typebox");
  });

  it("PERF-1: require(\"steamharness\") (dist/index.cjs) loads none of them either", () => {
    const loaded = requiredBy(`const m = require("steamharness"); if (typeof m.createAgent !== "function") throw new Error("not the root entry");`);
    expect(loaded.modules).toContain(`${process.cwd()}/dist/index.cjs`);
    expect(heavyAmong(loaded)).toEqual([]);
    expect(loaded.packages).not.toContain("@sinclair/typebox");
  });

  it("PERF-1: each backend still loads where it is used: createSqliteStorage opens SQLite through drizzle (ESM and CJS)", () => {
    const body = `const dir = mkdtempSync(join(tmpdir(), "perf1-"));
const storage = createSqliteStorage({ directory: dir });
await storage.kv.set({ projectId: "p" }, "k", 1);
const got = (await storage.kv.get({ projectId: "p" }, "k")).value;
await storage.close();
rmSync(dir, { recursive: true, force: true });
if (got !== 1) throw new Error("kv round trip failed");`;
    const esm = loadedBy(`import { mkdtempSync, rmSync } from "node:fs"; import { tmpdir } from "node:os"; import { join } from "node:path";
import { createSqliteStorage } from "steamharness/sqlite";
${body}`);
    // drizzle comes as the build's one file (dist/drizzle-sqlite.cjs), not as drizzle-orm's files.
    expect(heavyAmong(esm)).toEqual(["better-sqlite3"]);
    expect(esm.modules).toContain(`${process.cwd()}/dist/drizzle-sqlite.cjs`);
    expect(esm.packages).not.toContain("drizzle-orm");
    const cjs = requiredBy(`const { mkdtempSync, rmSync } = require("node:fs"); const { tmpdir } = require("node:os"); const { join } = require("node:path");
const { createSqliteStorage } = require("steamharness/sqlite");
(async () => { ${body} })().catch((error) => { console.error(error); process.exitCode = 1; });`);
    expect(heavyAmong(cjs)).toEqual(["better-sqlite3"]);
    expect(cjs.modules).toContain(`${process.cwd()}/dist/drizzle-sqlite.cjs`);
  });
});

/** An agent run (offline model, tool call) through the built root entry, printing `ran <tool result>`. */
const AGENT_RUN = `import { createAgentNode, createNodeContext, runStreamNode } from "steamharness";
import { MemoryStorage } from "steamharness/memory";
import { createOfflineModel } from "steamharness/testing";
const storage = new MemoryStorage();
const node = createAgentNode({ models: createOfflineModel({ steps: [{ toolCalls: [{ name: "ls", arguments: { path: "." } }] }, { text: "done" }] }), workdir: process.cwd(), permissionPolicy: "read-only" });
const { output } = await runStreamNode(node, { prompt: "list" }, createNodeContext({ projectId: "p", storage }));
await storage.close();
console.log("ran", output.items.filter((item) => item.metadata.partType === "tool").length);`;

/** Makes every \`@opentelemetry/*\` import fail as if the package were not installed (ESM loader hook). */
const ABSENT_HOOKS = `export async function resolve(specifier, context, next) { if (specifier.startsWith("@opentelemetry/")) { const error = new Error("Cannot find package '" + specifier + "'"); error.code = "ERR_MODULE_NOT_FOUND"; throw error; } return next(specifier, context); }`;
const ABSENT = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(ABSENT_HOOKS)}`)});`;

describe("OBS-1 telemetry costs nothing without the API", () => {
  beforeAll(() => {
    if (!existsSync("dist/opentelemetry.js")) throw new Error("dist/ is missing: run `npm run build` before the tests (CI does)");
  });

  it("OBS-1: an agent run through the root entry loads no @opentelemetry package; steamharness/opentelemetry loads the API only", () => {
    const loaded = loadedBy(AGENT_RUN);
    expect(loaded.packages.filter((name) => name.startsWith("@opentelemetry/"))).toEqual([]);
    const adapter = loadedBy(`const { createOpenTelemetry } = await import("steamharness/opentelemetry"); if (!createOpenTelemetry().enabled) throw new Error("not enabled");`);
    expect(adapter.packages.filter((name) => name.startsWith("@opentelemetry/"))).toEqual(["@opentelemetry/api"]);
  });

  it("OBS-1: with @opentelemetry/api unresolvable the library still runs an agent with a tool call; only the opentelemetry subpath fails to load", () => {
    const run = spawnSync(process.execPath, ["--import", `data:text/javascript,${encodeURIComponent(ABSENT)}`, "--input-type=module", "-e", AGENT_RUN], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toBe("ran 1");
    // The hook really hides the API: the subpath that needs it cannot load.
    const subpath = spawnSync(process.execPath, ["--import", `data:text/javascript,${encodeURIComponent(ABSENT)}`, "--input-type=module", "-e", `await import("steamharness/opentelemetry")`], { encoding: "utf8" });
    expect(subpath.status).not.toBe(0);
    expect(subpath.stderr).toContain("Cannot find package '@opentelemetry/api'");
  });
});
