import { SteamharnessError } from "../../domain/errors.js";
import { STORE_LIMITS } from "../../domain/limits.js";
import { checkProjectId, checkText } from "../../domain/store-input.js";
import type { Clock } from "../../ports/clock.js";
import type { IdSource } from "../../ports/id-source.js";
import type { ManagedFile, ManagedFileStore } from "../../ports/managed-file-store.js";
import { createSystemClock } from "../system/clock.js";
import { createRandomIdSource } from "../system/id-source.js";
import { fileIntake, sha256Hex } from "../shared/file-source.js";

/** Default largest managed file: 64 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;

/** Options of {@link createMemoryManagedFileStore}. */
export interface MemoryManagedFileStoreOptions {
  clock?: Clock;
  idSource?: IdSource;
  /** Largest file accepted; defaults to {@link DEFAULT_MAX_FILE_BYTES}. */
  maxBytes?: number;
}

/**
 * Checks a configured size limit.
 *
 * @example
 * checkMaxBytes(1024); // 1024
 */
export function checkMaxBytes(maxBytes: number | undefined): number {
  const value = maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new SteamharnessError("input_validation", "[steamharness] maxBytes must be a non-negative integer", {
      field: "maxBytes",
    });
  }
  return value;
}

/**
 * The in-memory reference managed-file store: copies of the bytes, keyed by project and id.
 *
 * @example
 * const files = createMemoryManagedFileStore({ maxBytes: 1024 * 1024 });
 * const file = await files.importFile("p", "/tmp/report.pdf");
 */
export function createMemoryManagedFileStore(options: MemoryManagedFileStoreOptions = {}): ManagedFileStore {
  const clock = options.clock ?? createSystemClock();
  const ids = options.idSource ?? createRandomIdSource();
  const maxBytes = checkMaxBytes(options.maxBytes);
  const projects = new Map<string, Map<string, { meta: ManagedFile; bytes: Uint8Array }>>();

  const store = (projectId: string, name: string, bytes: Uint8Array): ManagedFile => {
    const meta: ManagedFile = {
      fileId: ids.next("file_"),
      name,
      size: bytes.length,
      sha256: sha256Hex(bytes),
      createdAt: clock.now(),
    };
    let files = projects.get(projectId);
    if (!files) projects.set(projectId, (files = new Map()));
    files.set(meta.fileId, { meta, bytes: bytes.slice() });
    return { ...meta };
  };

  const find = (projectId: unknown, fileId: unknown) =>
    projects.get(checkProjectId(projectId))?.get(checkText("fileId", fileId, STORE_LIMITS.kvKey));

  return {
    maxBytes,

    ...fileIntake(maxBytes, store),

    async get(projectId, fileId) {
      const found = find(projectId, fileId);
      return found ? { ...found.meta } : null;
    },

    async read(projectId, fileId) {
      return find(projectId, fileId)?.bytes.slice() ?? null;
    },

    async delete(projectInput, fileInput) {
      const projectId = checkProjectId(projectInput);
      const fileId = checkText("fileId", fileInput, STORE_LIMITS.kvKey);
      return projects.get(projectId)?.delete(fileId) ?? false;
    },
  };
}
