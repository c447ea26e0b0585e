/**
 * steamharness/memory — the in-memory adapters of every port (ARCH-11): the reference adapter a
 * test or a short-lived host uses, and what a host's own adapter is compared with. Nothing here
 * survives the process. Every export here is public API.
 */
export { MemoryStorage } from "./compose/memory-storage.js";
export type { MemoryStorageOptions } from "./compose/memory-storage.js";
export { createMemoryBudgetLedger, createMemoryApiKeyStore, createMemoryApprovalStore, createMemoryProjectConfigurationStore, createMemoryConfigurationAccounts } from "./adapters/driven/sqlite/memory/memory-stores.js";
export { createMemoryToolPermissions } from "./adapters/driven/memory/memory-tool-permissions.js";
export type { MemoryToolPermissions, MemoryToolPermissionsOptions } from "./adapters/driven/memory/memory-tool-permissions.js";
export { createMemoryUserInput } from "./adapters/driven/memory/memory-user-input.js";
export type { MemoryUserInput, MemoryUserInputOptions } from "./adapters/driven/memory/memory-user-input.js";
// Agent sessions (SES) and the session host's records (HOST)
export { createMemorySessionBackend } from "./compose/memory-session-backend.js";
export { createMemorySessionStore } from "./adapters/driven/memory/memory-session-store.js";
export { createMemorySessionLeaseProvider } from "./adapters/driven/memory/memory-session-lease.js";
export { createMemorySessionHostStore, createMemorySessionHostRecord } from "./adapters/driven/sqlite/memory/memory-stores.js";
export type { MemorySessionHostRecord } from "./adapters/driven/sqlite/memory/memory-stores.js";
