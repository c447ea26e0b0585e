import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";

// The PostgreSQL backend lives behind its own subpath (house style: heavy backends never load
// from the root entry). Checked on the built files, as a consumer gets them: run `npm run build`
// first (CI does).
const BACKEND_MODULES = ["pg", "drizzle-orm/node-postgres", "drizzle-orm/pg-core"];

/** Module specifiers a built file imports or requires. */
function specifiers(file: string): string[] {
  const code = readFileSync(file, "utf8");
  const found = new Set<string>();
  for (const match of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)["']([^"']+)["']/g)) found.add(match[1]);
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
      expect(imported).toContain("drizzle-orm/better-sqlite3");
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
