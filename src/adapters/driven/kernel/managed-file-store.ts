/**
 * The managed-file port written once (ARCH-3): the size limit, id checks, the new file's metadata
 * and copies handed out, over a family's {@link ManagedFileRows}. Reading a source file and
 * hashing bytes need the machine (`node:fs`, `node:crypto`), so the family passes them in as a
 * {@link FileMachine} (the adapters' shared `file-source.ts`); the kernel stays pure.
 */
import { SteamharnessError } from "../../../domain/errors.js";
import { STORE_LIMITS } from "../../../domain/limits.js";
import { checkProjectId, checkText } from "../../../domain/store-input.js";
import type { Clock } from "../../../ports/clock.js";
import type { IdSource } from "../../../ports/id-source.js";
import type { ManagedFile, ManagedFileStore } from "../../../ports/managed-file-store.js";
import type { Awaitable, StoreCall } from "./store-call.js";

/** Default largest managed file: 64 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;

/**
 * Checks a configured size limit (default {@link DEFAULT_MAX_FILE_BYTES}).
 *
 * @example
 * checkMaxBytes(1024); // 1024
 */
export function checkMaxBytes(maxBytes: number | undefined): number {
  const value = maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new SteamharnessError("input_validation", "[steamharness] maxBytes must be a non-negative integer", { field: "maxBytes" });
  }
  return value;
}

/** Row access of the managed-file port; ids arrive checked. */
export interface ManagedFileRows {
  /** Stores a new file's metadata and bytes as one step (the bytes may be the caller's: copy them). */
  insert(projectId: string, meta: ManagedFile, bytes: Uint8Array): Awaitable<void>;
  /** The metadata, or null/undefined. */
  get(projectId: string, fileId: string): Awaitable<ManagedFile | null | undefined>;
  /** The bytes (the caller's to keep), or null/undefined. */
  read(projectId: string, fileId: string): Awaitable<Uint8Array | null | undefined>;
  /** Removes the file; `true` when it existed. */
  delete(projectId: string, fileId: string): Awaitable<boolean>;
}

/** What the machine does for the store: the intake of sources and bytes, and the SHA-256. */
export interface FileMachine {
  intake(maxBytes: number, store: (projectId: string, name: string, bytes: Uint8Array) => Promise<ManagedFile>): Pick<ManagedFileStore, "importFile" | "put">;
  sha256(bytes: Uint8Array): string;
}

/** Options of {@link createManagedFileStore}. */
export interface ManagedFileStoreOptions {
  clock: Clock;
  idSource: IdSource;
  machine: FileMachine;
  /** Largest file accepted; default {@link DEFAULT_MAX_FILE_BYTES}. */
  maxBytes?: number;
}

/**
 * The managed-file port over `rows`, each step run through `call`.
 *
 * @example
 * const files = createManagedFileStore(rows, postgresCall(state), { clock, idSource, machine: { intake: fileIntake, sha256: sha256Hex } });
 */
export function createManagedFileStore(rows: ManagedFileRows, call: StoreCall, options: ManagedFileStoreOptions): ManagedFileStore {
  const maxBytes = checkMaxBytes(options.maxBytes);
  const checked = (projectId: unknown, fileId: unknown): [string, string] => [checkProjectId(projectId), checkText("fileId", fileId, STORE_LIMITS.kvKey)];
  const store = async (projectId: string, name: string, bytes: Uint8Array): Promise<ManagedFile> => {
    const meta: ManagedFile = { fileId: options.idSource.next("file_"), name, size: bytes.length, sha256: options.machine.sha256(bytes), createdAt: options.clock.now() };
    await call("storing a managed file", () => rows.insert(projectId, meta, bytes));
    return { ...meta };
  };
  return {
    maxBytes,

    ...options.machine.intake(maxBytes, store),

    async get(projectInput, fileInput) {
      const [projectId, fileId] = checked(projectInput, fileInput);
      const meta = await call("file get", () => rows.get(projectId, fileId));
      return meta ? { ...meta } : null;
    },

    async read(projectInput, fileInput) {
      const [projectId, fileId] = checked(projectInput, fileInput);
      return (await call(`reading managed file ${fileId}`, () => rows.read(projectId, fileId))) ?? null;
    },

    async delete(projectInput, fileInput) {
      const [projectId, fileId] = checked(projectInput, fileInput);
      return call("file delete", () => rows.delete(projectId, fileId));
    },
  };
}
