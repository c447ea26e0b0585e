import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { wrapAdapterError } from "../../../../domain/errors.js";
import type { FileContents } from "../../kernel/managed-file-store.js";

/**
 * The SQLite store's file contents: content-addressed in `<filesDirectory>/<sha256[0..2]>/<sha256>`,
 * staged under `tmp/` before the row's transaction moves them into place (a rename under the
 * write lock, as deleting the last row of a content unlinks it), so processes sharing the
 * directory never lose bytes.
 *
 * @example
 * const files = createManagedFileStore(openStoreFile({ directory }), { idSource, machine: fileMachine, contents: fileFolder(join(directory, "files")) });
 */
export function fileFolder(filesDirectory: string): FileContents {
  const tmpDirectory = join(filesDirectory, "tmp");
  const contentPath = (sha256: string): string => join(filesDirectory, sha256.slice(0, 2), sha256);
  return {
    async stage(bytes) {
      const staged = join(tmpDirectory, `${randomUUID()}.part`);
      try {
        mkdirSync(tmpDirectory, { recursive: true });
        await writeFile(staged, bytes);
        return staged;
      } catch (error) {
        await rm(staged, { force: true });
        throw wrapAdapterError("sqlite", "storing a managed file failed", error);
      }
    },
    place(staged, sha256) {
      const target = contentPath(sha256);
      if (existsSync(target)) return;
      mkdirSync(join(filesDirectory, sha256.slice(0, 2)), { recursive: true });
      renameSync(staged as string, target);
    },
    discard: (staged) => rm(staged as string, { force: true }),
    async read(sha256) {
      try {
        const bytes = await readFile(contentPath(sha256));
        return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
      } catch (error) {
        throw wrapAdapterError("sqlite", `reading managed file content ${sha256} failed`, error);
      }
    },
    drop: (sha256) => rmSync(contentPath(sha256), { force: true }),
  };
}
