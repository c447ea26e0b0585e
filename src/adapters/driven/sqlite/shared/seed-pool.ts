import { randomUUID } from "node:crypto";
import { existsSync, linkSync, mkdirSync, readdirSync, rmdirSync, unlinkSync } from "node:fs";
import { mkdir, open, writeFile } from "node:fs/promises";
import { dirname, join, sep } from "node:path";

/** A folder's seeds of one kind: files written and synced ahead of need. */
interface Pool {
  ready: string[];
  filling: boolean;
}

/** How many seeds of a kind a folder keeps ready: a new chat takes one of each of its two kinds. */
const KEPT = 4;
const pools = new Map<string, Pool>();
const unlinkQuietly = (path: string) => {
  try {
    unlinkSync(path);
  } catch {
    // Gone already.
  }
};
/** Whether the process that wrote a seed (its name starts with the pid) still runs. */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
};

/** The folders whose new files come from a pool, and how many holders asked for each. */
const roots = new Map<string, number>();
/** The pool folder of a root: a name no conversation folder has (`<slug>-<hash>`, `_no-conversation`). */
const poolFolder = (root: string) => join(root, ".seeds");
/** Removes the ready seeds of the pools in `folder` (every pool when none is named), and the folder once empty. */
const drain = (folder?: string) => {
  for (const [key, pool] of pools) {
    if (folder !== undefined && !key.startsWith(`${folder}\u0000`)) continue;
    pools.delete(key);
    for (const seed of pool.ready.splice(0)) [seed, `${seed}-wal`].forEach(unlinkQuietly);
  }
  try {
    if (folder !== undefined) rmdirSync(folder);
  } catch {
    // Not empty (another process's seeds, or a fill under way) or gone.
  }
};
// This process's unclaimed seeds go with it; a killed process's are removed by the next one that pools in the folder.
process.once("exit", () => drain());

/**
 * Makes the new SQLite files under `root` (a session folder: its host records and session logs)
 * come from a seed pool in `<root>/.seeds` (see {@link claimSeed}). Returns the release: the last
 * holder's removes the pool's seeds.
 *
 * @example
 * const release = poolSeedsUnder("/data/agents");
 * await release();
 */
export function poolSeedsUnder(root: string): () => void {
  roots.set(root, (roots.get(root) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = roots.get(root)! - 1;
    if (left > 0) return void roots.set(root, left);
    roots.delete(root);
    drain(poolFolder(root));
  };
}

/** The pool folder `path` is made from, if it lies under a pooled root. */
function poolOf(path: string): string | undefined {
  for (const root of roots.keys()) if (path.startsWith(`${root}${sep}`)) return poolFolder(root);
  return undefined;
}

/**
 * Makes the new file `path` from a ready seed of `kind` (a hard link of the seed and of its
 * `-wal`) when `path` lies under a root of {@link poolSeedsUnder}, and refills that pool in the
 * background; false when there is no pool or no seed was ready (or links are unsupported there):
 * the caller seeds `path` itself. Why (issue 45 item 1): a new chat makes two SQLite files before
 * its first chunk can be logged; writing and syncing each from a migrated image (`make`: the
 * file's bytes and its first WAL) puts a sync on the request's path, a seed made ahead a link. A
 * seed is claimed once (the link fails when `path` exists); a crash leaves at most unclaimed seeds
 * in the pool folder, removed by the next process that pools there.
 *
 * @example
 * const pooled = claimSeed("/data/agents/c1-<hash>/_session-host.db", folder, () => ({ bytes, wal }));
 */
export function claimSeed(path: string, kind: string, make: () => { bytes: Buffer; wal: Buffer }): boolean {
  const folder = poolOf(path);
  if (folder === undefined) return false;
  const key = `${folder}\u0000${kind}`;
  let pool = pools.get(key);
  if (!pool) {
    pool = { ready: [], filling: false };
    pools.set(key, pool);
    const dead = existsSync(folder) ? readdirSync(folder).filter((name) => !alive(Number(name.split(".")[0]))) : [];
    for (const name of dead) unlinkQuietly(join(folder, name));
    // The first new file of a kind is seeded on the spot: a process that makes one (a CLI run) never fills a pool.
    return false;
  }
  const seed = pool.ready.shift();
  void fill(folder, key, pool, kind, make);
  if (seed === undefined) return false;
  try {
    mkdirSync(dirname(path), { recursive: true });
    linkSync(seed, path);
  } catch {
    // `path` exists (another process made it), the pool folder went away, or links are unsupported.
    unlinkQuietly(`${seed}-wal`);
    return false;
  } finally {
    unlinkQuietly(seed);
  }
  try {
    linkSync(`${seed}-wal`, `${path}-wal`);
  } catch {
    // A process that opened the new file first made its WAL: the file is whole without this one.
  } finally {
    unlinkQuietly(`${seed}-wal`);
  }
  return true;
}

/** Writes seeds (the file synced, its WAL not: see firstWal) until the pool holds {@link KEPT}; a failure drops the pool. */
async function fill(folder: string, key: string, pool: Pool, kind: string, make: () => { bytes: Buffer; wal: Buffer }): Promise<void> {
  if (pool.filling) return;
  pool.filling = true;
  try {
    await mkdir(folder, { recursive: true });
    while (pool.ready.length < KEPT && pools.get(key) === pool) {
      // Written side by side: the syncs wait on the disk, not on each other.
      await Promise.all(Array.from({ length: KEPT - pool.ready.length }, async () => {
        const seed = join(folder, `${process.pid}.${randomUUID()}.seed`);
        const { bytes, wal } = make();
        const file = await open(seed, "wx");
        try {
          await file.writeFile(bytes);
          await file.sync();
        } finally {
          await file.close();
        }
        await writeFile(`${seed}-wal`, wal, { flag: "wx" });
        if (pools.get(key) === pool) pool.ready.push(seed);
        else [seed, `${seed}-wal`].forEach(unlinkQuietly);
      }));
    }
  } catch {
    // The folder went away (or is not writable): the next claim starts a new pool.
    if (pools.get(key) === pool) pools.delete(key);
  } finally {
    pool.filling = false;
    // Released while filling: the folder goes once empty.
    if (pools.get(key) !== pool) drain(folder);
  }
}
