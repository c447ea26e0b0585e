// The architecture test: every rule of scripts/architecture-graph.ts checked on the real tree, and
// each rule proved able to fail on a fixture tree that breaks it (PORT-3, PORT-5, ARCH-1, ARCH-2, ARCH-9).
import { readFileSync } from "node:fs";
import {
  APP_ROOT_IMPORTS_PENDING,
  LAYER_FOLDERS,
  NON_LITERAL_IMPORTS_ALLOWED,
  PENDING,
  UNIT_CYCLES_PENDING,
  codeOf,
  cyclesOf,
  diagramDrift,
  importsOf,
  layerOf,
  nonLiteralImportsOf,
  pendingCounts,
  pendingDrift,
  sourceFiles,
  unitCycles,
  violations,
  type PendingRule,
  type Violation,
} from "../scripts/architecture-graph.js";
import { sameShapePairs, storageFigures } from "../scripts/storage-figures.js";

const FIXTURES = "test/fixtures/architecture/trees";
const DIAGRAMS = "test/fixtures/architecture/diagrams";
const describeViolation = (violation: Violation): string => `${violation.rule}: ${violation.from} → ${violation.to}`;
const PENDING_RULES = Object.keys(PENDING) as PendingRule[];
const ADAPTER_LAYERS = ["driving", "driven", "kernel", "system"];
const isAdapter = (path: string): boolean => ADAPTER_LAYERS.includes(layerOf(path).layer);
const isUnder = (layer: string, file: string): boolean => layerOf(file).layer === layer;

let treeFound: Violation[] | undefined;
/** Every violation of the real tree, read once for the tests below (the tree does not change during the run). */
const realTree = (): Violation[] => (treeFound ??= violations("."));

/** The violations of the real tree, minus the app → root imports and the ARCH-9 breaks still listed as pending (checked apart). */
function treeViolations(): string[] {
  return realTree()
    .filter((violation) => !(violation.rule === "layer" && APP_ROOT_IMPORTS_PENDING.includes(violation.from) && layerOf(violation.edge!.to).layer === "compose"))
    .filter((violation) => !PENDING_RULES.includes(violation.rule as PendingRule))
    .map(describeViolation);
}

/** The import cycles between files (strongly connected components with more than one file), type-only imports included. */
function importCycles(files: string[]): string[][] {
  return cyclesOf(new Map(files.map((file) => [file, importsOf(".", file).filter((edge) => edge.relative && files.includes(edge.to)).map((edge) => edge.to)])));
}

describe("architecture: the domain and the ports (PORT-3)", () => {
  it("PORT-3 nothing under src/domain imports an adapter, node:*, SQLite, drizzle, the MCP SDK or the provider library", () => {
    const offenders = sourceFiles(".", "src/domain").flatMap((file) =>
      importsOf(".", file)
        .filter((edge) => (edge.relative ? isAdapter(edge.to) : edge.to !== "@sinclair/typebox"))
        .map((edge) => `${file} → ${edge.specifier}`),
    );
    expect(offenders).toEqual([]);
  });

  it("PORT-3 the check itself catches a forbidden import (a package and a dynamic adapter import)", () => {
    expect(importsOf(`${FIXTURES}/domain-node`, "src/domain/a.ts").map((edge) => edge.to)).toEqual(["node:fs"]);
    expect(importsOf(".", "test/fixtures/architecture/cycle-a.ts").filter((edge) => isAdapter(edge.to)).map((edge) => edge.specifier)).toEqual(["../../../src/adapters/driven/memory/memory-kv-store.js"]);
  });

  it("PORT-3 src/ports holds interfaces only (no runtime imports of adapters)", () => {
    for (const file of sourceFiles(".", "src/ports")) expect(importsOf(".", file).filter((edge) => isAdapter(edge.to)).map((edge) => edge.specifier)).toEqual([]);
  });
});

