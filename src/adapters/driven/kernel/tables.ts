/**
 * The store's tables, defined once for SQLite and PostgreSQL (ARCH-8): each dialect builds its
 * drizzle tables from these (`sqlite/shared/sqlite-table.ts`, `postgres/postgres-table.ts`) and
 * drizzle-kit generates each dialect's migrations from what they build.
 *
 * Keys that listings order by are `bytes` holding UTF-16BE: both dialects compare them with
 * memcmp, which on UTF-16BE equals the UTF-16 code-unit order the ports promise (text would
 * compare UTF-8 code points in SQLite, or by collation in PostgreSQL).
 *
 * Migration 0005 of the SQLite store (its `budget_reserve` view and triggers) names
 * `budget_rows` and `budget_reservations`: a migration that rebuilds either table (drizzle-kit
 * generates one for some column changes) has to drop the view and triggers first and create them
 * again after, by hand.
 */
import { defineTable } from "./table-definition.js";

const text = { kind: "text" } as const;
const bigint = { kind: "bigint" } as const;

/** The tables of the project store (SQLite `store.sqlite`; PostgreSQL's store schema). */
export const STORE_TABLES = {
  /** KV entries; `conversation_id` is "" for project scope. */
  kvEntries: defineTable({
    name: "kv_entries",
    columns: { projectId: { name: "project_id", ...text }, conversationId: { name: "conversation_id", ...text }, key: { name: "key", kind: "bytes" }, value: { name: "value", ...text }, updatedAt: { name: "updated_at", ...bigint } },
    primaryKey: ["projectId", "conversationId", "key"],
  }),
  /**
   * Knowledge documents. SQLite keys them by a rowid its FTS5 index (a custom migration: drizzle
   * has no virtual tables) points at; PostgreSQL keeps a GIN-indexed full-text vector in the row.
   */
  knowledgeDocuments: defineTable({
    name: "knowledge_documents",
    columns: {
      id: { name: "id", kind: "integer", autoIncrement: true, only: "sqlite" },
      projectId: { name: "project_id", ...text },
      docKey: { name: "doc_key", kind: "bytes" },
      documentId: { name: "document_id", ...text },
      title: { name: "title", ...text },
      markdown: { name: "markdown", ...text },
      search: { name: "search", kind: "tsvector", only: "postgres" },
      createdAt: { name: "created_at", ...bigint },
      updatedAt: { name: "updated_at", ...bigint },
    },
    primaryKey: { sqlite: ["id"], postgres: ["projectId", "docKey"] },
    indexes: { knowledge_documents_project_key: { columns: ["projectId", "docKey"], unique: true, only: "sqlite" }, knowledge_documents_search: { columns: ["search"], using: "gin", only: "postgres" } },
  }),
  /**
   * Managed-file metadata. SQLite keeps the bytes in `files/<sha256[0..2]>/<sha256>`, shared by
   * equal contents; PostgreSQL keeps them in the row (TOASTed out of line).
   */
  managedFiles: defineTable({
    name: "managed_files",
    columns: { projectId: { name: "project_id", ...text }, fileId: { name: "file_id", ...text }, name: { name: "name", ...text }, size: { name: "size", ...bigint }, sha256: { name: "sha256", ...text }, bytes: { name: "bytes", kind: "bytes", only: "postgres" }, createdAt: { name: "created_at", ...bigint } },
    primaryKey: ["projectId", "fileId"],
    indexes: { managed_files_sha256: { columns: ["sha256"], only: "sqlite" } },
  }),
  /** Persistent values per project. */
  persistentValues: defineTable({
    name: "persistent_values",
    columns: { projectId: { name: "project_id", ...text }, name: { name: "name", ...text }, value: { name: "value", ...text }, updatedAt: { name: "updated_at", ...bigint } },
    primaryKey: ["projectId", "name"],
  }),
  /** Budget rows of the budget ledger (BUD-1): one per budget and window (`tenant:acme:month:2026-12`). */
  budgetRows: defineTable({
    name: "budget_rows",
    columns: {
      key: { name: "key", ...text },
      spentTokens: { name: "spent_tokens", ...bigint },
      spentMicros: { name: "spent_micros", ...bigint },
      reservedTokens: { name: "reserved_tokens", ...bigint },
      reservedMicros: { name: "reserved_micros", ...bigint },
      grantedTokens: { name: "granted_tokens", ...bigint },
      grantedMicros: { name: "granted_micros", ...bigint },
    },
    primaryKey: ["key"],
  }),
  /**
   * Reservations and grants of the budget ledger, by id; `keys` is the JSON list of budget rows
   * held. SQLite's `spent_*`: what a settle counted (null before, and for reservations settled
   * before its migration 0004), read by the trigger that moves the hold to spent.
   */
  budgetReservations: defineTable({
    name: "budget_reservations",
    columns: {
      id: { name: "id", ...text },
      keys: { name: "keys", ...text },
      tokens: { name: "tokens", ...bigint },
      micros: { name: "micros", ...bigint },
      state: { name: "state", ...text },
      updatedAt: { name: "updated_at", ...bigint },
      spentTokens: { name: "spent_tokens", ...bigint, nullable: true, only: "sqlite" },
      spentMicros: { name: "spent_micros", ...bigint, nullable: true, only: "sqlite" },
    },
    primaryKey: ["id"],
  }),
  /** API keys (BUD-4): the secret's SHA-256 digest, never the secret. */
  apiKeys: defineTable({
    name: "api_keys",
    columns: { id: { name: "id", ...text }, hash: { name: "hash", ...text, unique: "postgres" }, tenantId: { name: "tenant_id", ...text }, createdAt: { name: "created_at", ...bigint }, revokedAt: { name: "revoked_at", ...bigint, nullable: true } },
    primaryKey: ["id"],
    indexes: { api_keys_hash: { columns: ["hash"], unique: true, only: "sqlite" } },
  }),
  /** Tenants of API keys and their limits (JSON). */
  apiTenants: defineTable({ name: "api_tenants", columns: { id: { name: "id", ...text }, limits: { name: "limits", ...text } }, primaryKey: ["id"] }),
  /** Rate windows per tenant and unit (`<tenant> requests`): the window's start and its count. */
  apiRateWindows: defineTable({ name: "api_rate_windows", columns: { key: { name: "key", ...text }, window: { name: "window", ...bigint }, count: { name: "count", ...bigint } }, primaryKey: ["key"] }),
  /** Held concurrency slots of tenants, each until it expires. */
  apiSlots: defineTable({
    name: "api_slots",
    columns: { id: { name: "id", ...text }, tenantId: { name: "tenant_id", ...text }, expiresAt: { name: "expires_at", ...bigint } },
    primaryKey: ["id"],
    indexes: { api_slots_tenant: ["tenantId"] },
  }),
};

