import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { open, stat, type FileHandle } from "node:fs/promises";
import { basename, isAbsolute } from "node:path";
import { SteamharnessError } from "../../../domain/errors.js";
import { STORE_LIMITS } from "../../../domain/limits.js";
import { checkProjectId, checkText } from "../../../domain/store-input.js";
import type { ManagedFile, ManagedFileStore } from "../../../ports/managed-file-store.js";

/**
 * Checks a source path for `ManagedFileStore.importFile`: absolute, existing (`not_found`
 * otherwise), a regular file, at most `maxBytes`. Resolves its size and the name to record.
 * Shared by the memory and SQLite adapters so both refuse the same inputs.
 *
 * @example
 * const { size, name } = await checkImportSource("/tmp/a.txt", undefined, 1024);
 */
export async function checkImportSource(
  sourcePath: unknown,
  name: unknown,
  maxBytes: number,
): Promise<{ size: number; name: string }> {
  if (typeof sourcePath !== "string" || !isAbsolute(sourcePath)) {
    throw new SteamharnessError("input_validation", "[steamharness] sourcePath must be an absolute path", {
      field: "sourcePath",
    });
  }
  let info;
  try {
    info = await stat(sourcePath);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new SteamharnessError("not_found", `[steamharness] no file at ${sourcePath}`, { field: "sourcePath", cause });
    }
    throw new SteamharnessError("storage_failure", `[steamharness] cannot read ${sourcePath}`, { cause });
  }
  if (!info.isFile()) {
    throw new SteamharnessError("input_validation", "[steamharness] sourcePath is not a regular file", {
      field: "sourcePath",
    });
  }
  checkFileSize(info.size, maxBytes);
  return { size: info.size, name: checkFileName(name ?? basename(sourcePath)) };
}

/**
 * Refuses sizes over `maxBytes` with `input_validation`.
 *
 * @example
 * checkFileSize(bytes.length, store.maxBytes);
 */
export function checkFileSize(size: number, maxBytes: number): void {
  if (size > maxBytes) {
    throw new SteamharnessError("input_validation", `[steamharness] file is larger than ${maxBytes} bytes`, {
      field: "size",
      data: { maxBytes, size },
    });
  }
}

/**
 * A valid file name to record (non-empty, at most `STORE_LIMITS.kvKey` units).
 *
 * @example
 * checkFileName("report.pdf");
 */
export function checkFileName(name: unknown): string {
  return checkText("name", name, STORE_LIMITS.kvKey);
}

/**
 * SEC-5: reads an open file to its end, counting the bytes: past `maxBytes` the read stops and
 * fails with the `input_validation` of {@link checkFileSize}, whatever `stat` said (0 for a
 * `/proc` file, less for a file still growing). `sizeHint` (the file's `stat` size) only sizes
 * the first buffer, so a file read as `stat` describes it is copied once; never more than
 * `maxBytes` + 4 KiB are read or held.
 *
 * @example
 * const bytes = await readBounded(handle, 50 * 1024 * 1024, (await handle.stat()).size);
 */
export async function readBounded(handle: FileHandle, maxBytes: number, sizeHint = 0): Promise<Uint8Array> {
  // Room for one byte past the cap, rounded to whole pages: some pseudo files (pagemap) accept
  // only reads of a multiple of 8 bytes.
  const cap = Math.ceil((maxBytes + 1) / 4096) * 4096;
  let buffer = Buffer.allocUnsafe(Math.min(cap, Math.max(sizeHint + 1, 64 * 1024)));
  let total = 0;
  for (;;) {
    if (total === buffer.length) {
      const grown = Buffer.allocUnsafe(Math.min(cap, buffer.length * 2));
      buffer.copy(grown, 0, 0, total);
      buffer = grown;
    }
    const { bytesRead } = await handle.read(buffer, total, buffer.length - total, null);
    if (bytesRead === 0) break;
    total += bytesRead;
    // Past the cap is enough to know: the rest is never read.
    if (total > maxBytes) checkFileSize(total, maxBytes);
  }
  return new Uint8Array(buffer.buffer, buffer.byteOffset, total);
}

/**
 * Reads a whole source file within `maxBytes` ({@link readBounded}: bytes are counted, so a file
 * that grew since `stat`, or reports size 0, stops at the cap). Opened non-blocking, so a file
 * replaced by a FIFO after the check fails instead of waiting for a writer.
 *
 * @example
 * const bytes = await readSourceFile("/tmp/a.txt", 1024);
 */
export async function readSourceFile(sourcePath: string, maxBytes: number): Promise<Uint8Array> {
  const handle = await open(sourcePath, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      throw new SteamharnessError("input_validation", "[steamharness] sourcePath is not a regular file", { field: "sourcePath" });
    }
    return await readBounded(handle, maxBytes, info.size);
  } finally {
    await handle.close();
  }
}

/**
 * Lowercase hex SHA-256 of `bytes`.
 *
 * @example
 * sha256Hex(new TextEncoder().encode("abc")); // "ba7816bf…"
 */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * The two ways into a managed-file store, shared by every adapter: `importFile` (an absolute path
 * of a regular file, checked and read within `maxBytes`) and `put` (bytes), both validated before
 * `store` writes anything.
 *
 * @example
 * return { maxBytes, ...fileIntake(maxBytes, store), get, read, delete: remove };
 */
export function fileIntake(
  maxBytes: number,
  store: (projectId: string, name: string, bytes: Uint8Array) => ManagedFile | Promise<ManagedFile>,
): Pick<ManagedFileStore, "importFile" | "put"> {
  return {
    async importFile(projectInput, sourcePath, importOptions = {}) {
      const projectId = checkProjectId(projectInput);
      const { name } = await checkImportSource(sourcePath, importOptions.name, maxBytes);
      return store(projectId, name, await readSourceFile(sourcePath, maxBytes));
    },
    async put(projectInput, bytes, putOptions) {
      const projectId = checkProjectId(projectInput);
      if (!(bytes instanceof Uint8Array)) {
        throw new SteamharnessError("input_validation", "[steamharness] bytes must be a Uint8Array", { field: "bytes" });
      }
      const name = checkFileName(putOptions?.name);
      checkFileSize(bytes.length, maxBytes);
      return store(projectId, name, bytes);
    },
  };
}

/**
 * The machine's part of a managed-file store (the kernel's `FileMachine`): this intake and SHA-256.
 *
 * @example
 * createManagedFileStore(rows, call, { clock, idSource, machine: fileMachine });
 */
export const fileMachine = { intake: fileIntake, sha256: sha256Hex };
