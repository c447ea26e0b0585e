import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import { libraryEntries } from "../../tsup.config.js";

// ARCH-4: the run viewer has a subpath of its own, `steamharness/viewer`; `steamharness/agent`
// keeps deprecated names for one release but never loads the viewer's server modules. Checked on
// the sources (the static import graph) and on the built files as a consumer loads them (run
// `npm run build` first; CI does), with the ESM loader recorder of test/package/lean-import.

/** The viewer's server modules: what importing `steamharness/agent` must not load. */
const SERVER_MODULES = ["src/adapters/driving/viewer/viewer-server.ts", "src/adapters/driving/viewer/viewer-security.ts", "src/adapters/driving/viewer/viewer-sessions.ts"];
/** Functions those modules define; a built file that defines one carries the server code. */
const SERVER_MARKERS = [/function createViewerServer\b[^]*?createServer\(/, /function checkViewerRequest\b/, /function readViewerAsset\b/, /function createViewerSessions\b/];

/** Files a source file reaches through static imports and re-exports (type-only ones skipped; `import()` is not followed). */
function staticGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    for (const match of text.matchAll(/(?:^|\n)[ \t]*(?:import|export)[ \t]+(type[ \t]+)?(?:([^'";]*?)[ \t\n]+from[ \t]+)?["'](\.[^"']+)["']/g)) {
      const bindings = match[2];
      const typeOnly = match[1] !== undefined || (bindings !== undefined && /^\{[^}]*\}$/s.test(bindings.trim()) && bindings.replace(/[{}\s]/g, "").split(",").filter(Boolean).every((name) => name.startsWith("type ")));
      if (!typeOnly) walk(posix.normalize(posix.join(posix.dirname(file), match[3])).replace(/\.js$/, ".ts"));
    }
  };
  walk(entry);
  return seen;
}

/** Prints `ARCH4-LOADED <url>` to stderr for every module the ESM loader loads. */
const HOOKS = `export async function load(url, context, next) { process.stderr.write("ARCH4-LOADED " + url + "\\n"); return next(url, context); }`;
const RECORDER = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;

/** Runs `script` (ESM) in a fresh node from the package root; the built files of this package it loaded, and its stdout. */
function loadedBy(script: string): { files: string[]; stdout: string } {
  const result = spawnSync(process.execPath, ["--import", `data:text/javascript,${encodeURIComponent(RECORDER)}`, "--input-type=module", "-e", script], { encoding: "utf8" });
  const lines = result.stderr.split("\n").filter((line) => line.trim() !== "");
  expect(lines.filter((line) => !line.startsWith("ARCH4-LOADED "))).toEqual([]);
  expect(result.status).toBe(0);
  const dist = `${process.cwd()}/dist/`;
  const files = lines.map((line) => line.slice("ARCH4-LOADED ".length)).filter((url) => url.startsWith("file:")).map((url) => fileURLToPath(url)).filter((path) => path.startsWith(dist));
  return { files, stdout: result.stdout.trim() };
}

/** The server markers a set of built files contains. */
const markersIn = (files: string[]): string[] => SERVER_MARKERS.filter((marker) => files.some((file) => marker.test(readFileSync(file, "utf8")))).map(String);

describe("ARCH-4 the steamharness/viewer subpath", () => {
  it("ARCH-4 viewer subpath: a tsup entry and a package.json export of the same shape as the other subpaths", () => {
    expect(libraryEntries).toHaveProperty("viewer", "src/viewer.ts");
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { exports: Record<string, unknown> };
    expect(pkg.exports["./viewer"]).toEqual({
      import: { types: "./dist/viewer.d.ts", default: "./dist/viewer.js" },
      require: { types: "./dist/viewer.d.cts", default: "./dist/viewer.cjs" },
    });
  });

  it("ARCH-4 viewer subpath: src/agent.ts reaches none of the viewer's server modules through static imports; src/viewer.ts reaches them", () => {
    const agent = staticGraph("src/agent.ts");
    expect(SERVER_MODULES.filter((file) => agent.has(file))).toEqual([]);
    const viewer = staticGraph("src/viewer.ts");
    expect(SERVER_MODULES.filter((file) => viewer.has(file))).toEqual(SERVER_MODULES);
  });

  describe("on the built package", () => {
    beforeAll(() => {
      if (!existsSync("dist/agent.js") || !existsSync("dist/viewer.js")) throw new Error("dist/ is missing: run `npm run build` before the tests (CI does)");
    });

    it("ARCH-4 viewer subpath: import(\"steamharness/agent\") loads no viewer server code; import(\"steamharness/viewer\") does", () => {
      const agent = loadedBy(`const m = await import("steamharness/agent"); if (typeof m.createAgentSessionHost !== "function") throw new Error("not the agent entry");`);
      expect(agent.files).toContain(join(process.cwd(), "dist/agent.js"));
      expect(markersIn(agent.files)).toEqual([]);
      const viewer = loadedBy(`const m = await import("steamharness/viewer"); console.log(typeof m.createViewerServer, typeof m.createRunReplay, typeof m.createStoredDecisions, typeof m.createSqliteSessionCatalog);`);
      expect(viewer.stdout).toBe("function function function function");
      expect(markersIn(viewer.files)).toEqual(SERVER_MARKERS.map(String));
    });

    it("ARCH-4 viewer subpath: a viewer started through steamharness/viewer (ESM and CJS) serves its page; the deprecated steamharness/agent name starts the same server", () => {
      const serve = (from: string) => `const { createViewerServer } = await import(${JSON.stringify(from)});
const { MemoryStorage } = await import("steamharness/memory");
const storage = new MemoryStorage();
const catalog = { list: async () => [], close: async () => {} };
const viewer = await createViewerServer({ storage, catalog });
const projects = await fetch(new URL("/api/projects", viewer.url), { headers: { "x-steamharness-token": viewer.token } });
console.log(viewer.url.startsWith("http://127.0.0.1:"), projects.status);
await viewer.close();
await storage.close();`;
      expect(loadedBy(serve("steamharness/viewer")).stdout).toBe("true 200");
      const deprecated = loadedBy(serve("steamharness/agent"));
      expect(deprecated.stdout).toBe("true 200");
      // The deprecated name loaded the server on its first call, not with the entry.
      expect(markersIn(deprecated.files)).toEqual(SERVER_MARKERS.map(String));
      const cjs = spawnSync(process.execPath, ["-e", `const v = require("steamharness/viewer"); console.log(require.resolve("steamharness/viewer"), typeof v.createViewerServer)`], { encoding: "utf8" });
      expect(cjs.stderr).toBe("");
      expect(cjs.stdout.trim()).toBe(`${process.cwd()}/dist/viewer.cjs function`);
    });
  });
});
