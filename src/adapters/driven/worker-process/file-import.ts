import { constants } from "node:fs";
import { open, readlink } from "node:fs/promises";
import { isSteamharnessError } from "../../../domain/errors.js";
import type { JsonValue } from "../../../domain/json.js";
import type { ManagedFile } from "../../../ports/managed-file-store.js";
import type { Storage } from "../../../ports/storage.js";
import { readBounded } from "../system/file-source.js";
import { FILE_PARAM_MAX_BYTES, refuseFileArgument, type FileParamSource } from "./file-params.js";

// The worker's half of file params (MCP-4 / SEC-5): the host checked each path; between that
// check and this copy a local process may have swapped the file, so the copy opens the checked
// real path without following a link, checks the open descriptor again (path and inode) and
// counts the bytes.

/**
 * Reads one checked file param within `maxBytes`. The open does not follow a final symlink
 * (`O_NOFOLLOW`) nor wait on a FIFO (`O_NONBLOCK`); the descriptor must be a regular file and,
 * on Linux, still resolve to the checked real path (a parent folder swapped for a link fails);
 * the bytes are counted, so the 50 MB cap holds whatever `stat` says. Every refusal is
 * `input_validation` naming the param.
 *
 * @example
 * const bytes = await readFileParam("doc", { path: "/srv/p/a.pdf", name: "a.pdf" });
 */
export async function readFileParam(param: string, source: FileParamSource, maxBytes = FILE_PARAM_MAX_BYTES): Promise<Uint8Array> {
  const refuse = (reason: string, why: string) => refuseFileArgument(param, reason, why);
  const handle = await open(source.path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((error: NodeJS.ErrnoException) => {
    throw refuse("changed", `changed after it was checked and cannot be opened (${error.code ?? "error"})`);
  });
  try {
    const info = await handle.stat({ bigint: true });
    if (!info.isFile()) throw refuse("changed", "is no longer a regular file");
    // TEN-2: another file linked in under the checked path (a hard link to server state) is not the checked one.
    if (source.inode !== undefined && source.inode !== `${info.dev}:${info.ino}`) throw refuse("changed", "was moved or replaced after it was checked");
    if (process.platform === "linux") {
      const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => source.path);
      if (opened !== source.path) throw refuse("changed", "was moved or replaced after it was checked");
    }
    return await readBounded(handle, maxBytes, Number(info.size)).catch((error: unknown) => {
      if (!isSteamharnessError(error, "input_validation")) throw error;
      throw refuse("too_large", `holds more than ${maxBytes} bytes (50 MB limit; counted while copying)`);
    });
  } finally {
    await handle.close();
  }
}

/**
 * Imports the checked file params of a run into the managed-file store, all or nothing: when any
 * file fails (it changed, grew past the cap, the store refused it), the files this call already
 * stored are deleted again and the error is thrown. Each file is recorded under its
 * {@link FileParamSource.name}.
 *
 * @example
 * Object.assign(params, await importFileParams(store, projectId, run.files));
 */
export async function importFileParams(
  store: Storage,
  projectId: string,
  files: Record<string, FileParamSource | FileParamSource[]>,
  maxBytes = Math.min(FILE_PARAM_MAX_BYTES, store.files.maxBytes),
): Promise<Record<string, JsonValue>> {
  const stored: ManagedFile[] = [];
  const one = async (param: string, source: FileParamSource): Promise<ManagedFile> => {
    const bytes = await readFileParam(param, source, maxBytes);
    const file = await store.files.put(projectId, bytes, { name: source.name });
    stored.push(file);
    return file;
  };
  const imported: Record<string, JsonValue> = {};
  try {
    // One file at a time: at most one 50 MB copy is held in memory.
    for (const [name, sources] of Object.entries(files)) {
      if (!Array.isArray(sources)) {
        imported[name] = (await one(name, sources)) as unknown as JsonValue;
        continue;
      }
      const list: ManagedFile[] = [];
      for (const [index, source] of sources.entries()) list.push(await one(`${name}[${index}]`, source));
      imported[name] = list as unknown as JsonValue;
    }
  } catch (error) {
    await Promise.all(stored.map((file) => store.files.delete(projectId, file.fileId).catch(() => false)));
    throw error;
  }
  return imported;
}
