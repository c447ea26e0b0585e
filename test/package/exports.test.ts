import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { libraryEntries } from "../../tsup.config.js";

const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { exports: Record<string, Record<string, Record<string, string>>>; dependencies: Record<string, string> };

/** The files of the build (dist/), relative to it. */
const builtFiles = (): string[] => readdirSync("dist", { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
/** A module specifier naming the MCP SDK's v1 package (quoted, as in import, export … from, import() and require()). */
const V1_SPECIFIER = /["'`]@modelcontextprotocol\/sdk(?:\/[^"'`]*)?["'`]/;

describe("public surface", () => {
  it("tsup entries and package.json exports stay in step (types first in every condition)", () => {
    const fromExports = Object.keys(pkg.exports).filter((key) => key !== "./package.json").map((key) => (key === "." ? "index" : key.slice(2))).sort();
    expect(Object.keys(libraryEntries).sort()).toEqual(fromExports);
    for (const [key, conditions] of Object.entries(pkg.exports)) {
      if (key === "./package.json") continue;
      const name = key === "." ? "index" : key.slice(2);
      expect(conditions.import).toEqual({ types: `./dist/${name}.d.ts`, default: `./dist/${name}.js` });
      expect(conditions.require).toEqual({ types: `./dist/${name}.d.cts`, default: `./dist/${name}.cjs` });
      expect(Object.keys(conditions.import)[0]).toBe("types");
    }
  });

  it("every entry names each export (no wildcard re-exports; api/<entry>.api.md reports them, ARCH-11)", () => {
    for (const file of Object.values(libraryEntries)) {
      expect(readFileSync(file, "utf8")).not.toMatch(/export \*/);
    }
  });

  it("MCP-16: no file of dist/ imports the MCP SDK's v1 line (@modelcontextprotocol/sdk), and it is not a runtime dependency", () => {
    const files = builtFiles();
    // A missing build would pass vacuously: the entries must be there.
    expect(files).toEqual(expect.arrayContaining(["dist/mcp.js", "dist/mcp.cjs", "dist/cli.js"]));
    expect(files.filter((file) => /\.(?:c?js|d\.c?ts)$/.test(file) && V1_SPECIFIER.test(readFileSync(file, "utf8")))).toEqual([]);
    expect(Object.keys(pkg.dependencies)).not.toContain("@modelcontextprotocol/sdk");
    // The pattern finds the import forms a bundle keeps.
    for (const line of ['import { Server } from "@modelcontextprotocol/sdk/server/index.js";', "require('@modelcontextprotocol/sdk')", 'await import("@modelcontextprotocol/sdk/client/auth.js")']) expect(line).toMatch(V1_SPECIFIER);
    expect('import { x } from "@modelcontextprotocol/server";').not.toMatch(V1_SPECIFIER);
  });
});