describe("architecture: adapters through the root (PORT-5)", () => {
  it("PORT-5 application folders reach adapters only through the composition root (src/compose)", () => {
    const offenders = sourceFiles(".").filter((file) => isUnder("app", file)).flatMap((file) => importsOf(".", file).filter((edge) => isAdapter(edge.to) && !edge.typeOnly).map((edge) => `${file} → ${edge.to}`));
    expect(offenders).toEqual([]);
  });

  it("PORT-5 outside the adapters only the composition root and the entry files import adapters", () => {
    const offenders = sourceFiles(".")
      .filter((file) => !isAdapter(file) && !["compose", "entry"].includes(layerOf(file).layer))
      .flatMap((file) => importsOf(".", file).filter((edge) => isAdapter(edge.to)).map((edge) => `${file} → ${edge.to}`));
    expect(offenders).toEqual([]);
  });

  it("PORT-5 ports import only types, and only from ports and the domain (no runtime code; cycles are checked below)", () => {
    const offenders = sourceFiles(".", "src/ports").flatMap((file) =>
      importsOf(".", file)
        .filter((edge) => edge.relative)
        .flatMap((edge) => (!edge.typeOnly ? [`${file} → ${edge.to} (not type-only)`] : ["ports", "domain"].includes(layerOf(edge.to).layer) ? [] : [`${file} → ${edge.to}`])),
    );
    expect(offenders).toEqual([]);
  });

  it("PORT-5 no import cycles between files anywhere under src (type-only imports included)", () => {
    expect(importCycles(sourceFiles("."))).toEqual([]);
  });

  it("PORT-5 no directory or file extension of a session backend in the domain or the ports", () => {
    const offenders = [...sourceFiles(".", "src/domain"), ...sourceFiles(".", "src/ports")].filter((file) => /agentStoreDir|\.sqlite\b/.test(readFileSync(file, "utf8")));
    expect(offenders).toEqual([]);
  });

  it("PORT-5 the checks catch a forbidden edge and a cycle", () => {
    expect(importCycles(["test/fixtures/architecture/cycle-a.ts", "test/fixtures/architecture/cycle-b.ts"])).toEqual([["test/fixtures/architecture/cycle-a.ts", "test/fixtures/architecture/cycle-b.ts"]]);
    expect(importsOf(".", "test/fixtures/architecture/cycle-a.ts").map((edge) => ({ target: edge.to, typeOnly: edge.typeOnly }))).toEqual([
      { target: "test/fixtures/architecture/cycle-b.ts", typeOnly: true },
      { target: "src/adapters/driven/memory/memory-kv-store.ts", typeOnly: false },
    ]);
  });
});