/** Project configurations (CFG-1; SQLite `configurations.sqlite`; PostgreSQL's store schema). */
export const CONFIGURATION_TABLES = {
  /**
   * One row per (account, project): its revision, declared fields (JSON) and current
   * configuration. `account_id` is "" for a host's own store; the configuration server (CFG-4)
   * keys every project by the account that owns it.
   */
  configurationProjects: defineTable({
    name: "configuration_projects",
    columns: {
      accountId: { name: "account_id", ...text, default: "" },
      projectId: { name: "project_id", ...text },
      revision: { name: "revision", kind: "integer" },
      fields: { name: "fields", ...text },
      currentConfigurationId: { name: "current_configuration_id", ...text, nullable: true },
      updatedAt: { name: "updated_at", ...bigint },
    },
    primaryKey: ["accountId", "projectId"],
  }),
  /** One row per configuration ever created; a deleted one stays as a tombstone (`deleted_at`). */
  configurations: defineTable({
    name: "configurations",
    columns: {
      accountId: { name: "account_id", ...text, default: "" },
      projectId: { name: "project_id", ...text },
      configurationId: { name: "configuration_id", ...text },
      name: { name: "name", ...text },
      values: { name: "values", ...text },
      revision: { name: "revision", kind: "integer" },
      position: { name: "position", kind: "integer" },
      createdAt: { name: "created_at", ...bigint },
      updatedAt: { name: "updated_at", ...bigint },
      deletedAt: { name: "deleted_at", ...bigint, nullable: true },
    },
    primaryKey: ["accountId", "projectId", "configurationId"],
  }),
  /** The configuration server's accounts (CFG-4): the token is kept only as its SHA-256 hash. */
  configurationAccounts: defineTable({
    name: "configuration_accounts",
    columns: { accountId: { name: "account_id", ...text }, name: { name: "name", ...text, unique: true }, tokenHash: { name: "token_hash", ...text, unique: true }, createdAt: { name: "created_at", ...bigint } },
    primaryKey: ["accountId"],
  }),
};

/**
 * The run-retention index (SES-12), SQLite only (`<agentStoreDir>/_runs.sqlite`). `state` is
 * `running`, `paused` or `finished`; `expires_at` is when the run's sessions may go (`null`:
 * never — a paused run waiting for an answer, or a host keeping runs forever).
 */
export const RETAINED_RUNS_TABLE = defineTable({
  name: "retained_runs",
  columns: { projectId: { name: "project_id", ...text }, runId: { name: "run_id", ...text }, state: { name: "state", ...text }, updatedAt: { name: "updated_at", ...bigint }, expiresAt: { name: "expires_at", ...bigint, nullable: true } },
  primaryKey: ["projectId", "runId"],
  indexes: { retained_runs_expires_idx: ["projectId", "expiresAt"], retained_runs_state_idx: ["projectId", "state", "updatedAt"] },
});
