/**
 * The composition root's default adapters: what a node context, a session host or a capability
 * server uses when the host gives none. Application code reaches adapters only through
 * `src/compose/` (the architecture test enforces it); each file here is small so that importing
 * one default never loads another's backend.
 */
import { MemoryStorage } from "../adapters/memory/memory-storage.js";
import type { Storage } from "../ports/storage.js";

export { createMemoryToolPermissions } from "../adapters/memory/memory-tool-permissions.js";
export { createMemoryUserInput } from "../adapters/memory/memory-user-input.js";
export { createKvTokenUsage } from "../adapters/store-kernel/kv-token-usage.js";
export { createSystemClock } from "../adapters/system/clock.js";
export { createRandomIdSource } from "../adapters/system/id-source.js";

/**
 * The storage used when a host gives none: every port in memory, sessions included.
 *
 * @example
 * const storage = options.storage ?? createDefaultStorage();
 */
export function createDefaultStorage(): Storage {
  return new MemoryStorage();
}
