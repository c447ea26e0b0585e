import { lstat, realpath, stat } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { SteamharnessError } from "../../domain/errors.js";
import type { JsonValue } from "../../domain/json.js";
import type { WorkflowParam } from "../../domain/workflow/workflow-definition.js";

/** The largest file an MCP file param may name (MCP-4): 50 MB. */
export const FILE_PARAM_MAX_BYTES = 50 * 1024 * 1024;

const URL_LIKE = /^[A-Za-z][A-Za-z0-9+.-]*:/;

function refuse(param: string, value: string, why: string): SteamharnessError {
  const shown = value.length > 120 ? `${value.slice(0, 120)}…` : value;
  return new SteamharnessError("input_validation", `arguments.${param}: ${JSON.stringify(shown)} ${why}`, { field: param });
}

/**
 * MCP-4: checks one file argument and resolves the real path to import. Accepted: an absolute
 * path naming a regular file of at most 50 MB. A symlink is followed (realpath) and accepted
 * only when its final target is such a file; the import copies the target's bytes. Refused,
 * with `input_validation`: relative paths, URLs, `data:` and Base64 strings, missing paths,
 * directories, FIFOs, sockets, devices and larger files.
 *
 * @example
 * await checkFileArgument("document", "/home/me/spec.pdf") // "/home/me/spec.pdf"
 */
export async function checkFileArgument(param: string, value: string, maxBytes = FILE_PARAM_MAX_BYTES): Promise<string> {
  if (value.startsWith("data:")) throw refuse(param, value, "is a data: URL; pass an absolute file path instead (no inline or Base64 content)");
  if (URL_LIKE.test(value) && !/^[A-Za-z]:[\\/]/.test(value)) throw refuse(param, value, "is a URL; pass an absolute local file path");
  if (!isAbsolute(value)) throw refuse(param, value, "is not an absolute path (relative paths and Base64 content are not accepted)");
  const link = await lstat(value).catch(() => null);
  if (!link) throw refuse(param, value, "does not exist");
  let target = value;
  if (link.isSymbolicLink()) {
    target = await realpath(value).catch(() => "");
    if (!target) throw refuse(param, value, "is a symbolic link whose target does not exist");
  }
  const info = await stat(target);
  if (info.isDirectory()) throw refuse(param, value, "is a directory, not a regular file");
  if (info.isFIFO()) throw refuse(param, value, "is a FIFO (named pipe), not a regular file");
  if (info.isCharacterDevice() || info.isBlockDevice()) throw refuse(param, value, "is a device, not a regular file");
  if (info.isSocket()) throw refuse(param, value, "is a socket, not a regular file");
  if (!info.isFile()) throw refuse(param, value, "is not a regular file");
  if (info.size > maxBytes) throw refuse(param, value, `is ${info.size} bytes, over the ${maxBytes}-byte (50 MB) limit`);
  return target;
}

/**
 * Checks every file param of a call (an absent one that has a default: its default path) before
 * anything is imported, so a refused path leaves the managed-file store untouched. Resolves the params without the file values and, apart, the
 * real paths per file param for the worker to import.
 *
 * @example
 * const { params, files } = await checkFileParams(structure.params, args);
 */
export async function checkFileParams(
  params: readonly WorkflowParam[],
  args: Record<string, JsonValue>,
  maxBytes = FILE_PARAM_MAX_BYTES,
): Promise<{ params: Record<string, JsonValue>; files: Record<string, string | string[]> }> {
  const rest: Record<string, JsonValue> = { ...args };
  const files: Record<string, string | string[]> = {};
  for (const param of params) {
    // A file param's default is a path too: it is checked and imported like an argument.
    const value = param.type === "file" ? (args[param.name] ?? param.default) : undefined;
    if (value === undefined) continue;
    delete rest[param.name];
    if (Array.isArray(value)) {
      files[param.name] = await Promise.all(value.map((item, index) => checkFileArgument(`${param.name}[${index}]`, String(item), maxBytes)));
    } else {
      files[param.name] = await checkFileArgument(param.name, String(value), maxBytes);
    }
  }
  return { params: rest, files };
}
