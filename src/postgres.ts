/**
 * steamharness/postgres — the PostgreSQL backend of the store ports: `createPostgresStorage`
 * (KV, knowledge with PostgreSQL full-text search, managed files, persistent values, token usage)
 * and the project configuration store, in one schema of a shared database. It needs the `pg`
 * package (an optional peer dependency); the root entry never loads it. Every export here is
 * public API.
 */
export { createPostgresStorage } from "./adapters/postgres/postgres-storage.js";
export type { PostgresStorageOptions } from "./adapters/postgres/postgres-storage.js";
export { createPostgresProjectConfigurationStore } from "./adapters/postgres/postgres-project-configuration-store.js";
export type { PostgresProjectConfigurationStoreOptions } from "./adapters/postgres/postgres-project-configuration-store.js";
export { DEFAULT_POSTGRES_SCHEMA, POSTGRES_MIGRATIONS_TABLE, findPostgresMigrationsFolder } from "./adapters/postgres/postgres-database.js";
export type { PostgresConnectionOptions } from "./adapters/postgres/postgres-database.js";
