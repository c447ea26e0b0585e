import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

// Every top-level examples/*.ts is documentation that must keep working: each runs, offline, as a
// test of its own in test/package/pack.test.ts ("examples run"), from the packed install (once,
// not a second time from the checkout: ARCH-12). Here: what the examples may import.

// DX-1: what an example imports is what a project outside this repository can import.
const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { dependencies: Record<string, string>; devDependencies: Record<string, string>; exports: Record<string, unknown> };
const dependencies = Object.keys(pkg.dependencies);
// examples/dev/ holds development tools (the offline OAuth issuer of docs/mcp-http.md), which say
// they need this repository's devDependencies; every other example imports only the package.
const devDependencies = Object.keys(pkg.devDependencies);
// The package and its subpaths (ARCH-11 moved the storage families and more out of the root),
// except those that need an optional peer dependency a reader's project may not have.
const NEEDS_OPTIONAL_PEER = ["steamharness/postgres", "steamharness/opentelemetry"];
const subpaths = Object.keys(pkg.exports).map((key) => (key === "." ? "steamharness" : `steamharness/${key.slice(2)}`)).filter((specifier) => !NEEDS_OPTIONAL_PEER.includes(specifier));
// TypeScript's own import scanner: static imports, `import()` and re-exports.
const specifiersOf = (source: string): string[] => ts.preProcessFile(source, true, true).importedFiles.map((file) => file.fileName);
function disallowed(specifier: string, devTool = false): boolean {
  if (specifier.startsWith("node:")) return false;
  if (subpaths.includes(specifier)) return false;
  const name = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!;
  return !dependencies.includes(name) && !(devTool && devDependencies.includes(name));
}

describe("examples import only the package", () => {
  it("DX-1 ARCH-11 no example imports ../src, a subpath the package does not export, or one that needs an optional peer (postgres, opentelemetry)", () => {
    const sources = readdirSync("examples", { recursive: true }).map(String).filter((file) => file.endsWith(".ts"));
    expect(sources.length).toBeGreaterThan(5);
    const bad = sources.flatMap((file) => specifiersOf(readFileSync(join("examples", file), "utf8")).filter((specifier) => disallowed(specifier, file.startsWith("dev/"))).map((specifier) => `${file}: ${specifier}`));
    expect(bad).toEqual([]);
  });

  it("DX-1 DX-18 a development tool under examples/dev may import a devDependency; no other example may", () => {
    expect(disallowed("oidc-provider", true)).toBe(false);
    expect(disallowed("oidc-provider")).toBe(true);
    expect(disallowed("../src/index.js", true)).toBe(true);
  });

  it("DX-1 the check catches internal imports", () => {
    const sample = `import { x } from "../src/index.js";\nconst y = await import("../../src/testing/offline-model.js");\nimport { z } from "steamharness/postgres";\nimport { w } from "steamharness/kernel";\nimport { ok } from "steamharness/agent";\nimport { ok2 } from "steamharness/sqlite";`;
    expect(specifiersOf(sample).filter((specifier) => disallowed(specifier))).toEqual(["../src/index.js", "../../src/testing/offline-model.js", "steamharness/postgres", "steamharness/kernel"]);
  });
});
