import { opendir, realpath, stat } from "node:fs/promises";
import { basename, join, sep } from "node:path";
import { isInside, TENANT_PLACEHOLDER, type FileParamPolicy, type FileRefusal } from "./file-roots.js";

// TEN-2: the server's own state is out of reach of file params, even inside an allowed root: its
// stores (agent sessions, run index, MCP tasks, data dirs), SQLite side files, `.git` and
// credential files — by real path, and by inode, so a hard link made inside a root to one of
// them (the link's path says nothing) is refused too.

/** SQLite's side files: write-ahead log, shared memory, rollback journal. */
const SQLITE_SIDE_FILE = /\.(sqlite3?|db3?)-(wal|shm|journal)$/i;

/** Credential files by name: `.env` and its variants (`.env.local`, `.env.production`). */
const ENV_FILE = /^\.env(\..*)?$/;

/**
 * The most directory entries a hard-link search walks; a larger store is not searched through
 * and the hard-linked file is refused (failing closed).
 */
const MAX_WALKED_ENTRIES = 50_000;

const DENIED: FileRefusal = { reason: "denied", why: "is part of the server's own state (its stores, databases, credentials or .git) and is never imported" };

/** The `dev:ino` key of a file, exact on any file system (`bigint` stat). */
async function inodeOf(path: string): Promise<{ key: string; links: bigint } | null> {
  const info = await stat(path, { bigint: true }).catch(() => null);
  return info ? { key: `${info.dev}:${info.ino}`, links: info.nlink } : null;
}

/**
 * Whether a regular file below `dirs` (or one of `files`) has the inode `key`: a walk that
 * stops at the first match, `null` once it passed {@link MAX_WALKED_ENTRIES} entries.
 */
async function linkedInto(key: string, dirs: readonly string[], files: readonly string[]): Promise<boolean | null> {
  for (const file of files) if ((await inodeOf(file))?.key === key) return true;
  let walked = 0;
  // A denied dir inside another (the stores under the data dir) is walked once, with its parent.
  const pending = dirs.filter((dir) => !dirs.some((other) => other !== dir && isInside(other, dir)));
  while (pending.length > 0) {
    const dir = await opendir(pending.pop()!).catch(() => null);
    if (!dir) continue;
    for await (const entry of dir) {
      if (++walked > MAX_WALKED_ENTRIES) return null;
      const path = join(entry.parentPath ?? dir.path, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isFile() && (await inodeOf(path))?.key === key) return true;
    }
  }
  return false;
}

/** The project's credential files: its `.env*` files and the files directly in its `.git` (`config` may hold tokens). */
async function credentialFiles(dirs: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  const list = async (dir: string, keep: (name: string) => boolean) => {
    const listing = await opendir(dir).catch(() => null);
    if (listing) for await (const entry of listing) if (entry.isFile() && keep(entry.name)) found.push(join(dir, entry.name));
  };
  for (const dir of dirs) {
    await list(dir, (name) => ENV_FILE.test(name));
    await list(join(dir, ".git"), () => true);
  }
  return found;
}

/**
 * TEN-2: the refusal of a real path that is part of the server's own state, or `null`. Refused:
 * anything at or below a denied path of `policy` (data and store dirs, the project's `.workflow`,
 * credential files), any path through a `.git` directory, `.env*` files, SQLite side files
 * (`-wal`, `-shm`, `-journal`); and a file with more than one hard link whose inode is one of
 * those (the project's `.env*` files and the files of its `.git`, every file below the denied dirs).
 *
 * @example
 * await serverStateRefusal(policy, "/srv/p/.workflow/agents/_runs.sqlite-wal") // { reason: "denied", … }
 */
async function serverStateRefusal(policy: FileParamPolicy, realPath: string): Promise<FileRefusal | null> {
  const name = basename(realPath);
  if (realPath.split(sep).includes(".git") || ENV_FILE.test(name) || SQLITE_SIDE_FILE.test(name)) return DENIED;
  if (policy.denied.some((denied) => isInside(denied, realPath))) return DENIED;
  const inode = await inodeOf(realPath);
  // A file with one link has one path, judged above; only a second link can alias server state.
  if (!inode || inode.links <= 1n) return null;
  const linked = await linkedInto(inode.key, policy.denied, await credentialFiles(policy.projectDirs));
  return linked === false ? null : DENIED;
}

/** The roots of one request: placeholders expanded with `tenantFolder` (a templated root is none without one), each as its real path. */
async function rootsFor(policy: FileParamPolicy, tenantFolder: string | undefined): Promise<string[]> {
  const roots: string[] = [];
  for (const root of policy.roots) {
    if (!root.includes(TENANT_PLACEHOLDER)) roots.push(root);
    else if (tenantFolder) {
      const real = await realpath(root.split(TENANT_PLACEHOLDER).join(tenantFolder)).catch(() => null);
      if (real) roots.push(real);
    }
  }
  return roots;
}

/**
 * TEN-2 / SEC-5: the one judgement of the policy on a client-given path (its real path, or the path as
 * given when it does not exist): inside a root of the caller's tenant folder (`tenantFolder`, its `tenantSegment`), and none of the
 * server's own state (see {@link serverStateRefusal}). `null` when it may be imported; else a
 * refusal whose text names no server path (it reaches remote clients).
 *
 * @example
 * const refusal = await fileParamRefusal(policy, "/srv/uploads/key_3aacme/a.pdf", "key_3aacme"); // null
 */
export async function fileParamRefusal(policy: FileParamPolicy, path: string, tenantFolder: string | undefined): Promise<FileRefusal | null> {
  if (policy.noRoots) {
    return { reason: "no_roots", why: "cannot be imported: this server has several tenants and takes file params only from the directories its operator allows (--allow-file-root)" };
  }
  const roots = await rootsFor(policy, tenantFolder);
  if (!roots.some((root) => isInside(root, path))) return { reason: "outside_roots", why: "is outside the allowed file roots (the server's --allow-file-root)" };
  return serverStateRefusal(policy, path);
}
