/**
 * The drizzle schema of the PostgreSQL store (stores and project configurations). Migrations in
 * `drizzle/postgres/` are generated from the unqualified tables exported here with
 * `npx drizzle-kit generate --config drizzle.postgres.config.ts`; they name no schema, so they
 * apply to whichever schema `search_path` points at when migrating. At run time the adapters use
 * {@link postgresTables} bound to the configured schema, so every query names its schema and a
 * host's pool needs no `search_path` of ours.
 *
 * Keys that listings order by are stored as `bytea` holding UTF-16BE bytes: `bytea` compares
 * with memcmp, which on UTF-16BE equals the UTF-16 code-unit order the ports promise, whatever
 * the database's collation (text would compare by collation, or by code point under "C").
 */
import { bigint, customType, index, integer, pgSchema, pgTable, primaryKey, text, type PgTableFn } from "drizzle-orm/pg-core";

/** Binary column (drizzle 0.45's pg-core has no built-in `bytea`). */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => "bytea",
});

/** A full-text vector, written as tsvector input text and never read back. */
const tsvector = customType<{ data: string; driverData: string }>({
  dataType: () => "tsvector",
});

const millis = (name: string) => bigint(name, { mode: "number" });

/**
 * The store's tables built with `table` (`pgTable`, or a `pgSchema(...).table`).
 *
 * @example
 * const { kvEntries } = defineTables(pgSchema("tenant_a").table);
 */
