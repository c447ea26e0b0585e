import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import pg from "pg";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { createKvTokenUsage } from "../../src/adapters/driven/kernel/kv-token-usage.js";
import { POSTGRES_MIGRATIONS_TABLE } from "../../src/adapters/driven/postgres/postgres-database.js";
import type { JsonValue } from "../../src/domain/json.js";
import { createPostgresProjectConfigurationStore } from "../../src/adapters/driven/postgres/postgres-sql-driver.js";
import { createPostgresStorage } from "../../src/adapters/driven/postgres/postgres-storage.js";
import { sortKey } from "../../src/adapters/driven/kernel/sort-key.js";
import { uniqueId } from "../../src/testing/contract-support.js";
import { runKnowledgeStoreContract } from "../../src/testing/knowledge-store.contract.js";
import { runKvStoreContract } from "../../src/testing/kv-store.contract.js";
import { runManagedFileStoreContract } from "../../src/testing/managed-file-store.contract.js";
import { runPersistentValueStoreContract } from "../../src/testing/persistent-value-store.contract.js";
import { runProjectConfigurationStoreContract } from "../../src/testing/project-configuration-store.contract.js";
import { runTokenUsageContract } from "../../src/testing/token-usage.contract.js";
import { describePostgres, quoteIdentifier } from "../fixtures/postgres.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";

const api = { describe, it, expect };
const parse = (rows: Array<{ value: string }>): JsonValue | null => (rows[0] ? (JSON.parse(rows[0].value) as JsonValue) : null);

describePostgres("PG-1 PostgreSQL storage passes every store contract", (database) => {
  const table = (name: string) => `${quoteIdentifier(database.schema)}.${quoteIdentifier(name)}`;
  // Every case gets its own storage on the file's pool and schema (the suites isolate by random ids).
  const open = async () => {
    const storage = await createPostgresStorage({ pool: database.pool, schema: database.schema, maxFileBytes: 64 * 1024 });
    return { storage, dispose: () => storage.close() };
  };
  // The raw reads below go through a separate pool with plain SQL: they check the rows without
  // trusting the adapter or its drizzle schema.
  const raw = <R extends Record<string, unknown>>(text: string, values: unknown[]) => database.raw.query<R>(text, values).then((result) => result.rows);

  runKvStoreContract(api, async () => {
    const { storage, dispose } = await open();
    const select = `SELECT value FROM ${table("kv_entries")} WHERE project_id = $1 AND conversation_id = $2 AND key = $3`;
    return {
      store: storage.kv,
      dispose,
      inspect: { get: async (ns, key) => parse(await raw<{ value: string }>(select, [ns.projectId, ns.conversationId ?? "", sortKey(key)])) },
    };
  });

  runKnowledgeStoreContract(api, async () => {
    const { storage, dispose } = await open();
    const select = `SELECT title, markdown FROM ${table("knowledge_documents")} WHERE project_id = $1 AND document_id = $2`;
    return {
      store: storage.knowledge,
      dispose,
      inspect: { get: async (projectId, documentId) => (await raw<{ title: string; markdown: string }>(select, [projectId, documentId]))[0] ?? null },
    };
  });

  runManagedFileStoreContract(api, async () => {
    const { storage, dispose } = await open();
    const select = `SELECT count(*)::int AS n FROM ${table("managed_files")} WHERE project_id = $1`;
    return { store: storage.files, dispose, inspect: { count: async (projectId) => (await raw<{ n: number }>(select, [projectId]))[0].n } };
  });

  runPersistentValueStoreContract(api, async () => {
    const { storage, dispose } = await open();
    const select = `SELECT value FROM ${table("persistent_values")} WHERE project_id = $1 AND name = $2`;
    return { store: storage.values, dispose, inspect: { get: async (projectId, name) => parse(await raw<{ value: string }>(select, [projectId, name])) } };
  });

  // Project scope and conversation scope; a random project per case, as the schema is shared.
  runTokenUsageContract(api, async () => {
    const { storage, dispose } = await open();
    return { store: storage.tokenUsage!({ projectId: uniqueId("p") }), dispose };
  });
  runTokenUsageContract(api, async () => {
    const { storage, dispose } = await open();
    return { store: storage.tokenUsage!({ projectId: uniqueId("p"), conversationId: "c" }), dispose };
  });

  runProjectConfigurationStoreContract(api, async () => {
    const store = await createPostgresProjectConfigurationStore({ pool: database.pool, schema: database.schema });
    const select = `SELECT revision, deleted_at, "values" FROM ${table("configurations")} WHERE project_id = $1 AND configuration_id = $2`;
    return {
      store,
      dispose: () => store.close?.(),
      inspect: {
        configuration: async (projectId: string, configurationId: string) => {
          const [row] = await raw<{ revision: number; deleted_at: string | null; values: string }>(select, [projectId, configurationId]);
          return row ? { revision: row.revision, deleted: row.deleted_at !== null, values: JSON.parse(row.values) as JsonValue } : null;
        },
      },
    };
  });
});

