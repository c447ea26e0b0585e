import { randomBytes } from "node:crypto";
import { constants, existsSync, type Stats } from "node:fs";
import { lstat, mkdir, open, readlink, realpath, rename, stat, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { SteamharnessError } from "../../../domain/errors.js";
import { inside, type PathGuard } from "./path-guard.js";

// Flags that a platform lacks are 0: the open still works, only that protection is missing.
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const O_NOCTTY = constants.O_NOCTTY ?? 0;
const READ_FLAGS = constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
const DIR_FLAGS = constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW;

let procFd: boolean | undefined;
/**
 * Whether `/proc/self/fd/<n>` names an open descriptor (Linux). Then a name is reached as
 * `/proc/self/fd/<dir>/<name>`: the kernel starts from the opened directory itself, like openat(2),
 * so a parent swapped for a symlink after the check cannot redirect it.
 */
const viaProc = (): boolean => (procFd ??= process.platform === "linux" && existsSync("/proc/self/fd"));

/** A typed refusal of a path (SEC-1, SEC-2); `reason` says which rule refused it. */
export function refused(message: string, reason: string): SteamharnessError {
  return new SteamharnessError("input_validation", `[steamharness] [coding-tools] ${message}`, { field: "path", data: { reason } });
}

/** Maps a file-system error on `shown` (a display path) to a typed error. */
export function fsFailure(error: unknown, shown: string): SteamharnessError {
  const code = (error as NodeJS.ErrnoException).code;
  if (error instanceof SteamharnessError) return error;
  if (code === "ENOENT") return new SteamharnessError("not_found", `[steamharness] [coding-tools] file not found: ${shown}`, { field: "path" });
  if (code === "ELOOP" || code === "EMLINK") return refused(`${shown} is a symbolic link (or was replaced by one while in use); links are not followed here`, "symlink");
  if (code === "ENOTDIR") return refused(`${shown}: not a directory, or a parent is not one`, "not_directory");
  if (code === "EISDIR") return refused(`${shown} is a directory, not a regular file`, "not_regular");
  return new SteamharnessError("input_validation", `[steamharness] [coding-tools] cannot access ${shown}: ${code ?? String(error)}`, { field: "path", cause: error });
}

/** Refuses anything but a regular file: links, directories, FIFOs, sockets, devices (SEC-2). */
export function assertRegular(info: Stats, shown: string): void {
  if (info.isFile()) return;
  if (info.isSymbolicLink()) throw refused(`${shown} is a symbolic link whose target is missing or changed; links are not followed here`, "symlink");
  const kind = info.isDirectory() ? "a directory" : info.isFIFO() ? "a FIFO" : info.isSocket() ? "a socket" : "a device";
  throw refused(`${shown} is ${kind}, not a regular file`, "not_regular");
}

/** An open directory verified to lie inside a root; names in it are reached through the descriptor. */
export interface ConfinedDir {
  /** The directory's real path, as verified. */
  readonly real: string;
  /** The path that lists this very directory (`/proc/self/fd/<n>` on Linux, else `real`). */
  readonly self: string;
  /** The path of `name` inside this directory, not through the directory's own path. */
  child(name: string): string;
  close(): Promise<void>;
}

/** The real path of what `handle` has open, refused unless inside a root (checked after opening). */
async function verify(guard: PathGuard, handle: FileHandle, opened: string, shown: string): Promise<string> {
  let real: string;
  if (viaProc()) real = await readlink(`/proc/self/fd/${handle.fd}`);
  else {
    // Without /proc: the path's real location now, and the same inode as the descriptor.
    real = await realpath(opened);
    const [held, now] = await Promise.all([handle.stat(), stat(real)]);
    if (held.ino !== now.ino || held.dev !== now.dev) throw refused(`${shown} changed while it was opened`, "changed");
  }
  if (!(await guard.realRoots()).some((root) => inside(root, real))) {
    throw refused(`path is outside the workdir and allowed directories: ${shown}`, "outside");
  }
  return real;
}

function confinedDir(handle: FileHandle, real: string): ConfinedDir {
  const proc = viaProc();
  return {
    real,
    self: proc ? `/proc/self/fd/${handle.fd}` : real,
    child: (name) => (proc ? `/proc/self/fd/${handle.fd}/${name}` : path.join(real, name)),
    close: () => handle.close(),
  };
}

async function openDirAt(guard: PathGuard, opened: string, shown: string, check: boolean, real: string): Promise<ConfinedDir> {
  const handle = await open(opened, DIR_FLAGS);
  try {
    return confinedDir(handle, check ? await verify(guard, handle, opened, shown) : real);
  } catch (error) {
    await handle.close();
    throw fsFailure(error, shown);
  }
}

/**
 * Opens the directory at `real` (a path the guard resolved) without following a link at its last
 * component, then checks where the descriptor really is: a parent swapped for a symlink between
 * the guard's check and the open is caught here (SEC-1).
 */
export async function openConfinedDir(guard: PathGuard, real: string, shown: string): Promise<ConfinedDir> {
  try {
    return await openDirAt(guard, real, shown, true, real);
  } catch (error) {
    throw fsFailure(error, shown);
  }
}

/** Opens the subdirectory `name` of `dir` (no link followed); on Linux no path is re-resolved. */
export async function openChildDir(guard: PathGuard, dir: ConfinedDir, name: string, shown: string): Promise<ConfinedDir> {
  try {
    return await openDirAt(guard, dir.child(name), shown, !viaProc(), path.join(dir.real, name));
  } catch (error) {
    throw fsFailure(error, shown);
  }
}

/**
 * Like {@link openConfinedDir}, creating missing directories one at a time, each made and opened
 * through its verified parent's descriptor (so no directory is made outside the roots on Linux).
 */
export async function ensureConfinedDir(guard: PathGuard, real: string, shown: string): Promise<ConfinedDir> {
  try {
    return await openConfinedDir(guard, real, shown);
  } catch (error) {
    const parentPath = path.dirname(real);
    if (!(error instanceof SteamharnessError && error.code === "not_found") || parentPath === real) throw error;
    const parent = await ensureConfinedDir(guard, parentPath, shown);
    try {
      await mkdir(parent.child(path.basename(real))).catch((cause: NodeJS.ErrnoException) => {
        if (cause.code !== "EEXIST") throw fsFailure(cause, shown);
      });
      return await openChildDir(guard, parent, path.basename(real), shown);
    } finally {
      await parent.close();
    }
  }
}

/** What is at `name` in `dir`, without following a link; `null` when nothing is there. */
export async function entryAt(dir: ConfinedDir, name: string, shown: string): Promise<Stats | null> {
  return lstat(dir.child(name)).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw fsFailure(error, shown);
  });
}

