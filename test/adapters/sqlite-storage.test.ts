import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { isSteamharnessError } from "../../src/domain/errors.js";
import type { JsonValue } from "../../src/domain/json.js";
import { STORE_MIGRATIONS_TABLE } from "../../src/adapters/driven/sqlite/store/sqlite-database.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { STORE_DATABASE_FILE } from "../../src/adapters/driven/sqlite/store/sqlite-database.js";
import { sortKey } from "../../src/adapters/driven/kernel/sort-key.js";
import type { Storage } from "../../src/ports/storage.js";
import { runKnowledgeStoreContract } from "../../src/testing/knowledge-store.contract.js";
import { runKvStoreContract } from "../../src/testing/kv-store.contract.js";
import { runManagedFileStoreContract } from "../../src/testing/managed-file-store.contract.js";
import { runPersistentValueStoreContract } from "../../src/testing/persistent-value-store.contract.js";

const api = { describe, it, expect };
const temp = (): string => mkdtempSync(join(tmpdir(), "steamharness-sqlite-"));

/** A fresh store in a fresh directory, a raw read-only connection beside it for `inspect`. */
function open(): { storage: Storage; raw: Database.Database; dispose: () => Promise<void> } {
  const directory = temp();
  const storage = createSqliteStorage({ directory, maxFileBytes: 64 * 1024 });
  const raw = new Database(join(directory, STORE_DATABASE_FILE), { readonly: true });
  return {
    storage,
    raw,
    dispose: async () => {
      raw.close();
      await storage.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

const parse = (row: { value: string } | undefined): JsonValue | null => (row ? JSON.parse(row.value) : null);

describe("PORT-1 SQLite storage passes every store contract", () => {
  runKvStoreContract(api, () => {
    const { storage, raw, dispose } = open();
    const select = raw.prepare("SELECT value FROM kv_entries WHERE project_id = ? AND conversation_id = ? AND key = ?");
    return {
      store: storage.kv,
      dispose,
      inspect: {
        get: async (ns, key) =>
          parse(select.get(ns.projectId, ns.conversationId ?? "", sortKey(key)) as { value: string } | undefined),
      },
    };
  });
  runKnowledgeStoreContract(api, () => {
    const { storage, raw, dispose } = open();
    const select = raw.prepare("SELECT title, markdown FROM knowledge_documents WHERE project_id = ? AND document_id = ?");
    return {
      store: storage.knowledge,
      dispose,
      inspect: {
        get: async (projectId, documentId) =>
          (select.get(projectId, documentId) as { title: string; markdown: string } | undefined) ?? null,
      },
    };
  });
  runManagedFileStoreContract(api, () => {
    const { storage, raw, dispose } = open();
    const select = raw.prepare("SELECT count(*) AS n FROM managed_files WHERE project_id = ?");
    return { store: storage.files, dispose, inspect: { count: async (p) => (select.get(p) as { n: number }).n } };
  });
  runPersistentValueStoreContract(api, () => {
    const { storage, raw, dispose } = open();
    const select = raw.prepare("SELECT value FROM persistent_values WHERE project_id = ? AND name = ?");
    return {
      store: storage.values,
      dispose,
      inspect: { get: async (p, name) => parse(select.get(p, name) as { value: string } | undefined) },
    };
  });
});

describe("PORT-2 SQLite storage: migrations on open, WAL, persistence, faults", () => {
  it("applies the checked-in migrations on open, in WAL mode, with agents under the directory", async () => {
    const directory = temp();
    const storage = createSqliteStorage({ directory });
    const raw = new Database(join(directory, STORE_DATABASE_FILE), { readonly: true });
    try {
      const tables = (raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
        (row) => row.name,
      );
      expect(tables).toEqual(
        expect.arrayContaining(["kv_entries", "knowledge_documents", "knowledge_fts", "managed_files", "persistent_values"]),
      );
      const applied = raw.prepare(`SELECT count(*) AS n FROM ${STORE_MIGRATIONS_TABLE}`).get() as { n: number };
      const journal = readdirSync(join(process.cwd(), "drizzle")).filter((name) => name.endsWith(".sql"));
      expect(applied.n).toBe(journal.length);
      expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(storage.agentStoreDir).toBe(join(directory, "agents"));
    } finally {
      raw.close();
      await storage.close();
      await storage.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("keeps everything across close and reopen, and reapplies no migration", async () => {
    const directory = temp();
    const first = createSqliteStorage({ directory });
    await first.kv.set({ projectId: "p", conversationId: "c" }, "k", { n: 1 });
    await first.knowledge.upsert("p", { documentId: "d", title: "Persistence", markdown: "survives reopen" });
    const file = await first.files.put("p", new Uint8Array([1, 2, 3]), { name: "f" });
    await first.values.set("p", "v", [1]);
    await first.close();
    const second = createSqliteStorage({ directory });
    try {
      expect((await second.kv.get({ projectId: "p", conversationId: "c" }, "k"))?.value).toEqual({ n: 1 });
      expect((await second.knowledge.search("p", "reopen")).items.map((hit) => hit.documentId)).toEqual(["d"]);
      expect([...(await second.files.read("p", file.fileId))!]).toEqual([1, 2, 3]);
      expect(await second.values.get("p", "v")).toEqual([1]);
      expect(await second.kv.set({ projectId: "p" }, "after", 2)).toBeUndefined();
    } finally {
      await second.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("equal file contents share one content file, removed with its last user", async () => {
    const directory = temp();
    const storage = createSqliteStorage({ directory });
    const contentFiles = (): string[] =>
      readdirSync(join(directory, "files"), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => entry.name);
    try {
      const bytes = new TextEncoder().encode("shared content");
      const a = await storage.files.put("p1", bytes, { name: "a" });
      const b = await storage.files.put("p2", bytes, { name: "b" });
      expect(contentFiles()).toEqual([a.sha256]);
      await storage.files.delete("p1", a.fileId);
      expect(contentFiles()).toEqual([a.sha256]);
      await storage.files.delete("p2", b.fileId);
      expect(contentFiles()).toEqual([]);
    } finally {
      await storage.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("a closed store fails with storage_failure", async () => {
    const directory = temp();
    const storage = createSqliteStorage({ directory });
    await storage.close();
    await expect(storage.kv.get({ projectId: "p" }, "k")).rejects.toMatchObject({ code: "storage_failure" });
    rmSync(directory, { recursive: true, force: true });
  });

  it("a read-only store file surfaces as storage_failure with the SQLite error as cause", async () => {
    const directory = temp();
    const setup = createSqliteStorage({ directory });
    await setup.kv.set({ projectId: "p" }, "k", 1);
    await setup.close();
    const file = join(directory, STORE_DATABASE_FILE);
    // Root ignores permission bits, so as root the file is made immutable instead.
    const asRoot = process.getuid?.() === 0;
    if (asRoot) execFileSync("chattr", ["+i", file]);
    else chmodSync(file, 0o444);
    let failure: unknown;
    let readBack: unknown;
    try {
      const storage = createSqliteStorage({ directory });
      try {
        readBack = (await storage.kv.get({ projectId: "p" }, "k"))?.value;
        await storage.kv.set({ projectId: "p" }, "k", 2);
      } catch (error) {
        failure = error;
      } finally {
        await storage.close();
      }
    } finally {
      if (asRoot) execFileSync("chattr", ["-i", file]);
      rmSync(directory, { recursive: true, force: true });
    }
    expect(readBack).toBe(1);
    expect(isSteamharnessError(failure, "storage_failure")).toBe(true);
    expect((failure as Error).message).toMatch(/^\[steamharness\] \[sqlite\] kv set failed/);
    expect(((failure as Error).cause as { code?: string }).code).toBe("SQLITE_READONLY");
  });

  it("a file that is not a database fails to open with storage_failure", () => {
    const directory = temp();
    writeFileSync(join(directory, STORE_DATABASE_FILE), "this is not a database, just text ".repeat(100));
    let failure: unknown;
    try {
      createSqliteStorage({ directory });
    } catch (error) {
      failure = error;
    }
    rmSync(directory, { recursive: true, force: true });
    expect(isSteamharnessError(failure, "storage_failure")).toBe(true);
    expect(((failure as Error).cause as { code?: string }).code).toBe("SQLITE_NOTADB");
  });
});
