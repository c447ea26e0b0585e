/**
 * The composition root's postgres-adapters adapters for the driving surfaces (CLI, chat, gateway, viewer,
 * MCP, project runner): they open storage here, never from a driven adapter directly (ARCH-1).
 * Import this module lazily where the surface loaded the adapter lazily.
 */
export { createPostgresStorage } from "../adapters/driven/postgres/postgres-storage.js";
export type { PostgresStorageOptions } from "../adapters/driven/postgres/postgres-storage.js";
export { createPostgresSessionCatalog } from "../adapters/driven/postgres/sessions/postgres-session-catalog.js";
export type { PostgresSessionCatalogOptions } from "../adapters/driven/postgres/sessions/postgres-session-catalog.js";
