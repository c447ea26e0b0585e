// ARCH-8: one table definition (src/adapters/driven/kernel/table-definition.ts) produces both
// dialects' drizzle tables. drizzle-kit, run on each dialect's table against a copy of its
// checked-in migrations, finds nothing to migrate: the definition is the schema databases have.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "@jest/globals";

const SHARED = [
  { dialect: "sqlite", schema: "src/adapters/driven/sqlite/store/drizzle-kit-schema.ts", out: "drizzle" },
  { dialect: "postgresql", schema: "src/adapters/driven/postgres/schema.ts", out: "drizzle/postgres" },
  { dialect: "sqlite", schema: "src/adapters/driven/sqlite/configuration/drizzle-kit-schema.ts", out: "drizzle/configuration" },
  { dialect: "sqlite", schema: "src/adapters/driven/sqlite/run-retention/run-retention-schema.ts", out: "drizzle/run-retention" },
  { dialect: "sqlite", schema: "src/adapters/driven/sqlite/sessions/drizzle-kit-schema.ts", out: "drizzle/session" },
  { dialect: "sqlite", schema: "src/adapters/driven/sqlite/session-host/drizzle-kit-schema.ts", out: "drizzle/session-host" },
  { dialect: "postgresql", schema: "src/adapters/driven/postgres/sessions/session-schema.ts", out: "drizzle/postgres-sessions" },
  { dialect: "sqlite", schema: "src/adapters/driven/sqlite/mcp-tasks/mcp-task-schema.ts", out: "drizzle/mcp-tasks" },
  { dialect: "postgresql", schema: "src/adapters/driven/postgres/mcp-task-schema.ts", out: "drizzle/postgres-mcp-tasks" },
];

describe("ARCH-8 shared table definitions", () => {
  it.each(SHARED)("ARCH-8 $schema matches the checked-in migrations in $out (drizzle-kit: nothing to migrate)", ({ dialect, schema, out }) => {
    const copy = mkdtempSync(join(tmpdir(), "sh-shared-tables-"));
    try {
      cpSync(out, copy, { recursive: true });
      const before = readdirSync(copy, { recursive: true }).length;
      const run = spawnSync(resolve("node_modules/.bin/drizzle-kit"), ["generate", "--dialect", dialect, "--schema", schema, "--out", relative(".", copy)], { encoding: "utf8" });
      const said = `${run.stdout}${run.stderr}`;
      expect({ nothingToMigrate: /No schema changes/.test(said), files: readdirSync(copy, { recursive: true }).length }).toEqual({ nothingToMigrate: true, files: before });
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }, 60_000);
});
