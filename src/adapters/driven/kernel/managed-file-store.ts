/**
 * The managed-file port written once (ARCH-3, ARCH-8) on the SQL row driver: the size limit, id
 * checks, the new file's metadata row and copies handed out. Where the bytes live is the family's
 * one difference: PostgreSQL keeps them in the row (`bytea`, TOASTed out of line); SQLite and
 * memory keep them outside it by SHA-256 ({@link FileContents}: a folder, a map), shared by equal
 * contents. Reading a source file and hashing bytes need the machine (`node:fs`, `node:crypto`),
 * so the family passes them in as a {@link FileMachine} (the adapters' shared `file-source.ts`);
 * the kernel stays pure.
 */
import { SteamharnessError } from "../../../domain/errors.js";
import { STORE_LIMITS } from "../../../domain/limits.js";
import { checkProjectId, checkText } from "../../../domain/store-input.js";
import type { IdSource } from "../../../ports/id-source.js";
import type { ManagedFile, ManagedFileStore } from "../../../ports/managed-file-store.js";
import { then, type Sql, type SqlDriver, type SqlStatement, type SqlStore } from "./sql-driver.js";

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

/**
 * File contents kept outside the rows, by SHA-256, one copy per distinct content. `place` and
 * `drop` run inside the write transaction that inserts or deletes the row (SQLite's holds the
 * write lock), so processes sharing the contents never lose bytes.
 */
export interface FileContents {
  /** Readies `bytes` for `place` (SQLite writes them to a temporary file, outside the transaction). */
  stage(bytes: Uint8Array): Promise<unknown>;
  /** Keeps what `stage` readied as the content `sha256` (unless it is already kept). */
  place(staged: unknown, sha256: string): void;
  /** Removes what `stage` readied once the insert is over (placed or not). */
  discard(staged: unknown): Promise<void>;
  /** The bytes of content `sha256` (the caller's to keep); throws when they cannot be read. */
  read(sha256: string): Promise<Uint8Array>;
  /** Removes content `sha256`: no row names it any more. */
  drop(sha256: string): void;
}

/** What the machine does for the store: the intake of sources and bytes, and the SHA-256. */
export interface FileMachine {
  intake(maxBytes: number, store: (projectId: string, name: string, bytes: Uint8Array) => Promise<ManagedFile>): Pick<ManagedFileStore, "importFile" | "put">;
  sha256(bytes: Uint8Array): string;
}

/** Options of {@link createManagedFileStore}. */
export interface ManagedFileStoreOptions {
  idSource: IdSource;
  machine: FileMachine;
  /** Where the bytes live when not in the row (SQLite, memory). */
  contents?: FileContents;
  /** Largest file accepted; default {@link DEFAULT_MAX_FILE_BYTES}. */
  maxBytes?: number;
}

const view = (bytes: Uint8Array): Uint8Array => new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);

// The statements, each built once per driver (a file's steps are a few map lookups in memory, which a query build per call would multiply).
type Id = { projectId: string; fileId: string };
const metaOf = ({ tables: { managedFiles: f } }: SqlDriver) => ({ fileId: f.fileId, name: f.name, size: f.size, sha256: f.sha256, createdAt: f.createdAt });
const byId = ({ tables: { managedFiles: f }, ops: { and, eq } }: SqlDriver, p: (name: keyof Id) => Sql) => and(eq(f.projectId, p("projectId")), eq(f.fileId, p("fileId")));
const META: SqlStatement<Id> = { mode: "get", build: (on, p) => on.db.select(metaOf(on)).from(on.tables.managedFiles).where(byId(on, p)) };
// PostgreSQL keeps the bytes in the row; SQLite (and memory) by SHA-256 in its FileContents.
const CONTENT: SqlStatement<Id> = { mode: "get", build: (on, p) => on.db.select(on.dialect === "postgres" ? { bytes: on.tables.managedFiles.bytes } : { sha256: on.tables.managedFiles.sha256 }).from(on.tables.managedFiles).where(byId(on, p)) };
const INSERT: SqlStatement<Id & Omit<ManagedFile, "fileId"> & { bytes?: Uint8Array }> = {
  mode: "run",
  build: (on, p) =>
    on.db.insert(on.tables.managedFiles).values({ projectId: p("projectId"), fileId: p("fileId"), name: p("name"), size: p("size"), sha256: p("sha256"), createdAt: p("createdAt"), ...(on.dialect === "postgres" ? { bytes: p("bytes") } : {}) }),
};
const DELETE: SqlStatement<Id> = { mode: "get", build: (on, p) => on.db.delete(on.tables.managedFiles).where(byId(on, p)).returning({ sha256: on.tables.managedFiles.sha256 }) };
const USERS: SqlStatement<{ sha256: string }> = { mode: "get", build: ({ db, tables: { managedFiles: f }, ops }, p) => db.select({ users: ops.count() }).from(f).where(ops.eq(f.sha256, p("sha256"))) };

