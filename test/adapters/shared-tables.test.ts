// ARCH-8: one table definition (src/adapters/driven/kernel/table-definition.ts) produces both
// dialects' drizzle tables. drizzle-kit's diff of each dialect's tables against the newest snapshot
// of its checked-in migrations finds nothing to migrate: the definition is the schema databases have.
// One child process diffs every folder (test/fixtures/drizzle-pending.ts, drizzle-kit's API: the
// diff `drizzle-kit generate` writes as its next migration) instead of one `drizzle-kit generate`
// process per folder, each loading drizzle-kit and compiling its schema again (ARCH-12).
import { beforeAll, describe, expect, it } from "@jest/globals";
import { runToCompletion } from "../fixtures/run-command.js";

const SHARED = [
  { dialect: "sqlite", schema: "src/adapters/driven/sqlite/store/drizzle-kit-schema.ts", out: "drizzle" },
  { dialect: "postgresql", schema: "src/adapters/driven/postgres/schema.ts", out: "drizzle/postgres" },
  { dialect: "sqlite", schema: "src/adapters/driven/sqlite/configuration/drizzle-kit-schema.ts", out: "drizzle/configuration" },
  { dialect: "sqlite", schema: "src/adapters/driven/sqlite/run-retention/run-retention-schema.ts", out: "drizzle/run-retention" },
  { dialect: "sqlite", schema: "src/adapters/driven/sqlite/sessions/drizzle-kit-schema.ts", out: "drizzle/session" },
  { dialect: "sqlite", schema: "src/adapters/driven/sqlite/session-host/drizzle-kit-schema.ts", out: "drizzle/session-host" },
  { dialect: "postgresql", schema: "src/adapters/driven/postgres/sessions/session-schema.ts", out: "drizzle/postgres-sessions" },
  { dialect: "sqlite", schema: "src/adapters/driven/sqlite/mcp-tasks/drizzle-kit-schema.ts", out: "drizzle/mcp-tasks" },
  { dialect: "postgresql", schema: "src/adapters/driven/postgres/mcp-task-schema.ts", out: "drizzle/postgres-mcp-tasks" },
];

/** Per schema: what drizzle-kit would migrate now, and since the snapshot before the newest (null: only one). */
let diffs: Array<{ schema: string; pending: string[]; sincePrevious: string[] | null }> = [];

beforeAll(async () => {
  const ran = await runToCompletion(process.execPath, ["--import", "tsx", "test/fixtures/drizzle-pending.ts", JSON.stringify(SHARED)], { cwd: process.cwd(), timeoutMs: 120_000 });
  if (ran.status !== 0) throw new Error(`test/fixtures/drizzle-pending.ts exited ${ran.status ?? ran.signal}: ${ran.stderr}`);
  diffs = JSON.parse(ran.stdout);
}, 120_000);

describe("ARCH-8 shared table definitions", () => {
  it.each(SHARED)("ARCH-8 $schema matches the checked-in migrations in $out (drizzle-kit: nothing to migrate)", ({ schema }) => {
    expect(diffs.find((diff) => diff.schema === schema)).toMatchObject({ schema, pending: [] });
  });

  it("ARCH-8 the check can fail: against the snapshot before the newest, drizzle-kit finds the newest migration's changes", () => {
    expect(diffs.map((diff) => diff.schema)).toEqual(SHARED.map((folder) => folder.schema));
    // Every folder with two snapshots but one whose newest migration is hand-written SQL (its snapshot unchanged).
    expect(diffs.filter((diff) => diff.sincePrevious !== null && diff.sincePrevious.length > 0).length).toBeGreaterThanOrEqual(SHARED.length / 2);
  });
});
