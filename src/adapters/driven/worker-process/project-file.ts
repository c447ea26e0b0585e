import { constants } from "node:fs";
import { open, realpath } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";
import { SteamharnessError } from "../../../domain/errors.js";
import { projectFileProblem } from "../../../domain/workflow/publication-text.js";

/** The largest project file a resource or a prompt image may be (Base64 makes it a third larger on the wire). */
export const PROJECT_FILE_MAX_BYTES = 10 * 1024 * 1024;

/** A project file resolved for reading or watching: the real path, inside the real project folder. */
export interface ResolvedProjectFile {
  path: string;
}

function refuse(file: string, why: string, reason: string): SteamharnessError {
  return new SteamharnessError("input_validation", `[steamharness] [mcp] project file ${JSON.stringify(file)} ${why}`, { field: "file", data: { reason } });
}

/**
 * Resolves a project-relative file named by a declaration: the path rules of
 * {@link projectFileProblem} again (a catalog read from the cache was checked by another
 * version), then the real path, which must lie inside the real project folder (a symlink that
 * points out is refused). `not_found` when it does not exist.
 *
 * @example
 * const { path } = await resolveProjectFile("/abs/project", "docs/readme.md");
 */
export async function resolveProjectFile(projectDir: string, file: string): Promise<ResolvedProjectFile> {
  const problem = projectFileProblem(file);
  if (problem) throw refuse(file, problem, "outside_project");
  const [root, target] = await Promise.all([realpath(projectDir), realpath(join(projectDir, file)).catch(() => null)]);
  if (target === null) throw new SteamharnessError("not_found", `[steamharness] [mcp] project file ${JSON.stringify(file)} does not exist`, { field: "file" });
  // The file roots' test (file-roots.ts `isInside`), on the real paths.
  const rel = relative(root, target);
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) throw refuse(file, "resolves outside the project folder (a symbolic link pointing out); only files inside the project are published", "outside_project");
  return { path: target };
}

/**
 * Reads a project file for a resource or a prompt image: resolved as
 * {@link resolveProjectFile}, opened without following a link swapped in since, and refused
 * unless it is a regular file of at most `maxBytes`. Errors are `SteamharnessError`s
 * (`input_validation`, `not_found`), never a crash.
 *
 * @example
 * const bytes = await readProjectFile("/abs/project", "assets/logo.png");
 */
export async function readProjectFile(projectDir: string, file: string, maxBytes = PROJECT_FILE_MAX_BYTES): Promise<Buffer> {
  const { path } = await resolveProjectFile(projectDir, file);
  // O_NONBLOCK: opening a FIFO must not hang the server; fstat then refuses it.
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((error: NodeJS.ErrnoException) => {
    throw refuse(file, `cannot be opened (${error.code ?? "error"})`, "unreadable");
  });
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw refuse(file, "is not a regular file", "not_regular");
    if (info.size > maxBytes) throw refuse(file, `is ${info.size} bytes, over the ${maxBytes}-byte limit`, "too_large");
    const bytes = await handle.readFile();
    if (bytes.length > maxBytes) throw refuse(file, `grew over the ${maxBytes}-byte limit while being read`, "too_large");
    return bytes;
  } finally {
    await handle.close();
  }
}
