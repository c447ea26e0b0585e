import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { wrapAdapterError } from "../../../../domain/errors.js";
import type { IdSource } from "../../../../ports/id-source.js";
import type { ManagedFileStore } from "../../../../ports/managed-file-store.js";
import { createManagedFileStore } from "../../kernel/managed-file-store.js";
import { fileMachine } from "../../system/file-source.js";
import { drizzleOrm } from "../shared/drizzle-modules.js";
import type { SqliteStore } from "../shared/sqlite-sql-driver.js";
import type { StoreTables } from "./schema.js";
import { withSqliteRetry } from "./sqlite-support.js";

/** Options of {@link createSqliteManagedFileStore} beyond the store. */
export interface SqliteManagedFileStoreOptions {
  /** The `files/` folder holding contents by hash. */
  filesDirectory: string;
  idSource: IdSource;
  maxBytes?: number;
}

/**
 * The managed-file port on SQLite: the kernel's port over metadata rows in `managed_files` and
 * bytes content-addressed in `files/<sha256[0..2]>/<sha256>`, shared by equal contents. Moving a
 * content file into place and inserting its row happen under the write lock (BEGIN IMMEDIATE), as
 * do deleting the last row of a content and unlinking it, so processes sharing the directory never
 * lose bytes. `insert` and `read` touch files asynchronously, so they retry their own synchronous
 * database steps (the kernel's SQLite call retries synchronous steps only).
 *
 * @example
 * const files = createSqliteManagedFileStore(openStoreFile({ directory }), { filesDirectory, idSource });
 */
export function createSqliteManagedFileStore({ db, driver, call }: SqliteStore<StoreTables>, options: SqliteManagedFileStoreOptions): ManagedFileStore {
  const { and, count, eq } = drizzleOrm();
  const { managedFiles } = driver.tables;
  const metaColumns = { fileId: managedFiles.fileId, name: managedFiles.name, size: managedFiles.size, sha256: managedFiles.sha256, createdAt: managedFiles.createdAt };
  const { filesDirectory } = options;
  const tmpDirectory = join(filesDirectory, "tmp");
  const contentPath = (sha256: string): string => join(filesDirectory, sha256.slice(0, 2), sha256);
  const byId = (projectId: string, fileId: string) => and(eq(managedFiles.projectId, projectId), eq(managedFiles.fileId, fileId));
  const getMeta = (projectId: string, fileId: string) => db.select(metaColumns).from(managedFiles).where(byId(projectId, fileId)).get();

  return createManagedFileStore(
    {
      async insert(projectId, meta, bytes) {
        const staged = join(tmpDirectory, `${randomUUID()}.part`);
        try {
          mkdirSync(tmpDirectory, { recursive: true });
          await writeFile(staged, bytes);
          withSqliteRetry("file store", () =>
            db.transaction(
              (tx) => {
                const target = contentPath(meta.sha256);
                if (existsSync(target)) rmSync(staged, { force: true });
                else {
                  mkdirSync(join(filesDirectory, meta.sha256.slice(0, 2)), { recursive: true });
                  renameSync(staged, target);
                }
                tx.insert(managedFiles).values({ projectId, ...meta }).run();
              },
              { behavior: "immediate" },
            ),
          );
        } catch (error) {
          throw wrapAdapterError("sqlite", "storing a managed file failed", error);
        } finally {
          await rm(staged, { force: true });
        }
      },
      get: getMeta,
      async read(projectId, fileId) {
        const meta = withSqliteRetry("file get", () => getMeta(projectId, fileId));
        if (!meta) return null;
        try {
          const bytes = await readFile(contentPath(meta.sha256));
          return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
        } catch (error) {
          // Deleted by another caller between the two reads: absent, not broken.
          if ((error as NodeJS.ErrnoException).code === "ENOENT" && !withSqliteRetry("file get", () => getMeta(projectId, fileId))) return null;
          throw wrapAdapterError("sqlite", `reading managed file ${fileId} failed`, error);
        }
      },
      delete: (projectId, fileId) =>
        db.transaction(
          (tx) => {
            const removed = tx.delete(managedFiles).where(byId(projectId, fileId)).returning(metaColumns).get();
            if (!removed) return false;
            const [{ users }] = tx.select({ users: count() }).from(managedFiles).where(eq(managedFiles.sha256, removed.sha256)).all();
            if (users === 0) rmSync(contentPath(removed.sha256), { force: true });
            return true;
          },
          { behavior: "immediate" },
        ),
    },
    call,
    { clock: driver.clock, idSource: options.idSource, machine: fileMachine, maxBytes: options.maxBytes },
  );
}
