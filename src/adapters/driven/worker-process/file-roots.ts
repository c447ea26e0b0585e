import { statfs, realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, join, parse, relative, resolve, sep } from "node:path";
import { SteamharnessError } from "../../../domain/errors.js";
import type { FileParamPolicy } from "../../../ports/project-files.js";

export type { FileParamPolicy };

// SEC-5 / TEN-2: which real files an MCP client may have imported. A client chooses file paths,
// so the server imports only regular files whose real path lies in an allowed root, never a
// pseudo file (whose `stat` size says nothing about what a read returns) nor the server's own
// state (its stores, SQLite files, credentials, `.git`), whatever the roots.

/** The placeholder of an `--allow-file-root` value that stands for the caller's tenant. */
export const TENANT_PLACEHOLDER = "{tenant}";


/** A refusal of the policy: a machine-readable reason and a text naming no server path. */
export interface FileRefusal {
  reason: string;
  why: string;
}

/** Mount points of the pseudo file systems, refused whatever a path's file system reports. */
const PSEUDO_PREFIXES = ["/proc", "/sys", "/dev"];

/**
 * Linux `statfs` magic numbers of file systems whose files report sizes that do not match what a
 * read returns (procfs 0 bytes for `/proc/self/pagemap`, sysfs 4096 for everything) or whose
 * reads have side effects: proc, sysfs, devtmpfs, devpts, debugfs, tracefs, securityfs, cgroup
 * (v1, v2), bpf, efivarfs, configfs, pstore, fusectl, binfmt_misc, mqueue, hugetlbfs.
 */
const PSEUDO_FS_TYPES = new Set([
  0x9fa0, 0x62656572, 0x1cd1, 0x64626720, 0x74726163, 0x73636673, 0x27e0eb, 0x63677270, 0xcafe4a11, 0xde5e81e4, 0x62656570, 0x6165676c, 0x65735543,
  0x42494e4d, 0x19800202, 0x958458f6,
]);

/**
 * Whether `path` is `root` or lies below it (both real, absolute paths).
 *
 * @example
 * isInside("/srv/p", "/srv/p/a.txt") // true
 * isInside("/srv/p", "/srv/pq/a.txt") // false
 */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/**
 * The reason a real path is on a pseudo file system (`/proc`, `/sys`, `/dev` or a file system
 * of one of their types mounted elsewhere), or `null` for an ordinary file system.
 *
 * @example
 * await pseudoFileSystem("/proc/self/environ") // "is on the /proc pseudo file system"
 */
export async function pseudoFileSystem(realPath: string): Promise<string | null> {
  const prefix = PSEUDO_PREFIXES.find((root) => isInside(root, realPath));
  if (prefix) return `is on the ${prefix} pseudo file system`;
  if (process.platform !== "linux") return null;
  const info = await statfs(realPath).catch(() => null);
  return info && PSEUDO_FS_TYPES.has(Number(info.type)) ? `is on a pseudo file system (type 0x${Number(info.type).toString(16)})` : null;
}

/**
 * The default roots of a single-user server (`--allow-file-root` not given): the project
 * directory and the server's working directory — except a working directory that is the file
 * system root, the home directory or one of its ancestors, which would open every file of the
 * user (`~/.ssh`, `~/.aws`) to any client; MCP clients often start servers in `/` or in the home
 * directory.
 *
 * @example
 * defaultFileRoots("/srv/p", "/", "/home/me") // ["/srv/p"]
 * defaultFileRoots("/srv/p", "/home/me/work", "/home/me") // ["/srv/p", "/home/me/work"]
 */
export function defaultFileRoots(projectDir: string, cwd: string, home: string): string[] {
  const tooWide = cwd === parse(cwd).root || isInside(cwd, home);
  return tooWide || isInside(projectDir, cwd) ? [projectDir] : [projectDir, cwd];
}

/**
 * The real path of `path`, also when it does not exist yet: its deepest existing ancestor's
 * real path with the rest appended (a store created later, below a linked folder, is still
 * recognised).
 *
 * @example
 * await realOrPlanned("/srv/link/not-yet/agents") // "/srv/real/not-yet/agents"
 */
export async function realOrPlanned(path: string): Promise<string> {
  const absolute = resolve(path);
  const real = await realpath(absolute).catch(() => null);
  if (real) return real;
  const parent = parse(absolute);
  return parent.dir === absolute ? absolute : join(await realOrPlanned(parent.dir), parent.base);
}

/**
 * Resolves the allowed roots: each `--allow-file-root` value (absolute, an existing directory,
 * kept as its real path, so a link to a folder allows the folder it names; a value with
 * `{tenant}` needs the part before the placeholder's segment to exist), or the
 * {@link defaultFileRoots} when none is given. A bad value is `input_validation` naming the flag.
 *
 * @example
 * await resolveFileRoots(["/srv/docs", "/srv/uploads/{tenant}"], "/srv/p") // ["/srv/docs", "/srv/uploads/{tenant}"]
 */
export async function resolveFileRoots(values: readonly string[] | undefined, projectDir: string, cwd = process.cwd(), home = homedir()): Promise<string[]> {
  const real = async (dir: string) => (await realpath(dir).catch(() => resolve(dir)));
  if (!values || values.length === 0) return defaultFileRoots(await real(projectDir), await real(cwd), await real(home));
  const roots: string[] = [];
  for (const value of values) {
    const fail = (why: string) =>
      new SteamharnessError("input_validation", `[steamharness] [file params] --allow-file-root ${JSON.stringify(value)} ${why}`, { field: "--allow-file-root" });
    if (typeof value !== "string" || value.trim() === "" || !isAbsolute(value)) throw fail("must be an absolute directory path");
    const segments = value.split(/[\\/]+/);
    const templated = segments.findIndex((segment) => segment.includes(TENANT_PLACEHOLDER));
    if (segments.some((segment) => segment === "." || segment === "..")) throw fail("must not contain . or .. segments");
    const base = templated < 0 ? value : segments.slice(0, templated).join(sep) || sep;
    const target = await realpath(base).catch(() => null);
    if (!target) throw fail("does not exist");
    if (!(await stat(target)).isDirectory()) throw fail("is not a directory");
    const root = templated < 0 ? target : join(target, ...segments.slice(templated));
    if (!roots.includes(root)) roots.push(root);
  }
  return roots;
}

/**
 * The policy of a host: its roots — none when the host serves several tenants and no
 * `--allow-file-root` is given — and the server's own state, never imported: `state` (every data
 * and store directory it opens, its credential files), the project's `.workflow` folder, the
 * home data dir `~/.steamharness`, and the project's `.env*` files.
 *
 * @example
 * const policy = await fileParamPolicy(["/srv/uploads/{tenant}"], "/srv/p", [dirs.dataDir, dirs.agentStoreDir], { multiTenant: true });
 */
export async function fileParamPolicy(values: readonly string[] | undefined, projectDir: string, state: readonly string[], options: { multiTenant?: boolean } = {}): Promise<FileParamPolicy> {
  const noRoots = options.multiTenant === true && (!values || values.length === 0);
  const roots = noRoots ? [] : await resolveFileRoots(values, projectDir);
  const candidates = [...state, join(projectDir, ".workflow"), join(homedir(), ".steamharness")];
  const denied = [...new Set(await Promise.all(candidates.map(realOrPlanned)))];
  return { roots, denied, projectDirs: [await realOrPlanned(projectDir)], ...(noRoots ? { noRoots } : {}) };
}
