import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

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