describe("architecture: the layer allow-list on the real tree (ARCH-1, ARCH-2, ARCH-9)", () => {
  it("ARCH-2 every file under src/ sits in a known layer folder", () => {
    expect(sourceFiles(".").filter((file) => layerOf(file).layer === "other")).toEqual([]);
  });

  it("ARCH-9 every layer folder of the one folder table exists", () => {
    expect(LAYER_FOLDERS.filter((entry) => sourceFiles(".", entry.folder).length === 0).map((entry) => entry.folder)).toEqual([]);
  });

  it("ARCH-2 every import of src/ is allowed by its layer's rule (folders, packages, side effects, extensions, non-literal import())", () => {
    expect(treeViolations()).toEqual([]);
  });

  it.each(PENDING_RULES)("ARCH-9 the pending breaks of the %s rule are exactly the listed ones, and the list only shrinks", (rule) => {
    expect(pendingDrift(pendingCounts(realTree(), rule), PENDING[rule])).toEqual([]);
  });

  it("ARCH-9 every allow-listed non-literal import() is still there, as many as listed (a stale entry would hide a new one)", () => {
    const stale = Object.entries(NON_LITERAL_IMPORTS_ALLOWED)
      .filter(([file, entry]) => nonLiteralImportsOf(".", file).length !== entry.count)
      .map(([file]) => file);
    expect(stale).toEqual([]);
  });

  it("ARCH-9 no cycles between folders anywhere (the root and the surfaces, domain and ports included) but the pending ones, type-only imports included", () => {
    expect(unitCycles(".")).toEqual(UNIT_CYCLES_PENDING);
  });

  it("ARCH-1 application code imports the composition root only where still listed, and the list only shrinks", () => {
    const importing = [...new Set(sourceFiles(".").filter((file) => isUnder("app", file)).filter((file) => importsOf(".", file).some((edge) => edge.relative && !edge.typeOnly && layerOf(edge.to).layer === "compose")))].sort();
    expect(importing).toEqual([...APP_ROOT_IMPORTS_PENDING].sort());
  });

  it("ARCH-6 ARCH-7 no root file re-exports an adapter, and no adapter imports the root (workflow projects open through the app's use case on SurfaceServices.workflowRunPorts)", () => {
    expect([PENDING.barrel, PENDING.root]).toEqual([{}, {}]);
    expect(realTree().filter((violation) => violation.rule === "barrel" || violation.rule === "root").map(describeViolation)).toEqual([]);
  });

  it("ARCH-6 no module holds a runtime (no process-wide singleton, no runtime changed through a getter)", () => {
    expect(realTree().filter((violation) => violation.rule === "singleton").map(describeViolation)).toEqual([]);
  });

  it("ARCH-6 ARCH-7 no folder cycle runs through the composition root", () => {
    expect(unitCycles(".").filter((cycle) => cycle.includes("compose"))).toEqual([]);
  });

  it("ARCH-1 no module-level maps keyed by a storage object in the application or the root", () => {
    const offenders = sourceFiles(".")
      .filter((file) => ["app", "compose"].includes(layerOf(file).layer))
      .filter((file) => /^(?:export\s+)?const\s+\w+\s*=\s*new\s+(?:Weak)?Map<\s*Storage\b/m.test(readFileSync(file, "utf8")));
    expect(offenders).toEqual([]);
  });

  it("ARCH-2 ARCH-9 docs/architecture.dot has the arrows the code draws, and docs/architecture.md its generated picture (node --import tsx scripts/architecture-graph.ts --dot)", () => {
    expect(diagramDrift(".", readFileSync("docs/architecture.dot", "utf8"), readFileSync("docs/architecture.md", "utf8"))).toEqual([]);
  });
});

