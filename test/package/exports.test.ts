import { readFileSync } from "node:fs";
import { libraryEntries } from "../../tsup.config.js";

const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { exports: Record<string, Record<string, Record<string, string>>> };

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
});