function defineTables<S extends string | undefined>(table: PgTableFn<S>) {
  return {
    /** KV entries; `conversation_id` is "" for project scope. */
    kvEntries: table(
      "kv_entries",
      {
        projectId: text("project_id").notNull(),
        conversationId: text("conversation_id").notNull(),
        key: bytea("key").notNull(),
        value: text("value").notNull(),
        updatedAt: millis("updated_at").notNull(),
      },
      (t) => [primaryKey({ columns: [t.projectId, t.conversationId, t.key] })],
    ),

    /** Knowledge documents with their full-text vector (GIN-indexed). */
    knowledgeDocuments: table(
      "knowledge_documents",
      {
        projectId: text("project_id").notNull(),
        docKey: bytea("doc_key").notNull(),
        documentId: text("document_id").notNull(),
        title: text("title").notNull(),
        markdown: text("markdown").notNull(),
        search: tsvector("search").notNull(),
        createdAt: millis("created_at").notNull(),
        updatedAt: millis("updated_at").notNull(),
      },
      (t) => [primaryKey({ columns: [t.projectId, t.docKey] }), index("knowledge_documents_search").using("gin", t.search)],
    ),

    /** Managed files: metadata and bytes in one row (the bytes are TOASTed out of line). */
    managedFiles: table(
      "managed_files",
      {
        projectId: text("project_id").notNull(),
        fileId: text("file_id").notNull(),
        name: text("name").notNull(),
        size: bigint("size", { mode: "number" }).notNull(),
        sha256: text("sha256").notNull(),
        bytes: bytea("bytes").notNull(),
        createdAt: millis("created_at").notNull(),
      },
      (t) => [primaryKey({ columns: [t.projectId, t.fileId] })],
    ),

    /** Persistent values per project. */
    persistentValues: table(
      "persistent_values",
      {
        projectId: text("project_id").notNull(),
        name: text("name").notNull(),
        value: text("value").notNull(),
        updatedAt: millis("updated_at").notNull(),
      },
      (t) => [primaryKey({ columns: [t.projectId, t.name] })],
    ),

    /**
     * One row per (account, project): its revision, declared fields (JSON) and current
     * configuration. `account_id` is "" for a host's own store; the configuration server (CFG-4)
     * keys every project by the account that owns it.
     */
    configurationProjects: table(
      "configuration_projects",
      {
        accountId: text("account_id").notNull().default(""),
        projectId: text("project_id").notNull(),
        revision: integer("revision").notNull(),
        fields: text("fields").notNull(),
        currentConfigurationId: text("current_configuration_id"),
        updatedAt: millis("updated_at").notNull(),
      },
      (t) => [primaryKey({ columns: [t.accountId, t.projectId] })],
    ),

    /** One row per configuration ever created; a deleted one stays as a tombstone (`deleted_at`). */
    configurations: table(
      "configurations",
      {
        accountId: text("account_id").notNull().default(""),
        projectId: text("project_id").notNull(),
        configurationId: text("configuration_id").notNull(),
        name: text("name").notNull(),
        values: text("values").notNull(),
        revision: integer("revision").notNull(),
        position: integer("position").notNull(),
        createdAt: millis("created_at").notNull(),
        updatedAt: millis("updated_at").notNull(),
        deletedAt: millis("deleted_at"),
      },
      (t) => [primaryKey({ columns: [t.accountId, t.projectId, t.configurationId] })],
    ),

    /** The configuration server's accounts (CFG-4): the token is kept only as its SHA-256 hash. */
    configurationAccounts: table("configuration_accounts", {
      accountId: text("account_id").primaryKey(),
      name: text("name").notNull().unique(),
      tokenHash: text("token_hash").notNull().unique(),
      createdAt: millis("created_at").notNull(),
    }),

    /** Budget rows of the budget ledger (BUD-1): one per budget and window (`tenant:acme:month:2026-12`). */
    budgetRows: table("budget_rows", {
      key: text("key").primaryKey(),
      spentTokens: bigint("spent_tokens", { mode: "number" }).notNull(),
      spentMicros: bigint("spent_micros", { mode: "number" }).notNull(),
      reservedTokens: bigint("reserved_tokens", { mode: "number" }).notNull(),
      reservedMicros: bigint("reserved_micros", { mode: "number" }).notNull(),
      grantedTokens: bigint("granted_tokens", { mode: "number" }).notNull(),
      grantedMicros: bigint("granted_micros", { mode: "number" }).notNull(),
    }),

    /** Reservations and grants of the budget ledger, by id; `keys` is the JSON list of budget rows held. */
    budgetReservations: table("budget_reservations", {
      id: text("id").primaryKey(),
      keys: text("keys").notNull(),
      tokens: bigint("tokens", { mode: "number" }).notNull(),
      micros: bigint("micros", { mode: "number" }).notNull(),
      state: text("state").notNull(),
      updatedAt: millis("updated_at").notNull(),
    }),

    /** API keys (BUD-4): the secret's SHA-256 digest, never the secret. */
    apiKeys: table("api_keys", {
      id: text("id").primaryKey(),
      hash: text("hash").notNull().unique(),
      tenantId: text("tenant_id").notNull(),
      createdAt: millis("created_at").notNull(),
      revokedAt: millis("revoked_at"),
    }),

    /** Tenants of API keys and their limits (JSON). */
    apiTenants: table("api_tenants", { id: text("id").primaryKey(), limits: text("limits").notNull() }),

    /** Rate windows per tenant and unit: the window's start and its count. */
    apiRateWindows: table("api_rate_windows", { key: text("key").primaryKey(), window: millis("window").notNull(), count: bigint("count", { mode: "number" }).notNull() }),

    /** Held concurrency slots of tenants, each until it expires. */
    apiSlots: table("api_slots", { id: text("id").primaryKey(), tenantId: text("tenant_id").notNull(), expiresAt: millis("expires_at").notNull() }, (t) => [index("api_slots_tenant").on(t.tenantId)]),
  };
}

/** The store's tables, bound to one schema. */
export type PostgresTables = ReturnType<typeof defineTables<string>>;

/**
 * The tables bound to `schema`, so queries name it (`"schema"."kv_entries"`).
 *
 * @example
 * const tables = postgresTables("steamharness");
 * await db.select().from(tables.kvEntries);
 */
export function postgresTables(schema: string): PostgresTables {
  return defineTables(pgSchema(schema).table);
}

// Unqualified tables, for drizzle-kit only: the generated migrations name no schema.
export const { kvEntries, knowledgeDocuments, managedFiles, persistentValues, configurationProjects, configurations, configurationAccounts, budgetRows, budgetReservations, apiKeys, apiTenants, apiRateWindows, apiSlots } = defineTables(pgTable);