/**
 * The managed-file port on `managed_files` of a SQL store, each step through its call; the
 * driver's clock stamps `createdAt`. SQLite's store needs `contents`.
 *
 * @example
 * const files = createManagedFileStore(await openPostgresStore(options), { idSource, machine: fileMachine });
 */
export function createManagedFileStore({ driver, call }: Pick<SqlStore, "driver" | "call">, options: ManagedFileStoreOptions): ManagedFileStore {
  const maxBytes = checkMaxBytes(options.maxBytes);
  const { contents } = options;
  const checked = (projectId: unknown, fileId: unknown): Id => ({ projectId: checkProjectId(projectId), fileId: checkText("fileId", fileId, STORE_LIMITS.kvKey) });
  const store = async (projectId: string, name: string, bytes: Uint8Array): Promise<ManagedFile> => {
    const meta: ManagedFile = { fileId: options.idSource.next("file_"), name, size: bytes.length, sha256: options.machine.sha256(bytes), createdAt: driver.clock.now() };
    // In the row, a copy: the caller may change its array while the query is in flight.
    const insert = (on: SqlDriver) => on.execute(INSERT, { projectId, ...meta, ...(contents ? {} : { bytes: bytes.slice() }) });
    const staged = await contents?.stage(bytes);
    try {
      await call("storing a managed file", () =>
        contents
          ? driver.transaction(function* (tx) {
              contents.place(staged, meta.sha256);
              yield insert(tx);
            })
          : insert(driver),
      );
    } finally {
      await contents?.discard(staged);
    }
    return { ...meta };
  };
  return {
    maxBytes,

    ...options.machine.intake(maxBytes, store),

    async get(projectInput, fileInput) {
      const id = checked(projectInput, fileInput);
      return (await call("file get", () => driver.execute(META, id))) ?? null;
    },

    async read(projectInput, fileInput) {
      const id = checked(projectInput, fileInput);
      const what = `reading managed file ${id.fileId}`;
      const row = await call(what, () => driver.execute(CONTENT, id));
      if (!row || !contents) return row ? view(row.bytes) : null;
      return contents.read(row.sha256).catch(async (error: unknown) => {
        // Deleted by another caller between the two reads: absent, not broken.
        if (await call(what, () => driver.execute(META, id))) throw error;
        return null;
      });
    },

    async delete(projectInput, fileInput) {
      const id = checked(projectInput, fileInput);
      if (!contents) return call("file delete", () => then(driver.execute(DELETE, id), (removed) => removed !== undefined));
      return call("file delete", () =>
        driver.transaction(function* (tx) {
          const removed: { sha256: string } | undefined = yield tx.execute(DELETE, id);
          if (!removed) return false;
          if ((yield tx.execute(USERS, { sha256: removed.sha256 })).users === 0) contents.drop(removed.sha256);
          return true;
        }),
      );
    },
  };
}
