/**
 * The drizzle schema of the SQLite store. Migrations in `/drizzle` are generated from it with
 * `npx drizzle-kit generate` (which reads the tables through `drizzle-kit-schema.ts`); the FTS5
 * index and its triggers are a custom migration because drizzle cannot describe virtual tables.
 *
 * Keys that listings order by are stored as BLOBs holding UTF-16BE bytes: SQLite compares BLOBs
 * with memcmp, which on UTF-16BE equals the UTF-16 code-unit order the ports promise (TEXT
 * would compare UTF-8, i.e. code-point order, which differs above U+FFFF).
 */
import { drizzleSqliteCore } from "../shared/drizzle-modules.js";

/** The tables; drizzle is loaded and they are built on first use (PERF-1). */
function define() {
  const { blob, index, integer, primaryKey, sqliteTable, text, uniqueIndex } = drizzleSqliteCore();
  /** KV entries; `conversation_id` is "" for project scope. */
  const kvEntries = sqliteTable(
    "kv_entries",
    {
      projectId: text("project_id").notNull(),
      conversationId: text("conversation_id").notNull(),
      key: blob("key", { mode: "buffer" }).$type<Uint8Array>().notNull(),
      value: text("value").notNull(),
      updatedAt: integer("updated_at").notNull(),
    },
    (table) => [primaryKey({ columns: [table.projectId, table.conversationId, table.key] })],
  );

  /** Knowledge documents; `id` is the rowid the FTS5 index points at. */
  const knowledgeDocuments = sqliteTable(
    "knowledge_documents",
    {
      id: integer("id").primaryKey({ autoIncrement: true }),
      projectId: text("project_id").notNull(),
      docKey: blob("doc_key", { mode: "buffer" }).$type<Uint8Array>().notNull(),
      documentId: text("document_id").notNull(),
      title: text("title").notNull(),
      markdown: text("markdown").notNull(),
      createdAt: integer("created_at").notNull(),
      updatedAt: integer("updated_at").notNull(),
    },
    (table) => [uniqueIndex("knowledge_documents_project_key").on(table.projectId, table.docKey)],
  );

  /** Managed-file metadata; the bytes live in `files/<sha256[0..2]>/<sha256>`, shared by equal contents. */
  const managedFiles = sqliteTable(
    "managed_files",
    {
      projectId: text("project_id").notNull(),
      fileId: text("file_id").notNull(),
      name: text("name").notNull(),
      size: integer("size").notNull(),
      sha256: text("sha256").notNull(),
      createdAt: integer("created_at").notNull(),
    },
    (table) => [primaryKey({ columns: [table.projectId, table.fileId] }), index("managed_files_sha256").on(table.sha256)],
  );

  /** Persistent values per project. */
  const persistentValues = sqliteTable(
    "persistent_values",
    {
      projectId: text("project_id").notNull(),
      name: text("name").notNull(),
      value: text("value").notNull(),
      updatedAt: integer("updated_at").notNull(),
    },
    (table) => [primaryKey({ columns: [table.projectId, table.name] })],
  );

  /** Budget rows of the budget ledger (BUD-1): one per budget and window (`tenant:acme:month:2026-12`). */
  const budgetRows = sqliteTable("budget_rows", {
    key: text("key").primaryKey(),
    spentTokens: integer("spent_tokens").notNull(),
    spentMicros: integer("spent_micros").notNull(),
    reservedTokens: integer("reserved_tokens").notNull(),
    reservedMicros: integer("reserved_micros").notNull(),
    grantedTokens: integer("granted_tokens").notNull(),
    grantedMicros: integer("granted_micros").notNull(),
  });

  /**
   * Reservations and grants of the budget ledger, by id; `keys` is the JSON list of budget rows
   * held. `spent_tokens`/`spent_micros`: what a settle counted (null before, and for
   * reservations settled before migration 0004); the `budget_reservation_finish` trigger of
   * migration 0005 moves the hold to spent when `state` leaves `held`.
   *
   * Migration 0005's view `budget_reserve` and triggers name `budget_rows` and this table. Adding
   * columns or indexes is fine; a migration that rebuilds either table (drizzle-kit generates one
   * for some column changes: create `__new_…`, copy, drop, rename) fails at the rename while they
   * exist ("error in trigger budget_reserve_insert: no such table"), so it has to drop the view and
   * both triggers first and create them again after (by hand: drizzle-kit does not know them).
   */
  const budgetReservations = sqliteTable("budget_reservations", {
    id: text("id").primaryKey(),
    keys: text("keys").notNull(),
    tokens: integer("tokens").notNull(),
    micros: integer("micros").notNull(),
    state: text("state").notNull(),
    updatedAt: integer("updated_at").notNull(),
    spentTokens: integer("spent_tokens"),
    spentMicros: integer("spent_micros"),
  });
  /** API keys (BUD-4): the secret's SHA-256 digest, never the secret. */
  const apiKeys = sqliteTable(
    "api_keys",
    {
      id: text("id").primaryKey(),
      hash: text("hash").notNull(),
      tenantId: text("tenant_id").notNull(),
      createdAt: integer("created_at").notNull(),
      revokedAt: integer("revoked_at"),
    },
    (table) => [uniqueIndex("api_keys_hash").on(table.hash)],
  );

  /** Tenants of API keys and their limits (JSON). */
  const apiTenants = sqliteTable("api_tenants", { id: text("id").primaryKey(), limits: text("limits").notNull() });

  /** Rate windows per tenant and unit (`<tenant> requests`): the window's start and its count. */
  const apiRateWindows = sqliteTable("api_rate_windows", { key: text("key").primaryKey(), window: integer("window").notNull(), count: integer("count").notNull() });

  /** Held concurrency slots of tenants, each until it expires. */
  const apiSlots = sqliteTable("api_slots", { id: text("id").primaryKey(), tenantId: text("tenant_id").notNull(), expiresAt: integer("expires_at").notNull() }, (table) => [index("api_slots_tenant").on(table.tenantId)]);
  return { kvEntries, knowledgeDocuments, managedFiles, persistentValues, budgetRows, budgetReservations, apiKeys, apiTenants, apiRateWindows, apiSlots };
}

/** The store's tables. */
export type StoreTables = ReturnType<typeof define>;

let tables: StoreTables | undefined;

/**
 * The tables, built on first use with the lazily loaded drizzle (PERF-1).
 *
 * @example
 * const { kvEntries } = storeTables();
 */
export function storeTables(): StoreTables {
  return (tables ??= define());
}
