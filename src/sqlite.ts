/**
 * steamharness/sqlite — the SQLite backend of the store ports (ARCH-11): `createSqliteStorage`
 * (KV, knowledge, managed files, persistent values, token usage), agent sessions and their
 * leases, API keys, and the project configuration store with its accounts. It needs
 * `better-sqlite3` (a dependency); the root entry never loads it. Every export here is public API.
 */
export { createSqliteStorage } from "./adapters/driven/sqlite/store/sqlite-storage.js";
export type { SqliteStorageOptions, SqliteStorage } from "./adapters/driven/sqlite/store/sqlite-storage.js";
export { createSqliteApiKeyStore } from "./adapters/driven/sqlite/store/sqlite-api-keys.js";
export type { SqliteApiKeyStoreOptions } from "./adapters/driven/sqlite/store/sqlite-api-keys.js";
export { createSqliteApprovalStore } from "./adapters/driven/sqlite/store/sqlite-approval-store.js";
export type { SqliteApprovalStoreOptions } from "./adapters/driven/sqlite/store/sqlite-approval-store.js";
export { createSqliteProjectConfigurationStore, projectConfigurationDatabasePath, createSqliteConfigurationAccounts } from "./adapters/driven/sqlite/configuration/sqlite-project-configuration-store.js";
export type { SqliteProjectConfigurationStoreOptions, SqliteConfigurationAccountsOptions } from "./adapters/driven/sqlite/configuration/sqlite-project-configuration-store.js";
// Agent sessions (SES): one database file per conversation, its lease; the backend keeps warm sessions open
export { createSqliteSessionBackend } from "./adapters/driven/sqlite/sessions/sqlite-session-backend.js";
export type { SqliteSessionBackend, SqliteSessionBackendOptions } from "./adapters/driven/sqlite/sessions/sqlite-session-backend.js";
export { createSqliteSessionStore } from "./adapters/driven/sqlite/sessions/sqlite-session-store.js";
export type { SqliteSessionStoreOptions } from "./adapters/driven/sqlite/sessions/sqlite-session-store.js";
export { createSqliteSessionLeaseProvider } from "./adapters/driven/sqlite/sessions/sqlite-session-lease.js";
export type { SqliteSessionLeaseProviderOptions } from "./adapters/driven/sqlite/sessions/sqlite-session-lease.js";
export { resolveSessionDatabasePath, sessionLockPath, conversationSessionsDirectory } from "./adapters/driven/sqlite/sessions/session-database-path.js";
export type { ResolveSessionDatabasePathOptions } from "./adapters/driven/sqlite/sessions/session-database-path.js";
export { DEFAULT_AGENT_STORE_DIR } from "./adapters/driven/sqlite/sessions/session-file-names.js";
