import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { cyclesOf } from "../scripts/architecture-graph.js";

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith(".ts") ? [path] : [];
  });
}

const importRe = /(?:from\s+|import\s*\(\s*|require\s*\(\s*)["']([^"']+)["']/g;

describe("architecture (PORT-3)", () => {
  it("PORT-3 nothing under src/domain imports an adapter, node:*, SQLite, drizzle, the MCP SDK or the provider library", () => {
    const offenders: string[] = [];
    for (const file of filesUnder("src/domain")) {
      const text = readFileSync(file, "utf8");
      for (const match of text.matchAll(importRe)) {
        const target = match[1];
        const bad =
          /\/adapters\//.test(target) ||
          target.startsWith("node:") ||
          ["fs", "path", "child_process", "http", "https", "net", "os", "crypto"].includes(target) ||
          /^(better-sqlite3|drizzle-orm|@modelcontextprotocol\/|@mariozechner\/)/.test(target);
        if (bad) offenders.push(`${file} → ${target}`);
      }
      if (/\bprocess\.env\b/.test(text)) offenders.push(`${file} → process.env`);
    }
    expect(offenders).toEqual([]);
  });

  it("PORT-3 the check itself catches a forbidden import", () => {
    const sample = `import x from "node:fs";\nconst y = await import("../adapters/sqlite/x.js");`;
    expect([...sample.matchAll(importRe)].map((m) => m[1])).toEqual(["node:fs", "../adapters/sqlite/x.js"]);
  });

  it("PORT-3 src/ports holds interfaces only (no runtime imports of adapters)", () => {
    for (const file of filesUnder("src/ports")) {
      expect(readFileSync(file, "utf8")).not.toMatch(/from ["'][^"']*adapters\//);
    }
  });
});

/** Every relative import of a file (static, dynamic, re-exports), resolved to a source path, and whether it is type-only. */
function importsOf(file: string): Array<{ target: string; typeOnly: boolean }> {
  const text = readFileSync(file, "utf8");
  const found: Array<{ target: string; typeOnly: boolean }> = [];
  for (const match of text.matchAll(/(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)/g)) {
    const spec = match[3] ?? match[4]!;
    if (!spec.startsWith(".")) continue;
    found.push({ target: relative(".", resolve(dirname(file), spec.replace(/\.js$/, ".ts"))), typeOnly: match[2] !== undefined });
  }
  return found;
}

/** The import cycles between files (strongly connected components with more than one file), by the layer graph's Tarjan. */
function importCycles(files: string[]): string[][] {
  return cyclesOf(new Map(files.map((file) => [file, importsOf(file).map((entry) => entry.target).filter((target) => files.includes(target))])));
}

const APPLICATION = ["src/app"];
/** The curated entry files: export lists of the package's entries. */
const ENTRIES = ["src/index.ts", "src/agent.ts", "src/testing.ts", "src/cli.ts", "src/postgres.ts", "src/gateway.ts", "src/opentelemetry.ts"];
const isAdapter = (path: string): boolean => path.startsWith("src/adapters/");

describe("architecture (PORT-5)", () => {
  it("PORT-5 application folders reach adapters only through the composition root (src/compose)", () => {
    const offenders = APPLICATION.flatMap((folder) => filesUnder(folder).flatMap((file) => importsOf(file).filter((entry) => isAdapter(entry.target) && !entry.typeOnly).map((entry) => `${file} → ${entry.target}`)));
    expect(offenders).toEqual([]);
  });

  it("PORT-5 outside src/adapters only the composition root and the entry files import adapters", () => {
    const offenders = filesUnder("src")
      .filter((file) => !isAdapter(file) && !file.startsWith("src/compose/") && !ENTRIES.includes(file))
      .flatMap((file) => importsOf(file).filter((entry) => isAdapter(entry.target)).map((entry) => `${file} → ${entry.target}`));
    expect(offenders).toEqual([]);
  });

  it("PORT-5 ports import only types, and only from ports and the domain (no runtime code; cycles are checked below)", () => {
    const offenders: string[] = [];
    for (const file of filesUnder("src/ports")) {
      for (const entry of importsOf(file)) {
        if (!entry.typeOnly) offenders.push(`${file} → ${entry.target} (not type-only)`);
        else if (!entry.target.startsWith("src/domain/") && !entry.target.startsWith("src/ports/")) offenders.push(`${file} → ${entry.target}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("PORT-5 no import cycles anywhere under src (type-only imports included)", () => {
    expect(importCycles(filesUnder("src"))).toEqual([]);
  });

  it("PORT-5 no directory or file extension of a session backend in the domain or the ports", () => {
    const offenders = [...filesUnder("src/domain"), ...filesUnder("src/ports")].filter((file) => /agentStoreDir|\.sqlite\b/.test(readFileSync(file, "utf8")));
    expect(offenders).toEqual([]);
  });

  it("PORT-5 the checks catch a forbidden edge and a cycle", () => {
    expect(importCycles(["test/fixtures/architecture/cycle-a.ts", "test/fixtures/architecture/cycle-b.ts"])).toEqual([["test/fixtures/architecture/cycle-a.ts", "test/fixtures/architecture/cycle-b.ts"]]);
    expect(importsOf("test/fixtures/architecture/cycle-a.ts")).toEqual([
      { target: "test/fixtures/architecture/cycle-b.ts", typeOnly: true },
      { target: "src/adapters/out/memory/memory-storage.ts", typeOnly: false },
    ]);
  });
});
