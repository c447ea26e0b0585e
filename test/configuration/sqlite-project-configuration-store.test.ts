import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import Database from "better-sqlite3";
import { and, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { configurationTables } from "../../src/adapters/driven/sqlite/configuration/configuration-schema.js";
import { findMigrationsFolder } from "../../src/adapters/driven/system/migrations-folder.js";
import {
  createSqliteProjectConfigurationStore,
  projectConfigurationDatabasePath,
} from "../../src/adapters/driven/sqlite/configuration/sqlite-project-configuration-store.js";
import { runProjectConfigurationStoreContract } from "../../src/testing/project-configuration-store.contract.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";

function readRow(path: string, projectId: string, configurationId: string) {
  const { configurations } = configurationTables();
  const client = new Database(path, { readonly: true });
  try {
    const row = drizzle({ client })
      .select()
      .from(configurations)
      .where(and(eq(configurations.projectId, projectId), eq(configurations.configurationId, configurationId)))
      .get();
    return row ? { revision: row.revision, deleted: row.deletedAt !== null, values: JSON.parse(row.values) } : null;
  } finally {
    client.close();
  }
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "steamharness-config-"));
}

describe("CFG-1 SQLite project configuration store", () => {
  runProjectConfigurationStoreContract({ describe, it, expect }, () => {
    const dataDir = tempDir();
    const path = projectConfigurationDatabasePath(dataDir);
    const store = createSqliteProjectConfigurationStore({ dataDir });
    return {
      store,
      inspect: { configuration: async (projectId: string, configurationId: string) => readRow(path, projectId, configurationId) },
      dispose: async () => {
        await store.close?.();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  });

  it("CFG-1 lives in <dataDir>/configurations.sqlite in WAL mode and survives reopening", async () => {
    const dataDir = tempDir();
    try {
      const first = createSqliteProjectConfigurationStore({ dataDir });
      await first.create("p", { configurationId: "main", name: "Main", values: {} });
      await first.close?.();
      const path = join(dataDir, "configurations.sqlite");
      expect(existsSync(path)).toBe(true);
      const client = new Database(path, { readonly: true });
      expect(client.pragma("journal_mode", { simple: true })).toBe("wal");
      client.close();
      const second = createSqliteProjectConfigurationStore({ dataDir });
      expect((await second.read("p")).configurations.map((c) => [c.configurationId, c.revision])).toEqual([["main", 1]]);
      expect(await second.exportProject("p")).toEqual(expect.objectContaining({ currentConfigurationId: "main" }));
      await second.close?.();
      await expect(second.read("p")).rejects.toMatchObject({ code: "storage_failure" });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("CFG-1 migrations are found from src/ and from a built dist/ folder", () => {
    const fromSrc = findMigrationsFolder("configuration");
    expect(fromSrc).toBe(join(process.cwd(), "drizzle", "configuration"));
    expect(findMigrationsFolder("configuration", join(process.cwd(), "dist"))).toBe(fromSrc);
    expect(findMigrationsFolder("configuration", tmpdir())).toBeNull();
  });

  it("CFG-1 writers in separate processes holding the same revision: exactly one wins, the rest conflict", async () => {
    const dataDir = tempDir();
    const path = projectConfigurationDatabasePath(dataDir);
    try {
      const store = createSqliteProjectConfigurationStore({ path });
      await store.setFields("p", [{ key: "title", type: "string" }], { expectedRevision: 0 });
      await store.create("p", { configurationId: "main", name: "Main", values: { title: "start" } });
      const writers = Array.from({ length: 4 }, (_, i) =>
        spawn(process.execPath, [bundledFixture("test/configuration/fixtures/concurrent-writer.ts"), path, "p", "1", `w${i}`], { stdio: ["pipe", "pipe", "inherit"] }),
      );
      const lines = writers.map((child) => {
        const received: string[] = [];
        let buffer = "";
        child.stdout.on("data", (chunk: Buffer) => {
          buffer += chunk.toString();
          const parts = buffer.split("\n");
          buffer = parts.pop()!;
          received.push(...parts);
        });
        return received;
      });
      const until = async (predicate: () => boolean) => {
        for (let i = 0; i < 600 && !predicate(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      };
      await until(() => lines.every((l) => l.length >= 1));
      for (const child of writers) child.stdin.end("go\n");
      await Promise.all(writers.map((child) => new Promise((resolve) => child.on("exit", resolve))));
      const outcomes = lines.map((l) => JSON.parse(l[1]!) as { ok: boolean; code?: string; label: string });
      expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
      expect(outcomes.filter((o) => !o.ok).map((o) => o.code)).toEqual(["conflict", "conflict", "conflict"]);
      const winner = outcomes.find((o) => o.ok)!.label;
      expect(await store.get("p", "main")).toEqual(expect.objectContaining({ revision: 2, values: { title: winner } }));
      await store.close?.();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
