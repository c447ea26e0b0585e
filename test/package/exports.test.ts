import { existsSync, readFileSync, writeFileSync } from "node:fs";
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

  // The export list of every entry is checked in (test/package/public-api.json) so that additions
  // and removals are deliberate. Regenerate with UPDATE_PUBLIC_API=1 npm test -- test/package/exports.
  it("the export list of every entry matches the checked-in list", async () => {
    const actual: Record<string, string[]> = {};
    for (const [name, file] of Object.entries(libraryEntries)) {
      actual[name] = Object.keys(await import(`../../${file}`)).sort();
    }
    const listFile = "test/package/public-api.json";
    if (process.env.UPDATE_PUBLIC_API === "1") writeFileSync(listFile, `${JSON.stringify(actual, null, 2)}\n`);
    expect(existsSync(listFile)).toBe(true);
    expect(actual).toEqual(JSON.parse(readFileSync(listFile, "utf8")));
  });

  it("src/index.ts names every export (no wildcard re-exports)", () => {
    for (const file of Object.values(libraryEntries)) {
      expect(readFileSync(file, "utf8")).not.toMatch(/export \*/);
    }
  });
});