/**
 * Opens the regular file `name` of `dir` for reading. Links, FIFOs, sockets and devices are refused
 * before any open; the open itself never follows a link and never blocks (`O_NONBLOCK`), and the
 * descriptor is checked again, since the entry may be swapped between the check and the open.
 */
export async function openRegularFile(guard: PathGuard, dir: ConfinedDir, name: string, shown: string): Promise<{ handle: FileHandle; info: Stats }> {
  const before = await entryAt(dir, name, shown);
  if (before === null) throw fsFailure(Object.assign(new Error("ENOENT"), { code: "ENOENT" }), shown);
  assertRegular(before, shown);
  const handle = await open(dir.child(name), READ_FLAGS).catch((error: unknown) => {
    throw fsFailure(error, shown);
  });
  try {
    const info = await handle.stat();
    assertRegular(info, shown);
    if (!viaProc()) await verify(guard, handle, dir.child(name), shown);
    return { handle, info };
  } catch (error) {
    await handle.close();
    throw fsFailure(error, shown);
  }
}

/**
 * Opens the regular file at `real` (a path the guard resolved) for reading, by path: refused
 * before opening unless lstat shows a regular file; opened without following a link and without
 * blocking; then the descriptor's real location must be inside a root (a parent swapped for a link
 * after the guard's check is caught here, before a byte is read) and fstat must show a regular file.
 */
export async function openVerifiedFile(guard: PathGuard, real: string, shown: string): Promise<{ handle: FileHandle; info: Stats }> {
  const before = await lstat(real).catch((error: unknown) => {
    throw fsFailure(error, shown);
  });
  assertRegular(before, shown);
  const handle = await open(real, READ_FLAGS).catch((error: unknown) => {
    throw fsFailure(error, shown);
  });
  try {
    const [info] = await Promise.all([handle.stat(), verify(guard, handle, real, shown)]);
    assertRegular(info, shown);
    return { handle, info };
  } catch (error) {
    await handle.close();
    throw fsFailure(error, shown);
  }
}

/**
 * Replaces (or creates) `name` in `dir` atomically: the content goes to a new temp file created
 * exclusively (`O_CREAT|O_EXCL|O_NOFOLLOW`) in the same verified directory, then renamed over the
 * name. A rename replaces a link itself, never its target; readers never see a half-written file.
 */
export async function writeAtomically(guard: PathGuard, dir: ConfinedDir, name: string, content: string, mode: number | undefined, shown: string): Promise<void> {
  const temp = `.steamharness-${randomBytes(8).toString("hex")}.tmp`;
  const handle = await open(dir.child(temp), CREATE_FLAGS, 0o666).catch((error: unknown) => {
    throw fsFailure(error, shown);
  });
  try {
    if (!viaProc()) await verify(guard, handle, dir.child(temp), shown);
    if (mode !== undefined) await handle.chmod(mode);
    await handle.writeFile(content, "utf8");
    await handle.close();
    await rename(dir.child(temp), dir.child(name));
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(dir.child(temp)).catch(() => undefined);
    throw fsFailure(error, shown);
  }
}
