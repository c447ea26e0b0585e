import { afterAll, describe, expect, it } from "@jest/globals";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { findStoreMigrationsFolder } from "../../src/adapters/driven/sqlite/store/sqlite-database.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";

const root = mkdtempSync(join(tmpdir(), "sh-store-migrations-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const journal = JSON.parse(readFileSync(join(findStoreMigrationsFolder(), "meta", "_journal.json"), "utf8")) as { entries: Array<{ tag: string }> };

/** A copy of the store's migrations whose SQL files cannot run: using them fails. */
function brokenMigrations(): string {
  const folder = join(root, `broken-${Math.random().toString(36).slice(2)}`);
  cpSync(findStoreMigrationsFolder(), folder, { recursive: true, filter: (source) => !source.includes("/session") && !source.includes("/configuration") });
  for (const entry of journal.entries) writeFileSync(join(folder, `${entry.tag}.sql`), "THIS IS NOT SQL;");
  return folder;
}

describe("store migrations on open", () => {
  it("PORT-2 an up-to-date store opens without reading its migration files; one behind is migrated by drizzle and stamped", async () => {
    const directory = join(root, "store");
    const first = createSqliteStorage({ directory });
    await first.kv.set({ projectId: "p" }, "k", 1);
    await first.close();
    const raw = new Database(join(directory, "store.sqlite"));
    expect(raw.pragma("user_version", { simple: true })).toBe(journal.entries.length);

    // Up to date: the (broken) migration files are never run.
    const again = createSqliteStorage({ directory, migrationsFolder: brokenMigrations() });
    expect((await again.kv.get({ projectId: "p" }, "k"))?.value).toBe(1);
    await again.close();

    // A file from before the version stamp: drizzle's own table decides, nothing is applied twice.
    raw.pragma("user_version = 0");
    const stamped = createSqliteStorage({ directory });
    expect((await stamped.kv.get({ projectId: "p" }, "k"))?.value).toBe(1);
    await stamped.close();
    expect(raw.pragma("user_version", { simple: true })).toBe(journal.entries.length);

    // Behind, with migration files that cannot run: the open fails with storage_failure.
    raw.pragma("user_version = 0");
    raw.close();
    expect(() => createSqliteStorage({ directory: join(root, "fresh"), migrationsFolder: brokenMigrations() })).toThrow(expect.objectContaining({ code: "storage_failure" }));
  });
});