/** Runs the opener fixture in `count` processes that open at the same moment; resolves their reports. */
async function openInProcesses(url: string, schema: string, count: number): Promise<Array<{ ok: boolean; code?: string; message?: string }>> {
  const children = Array.from({ length: count }, (_, i) =>
    spawn(process.execPath, [bundledFixture(join("test", "adapters", "fixtures", "postgres-open.ts")), url, schema, `opener-${i}`], { stdio: ["pipe", "pipe", "inherit"] }),
  );
  const lines = children.map((child) => {
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
  const exits = children.map((child) => new Promise((resolve) => child.on("exit", resolve)));
  for (let i = 0; i < 1200 && !lines.every((l) => l.length >= 1); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  for (const child of children) child.stdin.end("go\n");
  await Promise.all(exits);
  return lines.map((l) => JSON.parse(l[1] ?? '{"ok":false,"message":"no report"}') as { ok: boolean; code?: string; message?: string });
}

describePostgres("PG-1 PostgreSQL storage: migrations, full-text index, pools and faults", (database) => {
  const table = (schema: string, name: string) => `${quoteIdentifier(schema)}.${quoteIdentifier(name)}`;
  const journalLength = readdirSync(join("drizzle", "postgres")).filter((name) => name.endsWith(".sql")).length;

  it("PG-1 two processes opening a fresh schema at once apply each migration exactly once", async () => {
    const schema = database.freshSchema();
    const reports = await openInProcesses(database.url, schema, 2);
    expect(reports).toEqual([{ ok: true }, { ok: true }]);
    const applied = await database.raw.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table(schema, POSTGRES_MIGRATIONS_TABLE)}`);
    expect(applied.rows[0].n).toBe(journalLength);
    const tables = await database.raw.query<{ tablename: string }>("SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = $1 ORDER BY tablename", [schema]);
    expect(tables.rows.map((row) => row.tablename)).toEqual(
      [POSTGRES_MIGRATIONS_TABLE, "configuration_accounts", "configuration_projects", "configurations", "knowledge_documents", "kv_entries", "managed_files", "persistent_values", "budget_reservations", "budget_rows", "api_keys", "api_rate_windows", "api_slots", "api_tenants", "approval_audit", "approval_decisions", "approval_requests"].sort(),
    );
    const storage = await createPostgresStorage({ pool: database.pool, schema });
    try {
      expect((await storage.kv.list({ projectId: "p" })).items.map((entry) => entry.value)).toEqual(["opener-0", "opener-1"]);
    } finally {
      await storage.close();
    }
  }, 120_000);

  it("PG-1 everything survives close and reopen; reopening applies no migration; schemas are isolated", async () => {
    const schema = database.freshSchema();
    const first = await createPostgresStorage({ connectionString: database.url, schema });
    await first.kv.set({ projectId: "p", conversationId: "c" }, "k", { n: 1 });
    await first.knowledge.upsert("p", { documentId: "d", title: "Persistence", markdown: "survives reopen" });
    const file = await first.files.put("p", new Uint8Array([1, 2, 3]), { name: "f" });
    await first.values.set("p", "v", [1]);
    await first.close();
    await first.close();
    const second = await createPostgresStorage({ connectionString: database.url, schema });
    const other = await createPostgresStorage({ pool: database.pool, schema: database.freshSchema() });
    try {
      expect((await second.kv.get({ projectId: "p", conversationId: "c" }, "k"))?.value).toEqual({ n: 1 });
      expect((await second.knowledge.search("p", "reopen")).items.map((hit) => hit.documentId)).toEqual(["d"]);
      expect([...(await second.files.read("p", file.fileId))!]).toEqual([1, 2, 3]);
      expect(await second.values.get("p", "v")).toEqual([1]);
      expect(await other.kv.get({ projectId: "p", conversationId: "c" }, "k")).toBeNull();
      expect((await other.knowledge.search("p", "reopen")).items).toEqual([]);
      const applied = await database.raw.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table(schema, POSTGRES_MIGRATIONS_TABLE)}`);
      expect(applied.rows[0].n).toBe(journalLength);
    } finally {
      await second.close();
      await other.close();
    }
  });

  it("PG-1 search over 1 200 documents: ranked order, keyset pages without gaps or repeats, and the GIN index serves a selective query", async () => {
    // A pool that records the statements it runs, to EXPLAIN exactly what the adapter sent.
    const spied = new pg.Pool({ connectionString: database.url, max: 8 });
    const sent: Array<{ text: string; values: unknown[] }> = [];
    const query = spied.query.bind(spied) as (...args: unknown[]) => unknown;
    (spied as unknown as { query: (...args: unknown[]) => unknown }).query = (config: unknown, values?: unknown) => {
      if (typeof config === "object" && config !== null && "text" in config) sent.push({ text: (config as { text: string }).text, values: (values as unknown[]) ?? [] });
      return query(config, values);
    };
    const storage = await createPostgresStorage({ pool: spied, schema: database.schema });
    try {
      const p = uniqueId("big");
      const total = 1200;
      const ids = Array.from({ length: total }, (_, i) => `doc-${String(i).padStart(4, "0")}`);
      for (let start = 0; start < total; start += 8) {
        await Promise.all(
          ids.slice(start, start + 8).map((documentId, offset) => {
            const i = start + offset;
            // "wombat" in every document, 1..9 times; "quokka" in every 300th only. Bodies of about
            // 1 KB make a table of a few hundred pages, where scanning it all is no longer cheap.
            const body = `${"wombat ".repeat((i % 9) + 1)}${"filler words about burrows ".repeat(40 + (i % 4))}${i % 300 === 7 ? "quokka" : ""}`;
            return storage.knowledge.upsert(p, { documentId, title: `Note ${i}`, markdown: body });
          }),
        );
      }
      // Page through every hit of the common term, 97 at a time.
      const seen: Array<{ documentId: string; score: number }> = [];
      let cursor: string | null = null;
      do {
        const page: Awaited<ReturnType<typeof storage.knowledge.search>> = await storage.knowledge.search(p, "wombat", { limit: 97, cursor });
        seen.push(...page.items.map(({ documentId, score }) => ({ documentId, score })));
        cursor = page.nextCursor;
      } while (cursor !== null);
      expect(seen).toHaveLength(total);
      expect(new Set(seen.map((hit) => hit.documentId)).size).toBe(total);
      for (let i = 1; i < seen.length; i++) {
        const [a, b] = [seen[i - 1], seen[i]];
        expect(a.score > b.score || (a.score === b.score && a.documentId < b.documentId)).toBe(true);
      }
      // Equal bodies score equally, so the first page is the best nine-wombat documents, by id.
      expect(seen[0].score).toBeGreaterThan(seen[seen.length - 1].score);
      expect(seen.slice(0, 5).map((hit) => hit.documentId)).toEqual((await storage.knowledge.search(p, "wombat", { limit: 5 })).items.map((hit) => hit.documentId));

      const rare = await storage.knowledge.search(p, "Quokka wombat", { limit: 50 });
      expect(rare.items.map((hit) => hit.documentId)).toEqual(["doc-0007", "doc-0307", "doc-0607", "doc-0907"].sort((x, y) => {
        const score = (id: string) => rare.items.find((hit) => hit.documentId === id)!.score;
        return score(y) - score(x) || (x < y ? -1 : 1);
      }));
      const statement = sent.filter((entry) => entry.text.includes("@@")).pop()!;
      expect(statement.values).toContain("'quokka' & 'wombat'");
      await database.raw.query(`ANALYZE ${table(database.schema, "knowledge_documents")}`);
      // The planner's own choice, without enable_seqscan=off: the selective term goes through the GIN index.
      const plan = JSON.stringify((await database.raw.query(`EXPLAIN (FORMAT JSON) ${statement.text}`, statement.values)).rows);
      expect(plan).toContain('"Index Name":"knowledge_documents_search"');
      expect(plan).not.toContain('"Node Type":"Seq Scan"');
    } finally {
      await storage.close();
      await spied.end();
    }
  }, 120_000);

  it("PG-1 search folds case and diacritics and matches non-Latin words like the other stores", async () => {
    const storage = await createPostgresStorage({ pool: database.pool, schema: database.schema });
    try {
      const p = uniqueId("p");
      await storage.knowledge.upsert(p, { documentId: "fr", title: "Crème brûlée", markdown: "Un dessert français" });
      await storage.knowledge.upsert(p, { documentId: "ru", title: "Города", markdown: "Москва и Санкт-Петербург" });
      await storage.knowledge.upsert(p, { documentId: "ja", title: "東京", markdown: "東京タワー の 夜景" });
      await storage.knowledge.upsert(p, { documentId: "quote", title: "O'Brien", markdown: "back\\slash it's" });
      const hits = async (query: string) => (await storage.knowledge.search(p, query)).items.map((hit) => hit.documentId);
      expect(await hits("creme BRULEE")).toEqual(["fr"]);
      expect(await hits("FRANÇAIS")).toEqual(["fr"]);
      expect(await hits("москва")).toEqual(["ru"]);
      expect(await hits("петербург")).toEqual(["ru"]);
      expect(await hits("東京タワー")).toEqual(["ja"]);
      expect(await hits("東京")).toEqual(["ja"]);
      expect(await hits("brien")).toEqual(["quote"]);
      expect(await hits("it's")).toEqual(["quote"]);
      // Prefixes do not match (whole tokens only), as in the memory and SQLite stores.
      expect(await hits("моск")).toEqual([]);
    } finally {
      await storage.close();
    }
  });

  it("PG-1 close() leaves a host's pool open and ends the pool it made", async () => {
    const hosted = await createPostgresStorage({ pool: database.pool, schema: database.schema });
    await hosted.kv.set({ projectId: "p" }, "k", 1);
    await hosted.close();
    expect((await database.pool.query<{ one: number }>("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    await expect(hosted.kv.get({ projectId: "p" }, "k")).rejects.toMatchObject({ code: "storage_failure" });

    const applicationName = uniqueId("sh-own-pool");
    const connections = async () =>
      (await database.raw.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1", [applicationName])).rows[0].n;
    const owned = await createPostgresStorage({ connectionString: `${database.url}?application_name=${applicationName}`, schema: database.schema });
    await owned.kv.get({ projectId: "p" }, "k");
    expect(await connections()).toBeGreaterThan(0);
    await owned.close();
    for (let i = 0; i < 50 && (await connections()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await connections()).toBe(0);
  });

  it("PG-1 an unreachable server fails to open quickly with storage_failure and the driver's error as cause", async () => {
    const started = Date.now();
    let failure: unknown;
    try {
      await createPostgresStorage({ connectionString: "postgres://postgres@127.0.0.1:1/postgres", schema: database.schema });
    } catch (error) {
      failure = error;
    }
    expect(Date.now() - started).toBeLessThan(5000);
    expect(isSteamharnessError(failure, "storage_failure")).toBe(true);
    expect((failure as Error).message).toMatch(/^\[steamharness\] \[postgres\] cannot open the store/);
    expect(((failure as Error).cause as { code?: string }).code).toBe("ECONNREFUSED");
    await expect(createPostgresStorage({ pool: database.pool, schema: "" })).rejects.toMatchObject({ code: "input_validation" });
  });

  it("PG-1 text PostgreSQL cannot hold (U+0000) is input_validation and nothing is written", async () => {
    const storage = await createPostgresStorage({ pool: database.pool, schema: database.schema });
    try {
      const failure = await storage.knowledge.upsert("p", { documentId: "nul", title: "a\u0000b", markdown: "secret body text" }).catch((error: unknown) => error);
      expect(isSteamharnessError(failure, "input_validation")).toBe(true);
      expect((failure as Error).message).toMatch(/^\[steamharness\] \[postgres\] knowledge upsert: PostgreSQL cannot store the character U\+0000/);
      expect((failure as Error).message).not.toContain("secret body text");
      expect(((failure as Error).cause as { code?: string }).code).toBe("22021");
      expect(await storage.knowledge.get("p", "nul")).toBeNull();
      // JSON values keep it escaped, so they round-trip.
      await storage.kv.set({ projectId: "p" }, "k", { text: "a\u0000b" });
      expect((await storage.kv.get({ projectId: "p" }, "k"))?.value).toEqual({ text: "a\u0000b" });
    } finally {
      await storage.close();
    }
  });

  it("PG-1 a statement the server refuses is storage_failure naming the operation, without the statement's values", async () => {
    const storage = await createPostgresStorage({ pool: database.pool, schema: database.schema });
    try {
      await database.pool.query(`ALTER TABLE ${quoteIdentifier(database.schema)}.knowledge_documents ADD CONSTRAINT refuse_all CHECK (false) NOT VALID`);
      const failure = await storage.knowledge.upsert("p", { documentId: "refused", title: "t", markdown: "secret body text" }).catch((error: unknown) => error);
      expect(isSteamharnessError(failure, "storage_failure")).toBe(true);
      expect((failure as Error).message).toMatch(/^\[steamharness\] \[postgres\] knowledge upsert failed: /);
      expect((failure as Error).message).not.toContain("secret body text");
      expect(((failure as Error).cause as { code?: string }).code).toBe("23514");
    } finally {
      await database.pool.query(`ALTER TABLE ${quoteIdentifier(database.schema)}.knowledge_documents DROP CONSTRAINT refuse_all`);
      await storage.close();
    }
  });

  it("PG-1 AG-2 the storage's recorder and the KV recorder share keys and count an entry once between them", async () => {
    const storage = await createPostgresStorage({ pool: database.pool, schema: database.schema });
    try {
      const ns = { projectId: uniqueId("p") };
      const entry = (entryId: string, total = 5) => ({ entryId, runId: "run-1", provider: "offline", model: "m", at: 1, input: total - 2, output: 2, cacheRead: 0, cacheWrite: 0, total });
      const recorder = storage.tokenUsage!(ns);
      const kvRecorder = createKvTokenUsage(storage.kv, ns);
      expect(await recorder.record(entry("a"))).toBe(true);
      expect((await storage.kv.get(ns, "tokenUsage.entry.a"))?.value).toEqual(entry("a"));
      expect(await kvRecorder.record(entry("a"))).toBe(false);
      expect(await kvRecorder.record(entry("b", 7))).toBe(true);
      expect(await recorder.record(entry("b", 7))).toBe(false);
      expect(await kvRecorder.total()).toEqual({ input: 8, output: 4, cacheRead: 0, cacheWrite: 0, total: 12 });
      expect(await recorder.total()).toEqual(await kvRecorder.total());
      expect((await storage.kv.get(ns, "tokenUsage.total"))?.value).toMatchObject({ total: 12, entries: 2, recent: ["b"] });
    } finally {
      await storage.close();
    }
  });
});
