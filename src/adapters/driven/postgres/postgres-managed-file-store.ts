import { and, eq } from "drizzle-orm";
import type { IdSource } from "../../../ports/id-source.js";
import type { ManagedFileStore } from "../../../ports/managed-file-store.js";
import { createManagedFileStore } from "../kernel/managed-file-store.js";
import { fileMachine } from "../system/file-source.js";
import type { SqlStore } from "../kernel/sql-driver.js";
import type { PostgresTables } from "./schema.js";

/** Options of {@link createPostgresManagedFileStore} beyond the store. */
export interface PostgresManagedFileStoreOptions {
  idSource: IdSource;
  /** Largest file accepted; defaults to 64 MiB. */
  maxBytes?: number;
}

/**
 * The managed-file port on PostgreSQL: the kernel's port over one `managed_files` row per file
 * holding its metadata and its bytes (`bytea`, stored out of line by TOAST, so metadata reads do
 * not load them). A file is written and removed by one statement: no content outlives its row
 * and no row lacks its content.
 *
 * @example
 * const files = createPostgresManagedFileStore(await openPostgresStore(options), { idSource: createRandomIdSource() });
 */
export function createPostgresManagedFileStore({ driver: { db, tables, clock }, call }: SqlStore<PostgresTables>, options: PostgresManagedFileStoreOptions): ManagedFileStore {
  const files = tables.managedFiles;
  const metaColumns = { fileId: files.fileId, name: files.name, size: files.size, sha256: files.sha256, createdAt: files.createdAt };
  const byId = (projectId: string, fileId: string) => and(eq(files.projectId, projectId), eq(files.fileId, fileId));
  return createManagedFileStore(
    {
      async insert(projectId, meta, bytes) {
        // A copy: the caller may change its array while the query is in flight.
        await db.insert(files).values({ projectId, ...meta, bytes: bytes.slice() });
      },
      get: async (projectId, fileId) => (await db.select(metaColumns).from(files).where(byId(projectId, fileId)))[0],
      async read(projectId, fileId) {
        const [row] = await db.select({ bytes: files.bytes }).from(files).where(byId(projectId, fileId));
        return row && new Uint8Array(row.bytes.buffer, row.bytes.byteOffset, row.bytes.length);
      },
      delete: async (projectId, fileId) => ((await db.delete(files).where(byId(projectId, fileId))).rowCount ?? 0) > 0,
    },
    call,
    { clock, idSource: options.idSource, machine: fileMachine, maxBytes: options.maxBytes },
  );
}
