import { readFileSync } from "node:fs";
import {
  APP_ROOT_IMPORTS_PENDING,
  UNIT_CYCLES_PENDING,
  importsOf,
  layerOf,
  sourceFiles,
  toDot,
  unitCycles,
  violations,
  type Violation,
} from "../scripts/architecture-graph.js";

const FIXTURES = "test/fixtures/architecture/trees";
const describeViolation = (violation: Violation): string => `${violation.rule}: ${violation.edge.from} → ${violation.edge.specifier}`;
/** The violations of the real tree, minus the app → root imports still listed as pending (checked apart). */
function treeViolations(): string[] {
  return violations(".")
    .filter((violation) => !(violation.rule === "layer" && APP_ROOT_IMPORTS_PENDING.includes(violation.edge.from) && layerOf(violation.edge.to).layer === "compose"))
    .map(describeViolation);
}

describe("architecture: the layer allow-list (ARCH-2)", () => {
  it("ARCH-2 every file under src/ sits in a known layer folder", () => {
    expect(sourceFiles(".").filter((file) => layerOf(file).layer === "other")).toEqual([]);
  });

  it("ARCH-2 every import of src/ is allowed by its layer's rule (folders, packages, side effects, extensions)", () => {
    expect(treeViolations()).toEqual([]);
  });

  it("ARCH-2 no cycles between folders (app areas, surfaces, technologies), type-only imports included", () => {
    expect(unitCycles(".")).toEqual(UNIT_CYCLES_PENDING);
  });

  it("ARCH-1 application code imports the composition root only where still listed, and the list only shrinks", () => {
    const importing = [...new Set(sourceFiles(".").filter((file) => layerOf(file).layer === "app").filter((file) => importsOf(".", file).some((edge) => edge.relative && !edge.typeOnly && layerOf(edge.to).layer === "compose")))].sort();
    expect(importing).toEqual([...APP_ROOT_IMPORTS_PENDING].sort());
  });

  it("ARCH-1 no module-level maps keyed by a storage object in the application or the root", () => {
    const offenders = sourceFiles(".")
      .filter((file) => ["app", "compose"].includes(layerOf(file).layer))
      .filter((file) => /^(?:export\s+)?const\s+\w+\s*=\s*new\s+(?:Weak)?Map<\s*Storage\b/m.test(readFileSync(file, "utf8")));
    expect(offenders).toEqual([]);
  });

  it("ARCH-2 the diagram in docs/architecture.dot is the one the code draws (node --import tsx scripts/architecture-graph.ts --dot)", () => {
    expect(readFileSync("docs/architecture.dot", "utf8")).toBe(toDot("."));
  });
});

describe("architecture: each rule fails on a tree that breaks it (ARCH-2)", () => {
  const cases: Array<[tree: string, expected: string[]]> = [
    ["domain-node", ["package: src/domain/a.ts → node:fs"]],
    ["domain-side-effect", ["side-effect: src/domain/a.ts → node:fs", "package: src/domain/a.ts → node:fs"]],
    ["domain-pg", ["package: src/domain/a.ts → pg"]],
    ["domain-app", ["layer: src/domain/a.ts → ../app/agent/b.js"]],
    ["domain-compose", ["layer: src/domain/a.ts → ../compose/c.js"]],
    ["app-adapter", ["layer: src/app/agent/a.ts → ../../adapters/out/sqlite/s.js"]],
    ["app-compose", ["layer: src/app/agent/a.ts → ../../compose/c.js"]],
    ["out-family", ["family: src/adapters/out/postgres/p.ts → ../sqlite/s.js"]],
    ["out-app", ["layer: src/adapters/out/sqlite/s.ts → ../../../app/agent/a.js"]],
    ["in-out", ["layer: src/adapters/in/chat/c.ts → ../../out/sqlite/s.js"]],
    ["ports-value", ["type-only: src/ports/p.ts → ../domain/a.js"]],
    ["extensionless", ["extension: src/app/agent/a.ts → ./b"]],
    ["kernel-driver", ["package: src/adapters/out/kernel/k.ts → better-sqlite3"]],
    ["clean", []],
  ];
  it.each(cases)("ARCH-2 fixture tree %s", (tree, expected) => {
    expect(violations(`${FIXTURES}/${tree}`).map(describeViolation).sort()).toEqual([...expected].sort());
  });

  it("ARCH-2 a folder-level cycle through a type-only import is found", () => {
    expect(unitCycles(`${FIXTURES}/unit-cycle`)).toEqual([["app/agent", "app/session-host"]]);
  });
});
