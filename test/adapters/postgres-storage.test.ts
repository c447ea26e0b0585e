import { describe, expect, it } from "@jest/globals";
import type { JsonValue } from "../../src/domain/json.js";
import { createPostgresProjectConfigurationStore } from "../../src/adapters/postgres/postgres-project-configuration-store.js";
import { createPostgresStorage } from "../../src/adapters/postgres/postgres-storage.js";
import { sortKey } from "../../src/adapters/sqlite/sqlite-support.js";
import { uniqueId } from "../../src/testing/contract-support.js";
import { runKnowledgeStoreContract } from "../../src/testing/knowledge-store.contract.js";
import { runKvStoreContract } from "../../src/testing/kv-store.contract.js";
import { runManagedFileStoreContract } from "../../src/testing/managed-file-store.contract.js";
import { runPersistentValueStoreContract } from "../../src/testing/persistent-value-store.contract.js";
import { runProjectConfigurationStoreContract } from "../../src/testing/project-configuration-store.contract.js";
import { runTokenUsageContract } from "../../src/testing/token-usage.contract.js";
import { describePostgres, quoteIdentifier } from "../fixtures/postgres.js";

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
