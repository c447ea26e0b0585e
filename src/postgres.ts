/**
 * steamharness/postgres — the PostgreSQL backend of the store ports: `createPostgresStorage`
 * (KV, knowledge with PostgreSQL full-text search, managed files, persistent values, token usage,
 * and `storage.sessions`: agent sessions, their leases across machines and session-host records)
 * and the project configuration store, in one schema of a shared database. It needs the `pg`
 * package (an optional peer dependency); the root entry never loads it. Every export here is
 * public API.
 */
export { createPostgresStorage } from "./adapters/driven/postgres/postgres-storage.js";
export type { PostgresStorageOptions } from "./adapters/driven/postgres/postgres-storage.js";
export { createPostgresProjectConfigurationStore, createPostgresConfigurationAccounts, createPostgresApiKeyStore } from "./adapters/driven/postgres/postgres-sql-driver.js";
export type { PostgresProjectConfigurationStoreOptions, PostgresConfigurationAccountsOptions } from "./adapters/driven/postgres/postgres-sql-driver.js";
export { createPostgresApprovalStore } from "./adapters/driven/postgres/postgres-approval-store.js";
export { DEFAULT_POSTGRES_SCHEMA, POSTGRES_MIGRATIONS_TABLE, findPostgresMigrationsFolder } from "./adapters/driven/postgres/postgres-database.js";
export type { PostgresConnectionOptions } from "./adapters/driven/postgres/postgres-database.js";
export { createPostgresSessionBackend } from "./adapters/driven/postgres/sessions/postgres-session-backend.js";
export type { PostgresSessionBackend, PostgresSessionBackendOptions, PostgresLeasedSessionStore } from "./adapters/driven/postgres/sessions/postgres-session-backend.js";
export { postgresSessionLockKey, leaseTakeoverBoundSeconds } from "./adapters/driven/postgres/sessions/postgres-session-lease.js";
export type { PostgresLeaseKeepAlive } from "./adapters/driven/postgres/sessions/postgres-session-lease.js";
export { createPostgresSessionCatalog } from "./adapters/driven/postgres/sessions/postgres-session-catalog.js";
export type { PostgresSessionCatalogOptions } from "./adapters/driven/postgres/sessions/postgres-session-catalog.js";
