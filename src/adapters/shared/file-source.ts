import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { basename, isAbsolute } from "node:path";
import { SteamharnessError } from "../../domain/errors.js";
import { STORE_LIMITS } from "../../domain/limits.js";
import { checkProjectId, checkText } from "../../domain/store-input.js";
import type { ManagedFile, ManagedFileStore } from "../../ports/managed-file-store.js";

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
 * Reads a whole source file, re-checking the size (the file may have grown since `stat`).
 *
 * @example
 * const bytes = await readSourceFile("/tmp/a.txt", 1024);
 */
export async function readSourceFile(sourcePath: string, maxBytes: number): Promise<Uint8Array> {
  const bytes = await readFile(sourcePath);
  checkFileSize(bytes.length, maxBytes);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
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
