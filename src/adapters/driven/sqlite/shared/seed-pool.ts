import { randomUUID } from "node:crypto";
import { existsSync, linkSync, mkdirSync, readdirSync, rmdirSync, rmSync, statSync } from "node:fs";
import { mkdir, open, writeFile } from "node:fs/promises";
import { dirname, join, sep } from "node:path";

/** How many seeds of a kind a pool folder keeps ready (each kind its pool: key `<folder>\0<kind>`); a new chat takes one of each of its two kinds. */
const KEPT = 4;
const pools = new Map<string, { ready: string[]; filling: boolean }>();
/** The folders whose new files come from a pool. */
const roots = new Set<string>();
const remove = (...paths: string[]) => paths.forEach((path) => rmSync(path, { force: true }));
/** Whether the process that wrote a seed (its name starts with the pid) still runs. */
const alive = (pid: number): boolean => {
  try {
    return process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
};
/** Removes the ready seeds of the pools in `folder` (every pool when none is named), and the folder once empty. */
const drain = (folder = "") => {
  for (const [key, pool] of pools) {
    if (!key.startsWith(folder)) continue;
    pools.delete(key);
    for (const seed of pool.ready.splice(0)) remove(seed, `${seed}-wal`);
  }
  try {
    if (folder !== "") rmdirSync(folder);
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
  roots.add(root);
  // Another holder of the same root pools on from a new pool.
  return () => void (roots.delete(root) && drain(join(root, ".seeds")));
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
  const root = [...roots].find((folder) => path.startsWith(`${folder}${sep}`));
  if (root === undefined) return false;
  // A name no conversation folder has (`<slug>-<hash>`, `_no-conversation`).
  const folder = join(root, ".seeds");
  const key = `${folder}\u0000${kind}`;
  const pool = pools.get(key);
  if (!pool) {
    pools.set(key, { ready: [], filling: false });
    if (existsSync(folder)) remove(...readdirSync(folder).filter((name) => !alive(Number(name.split(".")[0]))).map((name) => join(folder, name)));
    // The first new file of a kind is seeded on the spot: a process that makes one (a CLI run) never fills a pool.
    return false;
  }
  const seed = pool.ready.shift();
  void fill(folder, key, pool, make);
  if (seed === undefined) return false;
  try {
    mkdirSync(dirname(path), { recursive: true });
    linkSync(seed, path);
    // A process that opened the new file first made its WAL: the file is whole without this one.
    if (!existsSync(`${path}-wal`)) linkSync(`${seed}-wal`, `${path}-wal`);
    return true;
  } catch {
    // `path` exists (another process made it), the pool folder went away, or links are unsupported.
    return existsSync(path) && statSync(path).ino === statSync(seed, { throwIfNoEntry: false })?.ino;
  } finally {
    remove(seed, `${seed}-wal`);
  }
}

/**
 * How many seeds the pools of `root` (a folder of {@link poolSeedsUnder}) hold ready to be
 * claimed — a seed counts once its file and WAL are written, not when they appear on disk.
 *
 * @example
 * readySeeds("/data/agents") // 8 once both kinds have refilled
 */
export function readySeeds(root: string): number {
  const folder = `${join(root, ".seeds")}\u0000`;
  return [...pools].reduce((sum, [key, pool]) => sum + (key.startsWith(folder) ? pool.ready.length : 0), 0);
}

/** Writes seeds (the file synced, its WAL not: see firstWal) until the pool holds {@link KEPT}; a failure drops the pool. */
async function fill(folder: string, key: string, pool: { ready: string[]; filling: boolean }, make: () => { bytes: Buffer; wal: Buffer }): Promise<void> {
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
        await file.writeFile(bytes).then(() => file.sync()).finally(() => file.close());
        await writeFile(`${seed}-wal`, wal, { flag: "wx" });
        if (pools.get(key) === pool) pool.ready.push(seed);
        else remove(seed, `${seed}-wal`);
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
