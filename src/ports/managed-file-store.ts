/** Metadata of a managed file. `sha256` is the lowercase hex digest of its bytes. */
export interface ManagedFile {
  fileId: string;
  name: string;
  size: number;
  sha256: string;
  createdAt: number;
}

/** Options of {@link ManagedFileStore.importFile} and {@link ManagedFileStore.put}. */
export interface ManagedFileImportOptions {
  /** File name to record; defaults to the source's base name. */
  name?: string;
}

/**
 * Files a run works with, copied into the store so that later changes to the source do not
 * affect them. Files larger than `maxBytes` are refused with `input_validation` and nothing is
 * stored. Adapter faults surface as `storage_failure`.
 */
export interface ManagedFileStore {
  /** The largest file accepted, in bytes. */
  readonly maxBytes: number;
  /**
   * Copies the regular file at absolute `sourcePath` into the store. Fails with
   * `input_validation` for a relative path, a non-regular file or one over `maxBytes`, and with
   * `not_found` when the path does not exist; nothing is stored on failure.
   */
  importFile(projectId: string, sourcePath: string, options?: ManagedFileImportOptions): Promise<ManagedFile>;
  /** Stores bytes under a new id. */
  put(projectId: string, bytes: Uint8Array, options: Required<ManagedFileImportOptions>): Promise<ManagedFile>;
  /** Metadata, or `null` when absent. */
  get(projectId: string, fileId: string): Promise<ManagedFile | null>;
  /** The bytes, or `null` when absent. */
  read(projectId: string, fileId: string): Promise<Uint8Array | null>;
  /** Removes the file; `true` when it existed. */
  delete(projectId: string, fileId: string): Promise<boolean>;
}
