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
import { columnOf, defineTable } from "./table-definition.js";

const [text, integer, bigint, bytes] = [columnOf("text"), columnOf("integer"), columnOf("bigint"), columnOf("bytes")];
const [projectId, createdAt, updatedAt] = [text("project_id"), bigint("created_at"), bigint("updated_at")];

/** The tables of the project store (SQLite `store.sqlite`; PostgreSQL's store schema). */
export const STORE_TABLES = {
  /** KV entries; `conversation_id` is "" for project scope. */
  kvEntries: defineTable({
    name: "kv_entries",
    columns: { projectId, conversationId: text("conversation_id"), key: bytes("key"), value: text("value"), updatedAt },
    primaryKey: ["projectId", "conversationId", "key"],
  }),
  /**
   * Knowledge documents. SQLite keys them by a rowid its FTS5 index (a custom migration: drizzle
   * has no virtual tables) points at; PostgreSQL keeps a GIN-indexed full-text vector in the row.
   */
  knowledgeDocuments: defineTable({
    name: "knowledge_documents",
    columns: {
      id: integer("id", { autoIncrement: true, only: "sqlite" }),
      projectId, docKey: bytes("doc_key"), documentId: text("document_id"), title: text("title"), markdown: text("markdown"),
      search: columnOf("tsvector")("search", { only: "postgres" }),
      createdAt, updatedAt,
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
    columns: { projectId, fileId: text("file_id"), name: text("name"), size: bigint("size"), sha256: text("sha256"), bytes: bytes("bytes", { only: "postgres" }), createdAt },
    primaryKey: ["projectId", "fileId"],
    indexes: { managed_files_sha256: { columns: ["sha256"], only: "sqlite" } },
  }),
  /** Persistent values per project. */
  persistentValues: defineTable({ name: "persistent_values", columns: { projectId, name: text("name"), value: text("value"), updatedAt }, primaryKey: ["projectId", "name"] }),
  /** Budget rows of the budget ledger (BUD-1): one per budget and window (`tenant:acme:month:2026-12`). */
  budgetRows: defineTable({
    name: "budget_rows",
    columns: {
      key: text("key"),
      spentTokens: bigint("spent_tokens"), spentMicros: bigint("spent_micros"),
      reservedTokens: bigint("reserved_tokens"), reservedMicros: bigint("reserved_micros"),
      grantedTokens: bigint("granted_tokens"), grantedMicros: bigint("granted_micros"),
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
      id: text("id"), keys: text("keys"), tokens: bigint("tokens"), micros: bigint("micros"), state: text("state"), updatedAt,
      spentTokens: bigint("spent_tokens", { nullable: true, only: "sqlite" }), spentMicros: bigint("spent_micros", { nullable: true, only: "sqlite" }),
    },
    primaryKey: ["id"],
  }),
  /** API keys (BUD-4): the secret's SHA-256 digest, never the secret. */
  apiKeys: defineTable({
    name: "api_keys",
    columns: { id: text("id"), hash: text("hash", { unique: "postgres" }), tenantId: text("tenant_id"), createdAt, revokedAt: bigint("revoked_at", { nullable: true }) },
    primaryKey: ["id"],
    indexes: { api_keys_hash: { columns: ["hash"], unique: true, only: "sqlite" } },
  }),
  /** Tenants of API keys and their limits (JSON). */
  apiTenants: defineTable({ name: "api_tenants", columns: { id: text("id"), limits: text("limits") }, primaryKey: ["id"] }),
  /** Rate windows per tenant and unit (`<tenant> requests`): the window's start and its count. */
  apiRateWindows: defineTable({ name: "api_rate_windows", columns: { key: text("key"), window: bigint("window"), count: bigint("count") }, primaryKey: ["key"] }),
  /** Held concurrency slots of tenants, each until it expires. */
  apiSlots: defineTable({ name: "api_slots", columns: { id: text("id"), tenantId: text("tenant_id"), expiresAt: bigint("expires_at") }, primaryKey: ["id"], indexes: { api_slots_tenant: ["tenantId"] } }),
  /** Governed approval requests (GOV-1): `verdict` and `requested_by` are JSON text. */
  approvalRequests: defineTable({
    name: "approval_requests",
    columns: {
      id: text("id"), tenant: text("tenant"), runId: text("run_id"), sessionId: text("session_id", { nullable: true }), toolId: text("tool_id"),
      argumentsHash: text("arguments_hash"), policyVersion: text("policy_version"), requestedBy: text("requested_by", { nullable: true }),
      createdAt, expiresAt: bigint("expires_at"), state: text("state"), verdict: text("verdict"), escalatedAt: bigint("escalated_at", { nullable: true }),
      // GOV-3: when the request next needs a step (escalation, then expiry), so a sweeper finds due requests by index.
      dueAt: bigint("due_at", { default: 0 }),
    },
    primaryKey: ["id"],
    indexes: { approval_requests_due: ["state", "dueAt"] },
  }),
  /** Decisions on approval requests (GOV-1/5): a `once` decision is used at most once (`used_at`). */
  approvalDecisions: defineTable({
    name: "approval_decisions",
    columns: {
      id: text("id"), requestId: text("request_id"), tenant: text("tenant"), toolId: text("tool_id"), argumentsHash: text("arguments_hash"), policyVersion: text("policy_version"),
      sessionId: text("session_id", { nullable: true }), outcome: text("outcome"), scope: text("scope"), approver: text("approver"), reason: text("reason", { nullable: true }),
      decidedAt: bigint("decided_at"), usedAt: bigint("used_at", { nullable: true }), usedBy: text("used_by", { nullable: true }),
    },
    primaryKey: ["id"],
    indexes: { approval_decisions_request: ["requestId"], approval_decisions_binding: ["tenant", "toolId", "argumentsHash", "policyVersion"] },
  }),
  /** The approval audit log (GOV-7): one hash chain per tenant, numbered from 1. */
  approvalAudit: defineTable({
    name: "approval_audit",
    columns: { tenant: text("tenant"), seq: bigint("seq"), at: bigint("at"), kind: text("kind"), requestId: text("request_id", { nullable: true }), data: text("data"), prevHash: text("prev_hash"), hash: text("hash") },
    primaryKey: ["tenant", "seq"],
  }),
};

const accountId = text("account_id", { default: "" });

/** Project configurations (CFG-1; SQLite `configurations.sqlite`; PostgreSQL's store schema). */
export const CONFIGURATION_TABLES = {
  /**
   * One row per (account, project): its revision, declared fields (JSON) and current
   * configuration. `account_id` is "" for a host's own store; the configuration server (CFG-4)
   * keys every project by the account that owns it.
   */
  configurationProjects: defineTable({
    name: "configuration_projects",
    columns: { accountId, projectId, revision: integer("revision"), fields: text("fields"), currentConfigurationId: text("current_configuration_id", { nullable: true }), updatedAt },
    primaryKey: ["accountId", "projectId"],
  }),
  /** One row per configuration ever created; a deleted one stays as a tombstone (`deleted_at`). */
  configurations: defineTable({
    name: "configurations",
    columns: {
      accountId, projectId, configurationId: text("configuration_id"), name: text("name"), values: text("values"),
      revision: integer("revision"), position: integer("position"), createdAt, updatedAt, deletedAt: bigint("deleted_at", { nullable: true }),
    },
    primaryKey: ["accountId", "projectId", "configurationId"],
  }),
  /** The configuration server's accounts (CFG-4): the token is kept only as its SHA-256 hash. */
  configurationAccounts: defineTable({
    name: "configuration_accounts",
    columns: { accountId: text("account_id"), name: text("name", { unique: true }), tokenHash: text("token_hash", { unique: true }), createdAt },
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
  columns: { projectId, runId: text("run_id"), state: text("state"), updatedAt, expiresAt: bigint("expires_at", { nullable: true }) },
  primaryKey: ["projectId", "runId"],
  indexes: { retained_runs_expires_idx: ["projectId", "expiresAt"], retained_runs_state_idx: ["projectId", "state", "updatedAt"] },
});
