/**
 * The composition root's local adapters for the driving surfaces (CLI, chat, gateway, viewer,
 * MCP, project runner): they open storage here, never from a driven adapter directly (ARCH-1).
 * Import this module lazily where the surface loaded the adapter lazily.
 */
export { createMemorySessionHostRecord, createMemorySessionHostStore } from "../adapters/driven/memory/memory-session-host-store.js";
export type { MemorySessionHostRecord } from "../adapters/driven/memory/memory-session-host-store.js";
export { createMemorySessionLeaseProvider } from "../adapters/driven/memory/memory-session-lease.js";
export { createMemorySessionBackend } from "../adapters/driven/memory/memory-session-backend.js";
export type { MemorySessionBackendOptions } from "../adapters/driven/memory/memory-session-backend.js";
export { MemoryStorage } from "../adapters/driven/memory/memory-storage.js";
export type { MemoryStorageOptions } from "../adapters/driven/memory/memory-storage.js";
export { checkFileName, checkFileSize, checkImportSource, fileIntake, fileMachine, readBounded, readSourceFile, sha256Hex } from "../adapters/driven/system/file-source.js";
export { createSystemClock } from "../adapters/driven/system/clock.js";
