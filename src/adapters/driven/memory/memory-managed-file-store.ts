import type { Clock } from "../../../ports/clock.js";
import type { IdSource } from "../../../ports/id-source.js";
import type { ManagedFile, ManagedFileStore } from "../../../ports/managed-file-store.js";
import { createManagedFileStore } from "../kernel/managed-file-store.js";
import { directCall } from "../kernel/store-call.js";
import { fileMachine } from "../system/file-source.js";
import { createSystemClock } from "../system/clock.js";
import { createRandomIdSource } from "../system/id-source.js";

/** Options of {@link createMemoryManagedFileStore}. */
export interface MemoryManagedFileStoreOptions {
  clock?: Clock;
  idSource?: IdSource;
  /** Largest file accepted; defaults to `DEFAULT_MAX_FILE_BYTES` (64 MiB). */
  maxBytes?: number;
}

/**
 * The in-memory reference managed-file store: the kernel's port over copies of the bytes, keyed
 * by project and id.
 *
 * @example
 * const files = createMemoryManagedFileStore({ maxBytes: 1024 * 1024 });
 * const file = await files.importFile("p", "/tmp/report.pdf");
 */
export function createMemoryManagedFileStore(options: MemoryManagedFileStoreOptions = {}): ManagedFileStore {
  const projects = new Map<string, Map<string, { meta: ManagedFile; bytes: Uint8Array }>>();
  const find = (projectId: string, fileId: string) => projects.get(projectId)?.get(fileId);
  return createManagedFileStore(
    {
      insert(projectId, meta, bytes) {
        let files = projects.get(projectId);
        if (!files) projects.set(projectId, (files = new Map()));
        files.set(meta.fileId, { meta: { ...meta }, bytes: bytes.slice() });
      },
      get: (projectId, fileId) => find(projectId, fileId)?.meta,
      read: (projectId, fileId) => find(projectId, fileId)?.bytes.slice(),
      delete: (projectId, fileId) => projects.get(projectId)?.delete(fileId) ?? false,
    },
    directCall,
    { clock: options.clock ?? createSystemClock(), idSource: options.idSource ?? createRandomIdSource(), machine: fileMachine, maxBytes: options.maxBytes },
  );
}
