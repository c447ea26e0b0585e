import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

// The PostgreSQL backend lives behind its own subpath (house style: heavy backends never load
// from the root entry). Checked on the built files, as a consumer gets them: run `npm run build`
// first (CI does).
const BACKEND_MODULES = ["pg", "drizzle-orm/node-postgres", "drizzle-orm/pg-core"];

/**
 * Module specifiers a built file imports or requires, following the static imports of its own
 * chunks (the ESM build is code-split, PERF-1): the entry's import graph as loaded with it.
 */
function specifiers(file: string, seen = new Set<string>()): string[] {
  seen.add(file);
  const code = readFileSync(file, "utf8");
  const found = new Set<string>();
  for (const match of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)["']([^"']+)["']/g)) found.add(match[1]);
  for (const match of code.matchAll(/(?:\bfrom\s*|\bimport\s+)["'](\.\/[^"']+)["']/g)) {
    const chunk = join(dirname(file), match[1]);
    if (!seen.has(chunk)) for (const specifier of specifiers(chunk, seen)) found.add(specifier);
  }
  return [...found];
}

/** Runs a CommonJS snippet from the package root, where `steamharness` resolves to this package. */
function node(script: string): string {
  const result = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
  expect(result.stderr).toBe("");
  return result.stdout.trim();
}

describe("PG-4 the steamharness/postgres subpath", () => {
  beforeAll(() => {
    if (!existsSync("dist/index.js") || !existsSync("dist/postgres.js")) throw new Error("dist/ is missing: run `npm run build` before the tests (CI does)");
  });

  it("PG-4 the root entry (ESM and CJS) imports neither pg nor drizzle's PostgreSQL modules", () => {
    for (const file of ["dist/index.js", "dist/index.cjs"]) {
      const imported = specifiers(file);
      // The scanner reads the whole static graph (SQLite's drizzle is required on first use, PERF-1).
      expect(imported).toContain("fs");
      for (const backend of BACKEND_MODULES) expect(`${file}: ${imported.includes(backend)}`).toBe(`${file}: false`);
    }
    expect(specifiers("dist/postgres.js")).toEqual(expect.arrayContaining(["pg", "drizzle-orm/node-postgres"]));
  });

  it("PG-4 steamharness/postgres resolves to the built entry and loads pg only there", () => {
    const loadsPg = "Object.keys(require.cache).some((path) => /[\\\\/]node_modules[\\\\/]pg[\\\\/]/.test(path))";
    expect(node(`require("steamharness"); console.log(${loadsPg})`)).toBe("false");
    const report = JSON.parse(
      node(`const m = require("steamharness/postgres"); console.log(JSON.stringify({ path: require.resolve("steamharness/postgres"), create: typeof m.createPostgresStorage, pg: ${loadsPg} }))`),
    ) as { path: string; create: string; pg: boolean };
    expect(report).toEqual({ path: `${process.cwd()}/dist/postgres.cjs`, create: "function", pg: true });
    const esm = spawnSync(process.execPath, ["--input-type=module", "-e", 'const m = await import("steamharness/postgres"); console.log(typeof m.createPostgresStorage, import.meta.resolve("steamharness/postgres"))'], { encoding: "utf8" });
    expect(esm.stderr).toBe("");
    expect(esm.stdout.trim()).toBe(`function file://${process.cwd()}/dist/postgres.js`);
  });
});