describe("architecture: each rule fails on a tree that breaks it (ARCH-2, ARCH-9)", () => {
  const cases: Array<[tree: string, expected: string[]]> = [
    // node:fs outside the driven adapters breaks the io rule (ARCH-9), the narrower name of the package rule's break.
    ["domain-node", ["io: src/domain/a.ts → node:fs"]],
    ["domain-side-effect", ["side-effect: src/domain/a.ts → node:fs", "io: src/domain/a.ts → node:fs"]],
    ["domain-pg", ["package: src/domain/a.ts → pg"]],
    ["domain-app", ["layer: src/domain/a.ts → ../app/agent/b.js"]],
    ["domain-compose", ["layer: src/domain/a.ts → ../compose/c.js"]],
    ["app-adapter", ["layer: src/app/agent/a.ts → ../../adapters/driven/sqlite/s.js"]],
    ["app-compose", ["layer: src/app/agent/a.ts → ../../compose/c.js"]],
    ["out-family", ["family: src/adapters/driven/postgres/p.ts → ../sqlite/s.js"]],
    ["out-app", ["layer: src/adapters/driven/sqlite/s.ts → ../../../app/agent/a.js"]],
    ["in-out", ["layer: src/adapters/driving/chat/c.ts → ../../driven/sqlite/s.js"]],
    ["ports-value", ["type-only: src/ports/p.ts → ../domain/a.js"]],
    ["extensionless", ["extension: src/app/agent/a.ts → ./b"]],
    ["kernel-driver", ["package: src/adapters/driven/kernel/k.ts → better-sqlite3"]],
    ["clean", []],
  ];
  it.each(cases)("ARCH-2 fixture tree %s", (tree, expected) => {
    expect(violations(`${FIXTURES}/${tree}`).map(describeViolation).sort()).toEqual([...expected].sort());
  });

  const arch9: Array<[tree: string, expected: string[]]> = [
    ["dynamic-import", ["dynamic-import: src/app/agent/a.ts → `./${name}.js`", "dynamic-import: src/app/agent/a.ts → url"]],
    ["driving-family", ["family: src/adapters/driving/mcp/m.ts → ../cli/c.js"]],
    // Every surface may import the shared plumbing (driving/shared); the plumbing never imports a surface.
    ["driving-shared", ["layer: src/adapters/driving/shared/s.ts → ../cli/c.js"]],
    ["app-io", ["io: src/app/agent/a.ts → node:fs/promises"]],
    ["driving-io", ["io: src/adapters/driving/gateway/g.ts → node:net", "io: src/adapters/driving/gateway/g.ts → node:child_process"]],
    ["domain-impure", ["impure: src/domain/a.ts → process.env", "impure: src/domain/a.ts → Date.now", "impure: src/domain/a.ts → Math.random", "impure: src/domain/a.ts → new Date()"]],
    ["compose-cycle", ["root: src/adapters/driving/cli/c.ts → ../../../compose/r.js"]],
    // An import written inside a template literal's text (a generated file) is no import; the file's own is.
    ["template-text", ["io: src/adapters/driving/cli/t.ts → node:fs"]],
  ];
  it.each(arch9)("ARCH-9 fixture tree %s", (tree, expected) => {
    expect(violations(`${FIXTURES}/${tree}`).map(describeViolation).sort()).toEqual([...expected].sort());
  });

  const arch6: Array<[tree: string, expected: string[]]> = [
    // A surface importing the root (statically or lazily) instead of being handed what it opens.
    ["driving-root", ["root: src/adapters/driving/viewer/v.ts → ../../../compose/sqlite.js", "root: src/adapters/driving/viewer/v.ts → ../../../compose/sqlite.js"]],
    // A root file re-exporting a driven constructor (and its type) is a barrel; one that calls it is wiring.
    ["compose-barrel", ["barrel: src/compose/sqlite.ts → ../adapters/driven/sqlite/s.js", "barrel: src/compose/sqlite.ts → ../adapters/driven/sqlite/s.js"]],
    // A module-level runtime, and one changed through its getter; a function's local variable and a comparison are neither.
    ["runtime-singleton", ["singleton: src/compose/runtime.ts → module-level runtime", "singleton: src/compose/telemetry.ts → runtime changed through a getter"]],
  ];
  it.each(arch6)("ARCH-6 fixture tree %s", (tree, expected) => {
    expect(violations(`${FIXTURES}/${tree}`).map(describeViolation).sort()).toEqual([...expected].sort());
  });

  it("ARCH-9 a non-literal import() passes only when its file is allow-listed for as many", () => {
    const tree = `${FIXTURES}/dynamic-import`;
    const why = "a fixture";
    expect(violations(tree, undefined, { "src/app/agent/a.ts": { count: 2, why } })).toEqual([]);
    expect(violations(tree, undefined, { "src/app/agent/a.ts": { count: 1, why } }).map((violation) => violation.rule)).toEqual(["dynamic-import", "dynamic-import"]);
  });

  it("ARCH-2 a folder-level cycle through a type-only import is found", () => {
    expect(unitCycles(`${FIXTURES}/unit-cycle`)).toEqual([["app/agent", "app/session-host"]]);
  });

  it("ARCH-9 the cycle of the root and a driving adapter (compose ⇄ in) is found", () => {
    expect(unitCycles(`${FIXTURES}/compose-cycle`)).toEqual([["compose", "driving/cli"]]);
  });

  it("ARCH-9 a pending list fails when a break is new, grows, shrinks without being lowered, or is gone", () => {
    const tree = pendingCounts(violations(`${FIXTURES}/driving-family`), "family");
    expect(tree).toEqual({ "driving/mcp → driving/cli": 1 });
    expect(pendingDrift(tree, { "driving/mcp → driving/cli": 1 })).toEqual([]);
    expect(pendingDrift(tree, {})).toEqual(["new: driving/mcp → driving/cli (1)"]);
    expect(pendingDrift({ "driving/mcp → driving/cli": 3 }, { "driving/mcp → driving/cli": 2 })).toEqual(["grew: driving/mcp → driving/cli 2 → 3"]);
    expect(pendingDrift(tree, { "driving/mcp → driving/cli": 2 })).toEqual(["shrank: driving/mcp → driving/cli 2 → 1 (lower the entry)"]);
    expect(pendingDrift({}, { "driving/mcp → driving/cli": 1 })).toEqual(["gone: driving/mcp → driving/cli (delete the entry)"]);
  });

  it("ARCH-9 the io rule counts files per folder and package", () => {
    expect(pendingCounts(violations(`${FIXTURES}/driving-io`), "io")).toEqual({ "driving/gateway → node:net": 1, "driving/gateway → node:child_process": 1 });
  });

  it("ARCH-9 the diagram check ignores weights and fails on a missing or extra arrow, a stale picture or no markers", () => {
    const clean = `${FIXTURES}/clean`;
    const read = (name: string): string => readFileSync(`${DIAGRAMS}/${name}`, "utf8");
    expect(diagramDrift(clean, read("clean-other-weights.dot"), read("clean.md"))).toEqual([]);
    expect(diagramDrift(clean, read("clean-wrong-arrows.dot"), read("clean.md"))).toEqual(["dot: missing compose -> driven/sqlite", "dot: extra domain -> compose"]);
    expect(diagramDrift(clean, read("clean-other-weights.dot"), read("clean-stale.md"))).toEqual(["markdown: the generated picture is stale"]);
    expect(diagramDrift(clean, read("clean-other-weights.dot"), read("no-markers.md"))).toEqual(["markdown: no generated picture between the markers"]);
  });
});

