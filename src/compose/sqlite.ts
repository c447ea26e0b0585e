/**
 * The composition root's sqlite adapters for the driving surfaces (CLI, chat, gateway, viewer,
 * MCP, project runner): they open storage here, never from a driven adapter directly (ARCH-1).
 * Import this module lazily where the surface loaded the adapter lazily.
 */
export { CONFIGURATION_DATABASE_FILE, createSqliteProjectConfigurationStore, projectConfigurationDatabasePath } from "../adapters/driven/sqlite/configuration/sqlite-project-configuration-store.js";
export type { SqliteProjectConfigurationStoreOptions } from "../adapters/driven/sqlite/configuration/sqlite-project-configuration-store.js";
export { DEFAULT_AGENT_STORE_DIR, NO_CONVERSATION_SEGMENT, SESSION_FILE_EXTENSION, agentStoreDirFor, conversationFolderSegment, projectAgentStoreDir, sessionFileSegments, sessionPathSegment, sessionPathSlug } from "../adapters/driven/sqlite/sessions/session-file-names.js";
export type { SessionFileKey } from "../adapters/driven/sqlite/sessions/session-file-names.js";
export { createSqliteSessionBackend } from "../adapters/driven/sqlite/sessions/sqlite-session-backend.js";
export type { SqliteSessionBackend, SqliteSessionBackendOptions } from "../adapters/driven/sqlite/sessions/sqlite-session-backend.js";
export { createSqliteSessionCatalog } from "../adapters/driven/sqlite/sessions/sqlite-session-catalog.js";
export type { SqliteSessionCatalogOptions } from "../adapters/driven/sqlite/sessions/sqlite-session-catalog.js";
export { STORE_DATABASE_FILE, STORE_FILES_FOLDER, createSqliteStorage } from "../adapters/driven/sqlite/store/sqlite-storage.js";
export type { SqliteStorage, SqliteStorageOptions } from "../adapters/driven/sqlite/store/sqlite-storage.js";
