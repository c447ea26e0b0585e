import { and, eq } from "drizzle-orm";
import { STORE_LIMITS } from "../../domain/limits.js";
import { checkProjectId, checkText } from "../../domain/store-input.js";
import type { IdSource } from "../../ports/id-source.js";
import type { ManagedFile, ManagedFileStore } from "../../ports/managed-file-store.js";
import { fileIntake, sha256Hex } from "../shared/file-source.js";
import { checkMaxBytes } from "../memory/memory-managed-file-store.js";
import { guarded, type PostgresStoreContext } from "./postgres-database.js";

/** Options of {@link createPostgresManagedFileStore} beyond the shared context. */
export interface PostgresManagedFileStoreOptions extends PostgresStoreContext {
  idSource: IdSource;
  /** Largest file accepted; defaults to 64 MiB. */
  maxBytes?: number;
}

/**
 * The managed-file port on PostgreSQL: one `managed_files` row per file holding its metadata and
 * its bytes (`bytea`, stored out of line by TOAST, so metadata reads do not load them). A file is
 * written and removed by one statement: no content outlives its row and no row lacks its
 * content. The intake rules (absolute regular files, `maxBytes`) are the shared ones of the
 * memory and SQLite stores.
 *
 * @example
 * const files = createPostgresManagedFileStore({ ...context, idSource: createRandomIdSource() });
 */
export function createPostgresManagedFileStore(options: PostgresManagedFileStoreOptions): ManagedFileStore {
  const { db, tables, clock, state, idSource } = options;
  const files = tables.managedFiles;
  const maxBytes = checkMaxBytes(options.maxBytes);
  const metaColumns = { fileId: files.fileId, name: files.name, size: files.size, sha256: files.sha256, createdAt: files.createdAt };
  const byId = (projectId: string, fileId: string) => and(eq(files.projectId, projectId), eq(files.fileId, fileId));
  const checkFileId = (fileId: unknown): string => checkText("fileId", fileId, STORE_LIMITS.kvKey);

  const store = async (projectId: string, name: string, bytes: Uint8Array): Promise<ManagedFile> =>
    guarded(state, "storing a managed file", async () => {
      const meta: ManagedFile = { fileId: idSource.next("file_"), name, size: bytes.length, sha256: sha256Hex(bytes), createdAt: clock.now() };
      // A copy: the caller may change its array while the query is in flight.
      await db.insert(files).values({ projectId, ...meta, bytes: Buffer.from(bytes) });
      return meta;
    });

  return {
    maxBytes,

    ...fileIntake(maxBytes, store),

    async get(projectInput, fileInput) {
      const projectId = checkProjectId(projectInput);
      const fileId = checkFileId(fileInput);
      const [row] = await guarded(state, "file get", () => db.select(metaColumns).from(files).where(byId(projectId, fileId)));
      return row ?? null;
    },

    async read(projectInput, fileInput) {
      const projectId = checkProjectId(projectInput);
      const fileId = checkFileId(fileInput);
      const [row] = await guarded(state, `reading managed file ${fileId}`, () => db.select({ bytes: files.bytes }).from(files).where(byId(projectId, fileId)));
      return row ? new Uint8Array(row.bytes.buffer, row.bytes.byteOffset, row.bytes.length) : null;
    },

    async delete(projectInput, fileInput) {
      const projectId = checkProjectId(projectInput);
      const fileId = checkFileId(fileInput);
      const result = await guarded(state, "file delete", () => db.delete(files).where(byId(projectId, fileId)));
      return (result.rowCount ?? 0) > 0;
    },
  };
}