describe("architecture: the storage figures (ARCH-8)", () => {
  const committed = JSON.parse(readFileSync("scripts/storage-figures.json", "utf8")) as { lines: number; pairs: number };

  it("ARCH-8 storage code lines and same-shape pairs between storage folders do not grow past the committed figures", () => {
    const figures = storageFigures(".");
    expect({ lines: figures.totalLines <= committed.lines ? "within" : `${figures.totalLines} > ${committed.lines} (${JSON.stringify(figures.lines)})` }).toEqual({ lines: "within" });
    expect({ pairs: figures.pairs.length <= committed.pairs ? "within" : [`${figures.pairs.length} > ${committed.pairs}`, ...figures.pairs] }).toEqual({ pairs: "within" });
  });

  it("ARCH-8 the pair finder pairs same-shape runs across folders only, and skips imports", () => {
    const body = (name: string): string =>
      [`export function ${name}(rows: Rows) {`, `  const found = rows.read("${name}");`, "  if (!found) return null;", `  const value = JSON.parse(found.value) as Value;`, "  rows.write(found.key, value);", "  return { key: found.key, value };", "}"].join("\n");
    const imports = Array.from({ length: 8 }, (_, i) => `import { a${i} } from "./m${i}.js";`).join("\n");
    expect(sameShapePairs(new Map([["sqlite/a.ts", body("one")], ["postgres/b.ts", `// why\n\n${body("two")}`], ["sqlite/c.ts", body("three")]]))).toEqual([
      "postgres/b.ts:3-8 ~ sqlite/a.ts:1-6",
      "postgres/b.ts:3-8 ~ sqlite/c.ts:1-6",
    ]);
    expect(sameShapePairs(new Map([["sqlite/a.ts", imports], ["postgres/b.ts", imports]]))).toEqual([]);
  });
});
