import { lstat, realpath, stat } from "node:fs/promises";
import { basename, isAbsolute, resolve } from "node:path";
import { SteamharnessError } from "../../../domain/errors.js";
import type { JsonValue } from "../../../domain/json.js";
import type { WorkflowParam } from "../../../domain/workflow/workflow-definition.js";
import { fileParamRefusal } from "./file-policy.js";
import { pseudoFileSystem } from "./file-roots.js";
import type { FileParamPolicy, FileParamSource } from "../../../ports/project-files.js";

export type { FileParamSource };

/** The largest file an MCP file param may name (MCP-4): 50 MB. */
export const FILE_PARAM_MAX_BYTES = 50 * 1024 * 1024;


/** Options of {@link checkFileArgument}. */
export interface FileArgumentOptions {
  maxBytes?: number;
  /** Roots and the server's own state (SEC-5, TEN-2); without one, any directory is allowed. */
  policy?: FileParamPolicy;
  /** The caller's tenant folder segment (`tenantSegment` of its key), for roots with `{tenant}` (TEN-2); none for stdio and unauthenticated loopback. */
  tenantFolder?: string;
}

const URL_LIKE = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * An `input_validation` error naming the argument and the reason; `data.reason` is a short
 * machine-readable word. Never the path (TEN-2: the text reaches remote clients, which learn no
 * server path from it) nor any of the file's content.
 *
 * @example
 * throw refuseFileArgument("doc", "outside_roots", "is outside the allowed file roots");
 */
export function refuseFileArgument(param: string, reason: string, why: string): SteamharnessError {
  return new SteamharnessError("input_validation", `arguments.${param} ${why}`, { field: param, data: { reason } });
}

/**
 * MCP-4 / SEC-5 / TEN-2: checks one file argument and resolves what to import. Accepted: an
 * absolute path naming a regular file of at most 50 MB (by `stat`; the copy counts the bytes
 * again) whose real path (symlinks followed) the `policy` allows ({@link fileParamRefusal}: in a
 * root of the caller's tenant, none of the server's own state) and lies on no pseudo file
 * system. The name recorded is the base name of the path as given (a link's own name). Refused,
 * with `input_validation`: relative paths, URLs, `data:` and Base64 strings, missing paths,
 * directories, FIFOs, sockets, devices, `/proc`, `/sys` and `/dev` files, files outside the
 * roots, the server's state and larger files. A missing path the policy refuses gets the
 * policy's refusal, so a client cannot probe which server files exist.
 *
 * @example
 * await checkFileArgument("document", "/home/me/spec.pdf") // { path: "/home/me/spec.pdf", name: "spec.pdf", inode: "2049:1234" }
 */
export async function checkFileArgument(param: string, value: string, options: FileArgumentOptions = {}): Promise<FileParamSource> {
  const { maxBytes = FILE_PARAM_MAX_BYTES, policy, tenantFolder } = options;
  const refuse = (reason: string, why: string) => refuseFileArgument(param, reason, why);
  if (value.startsWith("data:")) throw refuse("not_a_path", "is a data: URL; pass an absolute file path instead (no inline or Base64 content)");
  if (URL_LIKE.test(value) && !/^[A-Za-z]:[\\/]/.test(value)) throw refuse("not_a_path", "is a URL; pass an absolute local file path");
  if (!isAbsolute(value)) throw refuse("not_a_path", "is not an absolute path (relative paths and Base64 content are not accepted)");
  const link = await lstat(value).catch(() => null);
  // The real path decides everything below: a link is judged by what it points at.
  const target = link ? await realpath(value).catch(() => "") : "";
  if (!target) {
    const refusal = policy && (await fileParamRefusal(policy, resolve(value), tenantFolder));
    if (refusal) throw refuse(refusal.reason, refusal.why);
    throw refuse("not_found", link?.isSymbolicLink() ? "is a symbolic link whose target does not exist" : "does not exist");
  }
  const pseudo = await pseudoFileSystem(target);
  if (pseudo) throw refuse("pseudo_file", `${pseudo}${target === value ? "" : " (through a symbolic link)"}; only regular files on disk are imported`);
  const refusal = policy && (await fileParamRefusal(policy, target, tenantFolder));
  if (refusal) throw refuse(refusal.reason, `${target === value ? "" : "resolves to a file that "}${refusal.why}`);
  // Gone since the realpath (a race): refused like a missing file, not a Node error naming the path.
  const info = await stat(target, { bigint: true }).catch(() => null);
  if (!info) throw refuse("not_found", "does not exist");
  if (info.isDirectory()) throw refuse("not_regular", "is a directory, not a regular file");
  if (info.isFIFO()) throw refuse("not_regular", "is a FIFO (named pipe), not a regular file");
  if (info.isCharacterDevice() || info.isBlockDevice()) throw refuse("not_regular", "is a device, not a regular file");
  if (info.isSocket()) throw refuse("not_regular", "is a socket, not a regular file");
  if (!info.isFile()) throw refuse("not_regular", "is not a regular file");
  if (info.size > BigInt(maxBytes)) throw refuse("too_large", `is ${info.size} bytes, over the ${maxBytes}-byte (50 MB) limit`);
  return { path: target, name: basename(value), inode: `${info.dev}:${info.ino}` };
}

/**
 * Checks every file param of a call (an absent one that has a default: its default path) before
 * anything is imported, so a refused path leaves the managed-file store untouched. The roots of
 * `policy` bind the client's paths; a default path is the project's own choice and gets every
 * other check. Resolves the params without the file values and, apart, what to import per file
 * param.
 *
 * @example
 * const { params, files } = await checkFileParams(structure.params, args, { policy });
 */
export async function checkFileParams(
  params: readonly WorkflowParam[],
  args: Record<string, JsonValue>,
  options: FileArgumentOptions = {},
): Promise<{ params: Record<string, JsonValue>; files: Record<string, FileParamSource | FileParamSource[]> }> {
  const rest: Record<string, JsonValue> = { ...args };
  const files: Record<string, FileParamSource | FileParamSource[]> = {};
  for (const param of params) {
    if (param.type !== "file") continue;
    const given = args[param.name];
    // A file param's default is a path too: it is checked and imported like an argument.
    const value = given ?? param.default;
    if (value === undefined) continue;
    delete rest[param.name];
    const checks: FileArgumentOptions = given === undefined ? { ...options, policy: undefined } : options;
    if (Array.isArray(value)) {
      files[param.name] = await Promise.all(value.map((item, index) => checkFileArgument(`${param.name}[${index}]`, String(item), checks)));
    } else {
      files[param.name] = await checkFileArgument(param.name, String(value), checks);
    }
  }
  return { params: rest, files };
}
