import { randomBytes, randomUUID } from "node:crypto";
import { closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import type Database from "better-sqlite3";
import { dirname } from "node:path";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { SteamharnessError, wrapAdapterError } from "../../../../domain/errors.js";
import { findMigrationsFolder, migrationCount } from "../../system/migrations-folder.js";
import { drizzleBetterSqlite3, drizzleMigrator } from "./drizzle-modules.js";
import { openSqlite } from "./sqlite-connection.js";
import { claimSeed } from "./seed-pool.js";

export { findMigrationsFolder } from "../../system/migrations-folder.js";

/**
 * Brings the database of `client` up to the migrations of `migrationsFolder` (bookkeeping in
 * `migrationsTable`, drizzle's default without it) unless it is current. After migrating,
 * `PRAGMA user_version` records how many journal entries the file has, so opening an up-to-date
 * database — the common case, on every process start — costs one pragma instead of reading and
 * hashing every migration file. drizzle's migrations table stays the authority: when the version
 * is behind, drizzle's migrator decides what to apply. A lost race is retried: two processes
 * migrating the same file at once both read the applied list outside the migration transaction,
 * so the loser fails with "already exists" (or SQLITE_BUSY) and a retry finds everything applied.
 * `initialise` (idempotent) runs after migrating and before the version is recorded, so a current
 * version implies its rows.
 *
 * @example
 * const db = migrateSqlite(client, findMigrationsFolder("configuration")!);
 */
export function migrateSqlite(client: Database.Database, migrationsFolder: string, migrationsTable?: string, initialise?: Initialise): BetterSQLite3Database {
  const db = drizzleBetterSqlite3().drizzle({ client });
  const expected = migrationCount(migrationsFolder);
  // PRAGMA user_version has no drizzle builder.
  if (Number(client.pragma("user_version", { simple: true })) >= expected) return db;
  for (let attempt = 1; ; attempt++) {
    try {
      drizzleMigrator().migrate(db, { migrationsFolder, ...(migrationsTable ? { migrationsTable } : {}) });
      break;
    } catch (error) {
      if (attempt >= 5) throw error;
    }
  }
  initialise?.(db, client);
  client.pragma(`user_version = ${expected}`);
  return db;
}

/** The rows every new file of a kind has (idempotent). */
type Initialise = (db: BetterSQLite3Database, client: Database.Database) => void;

/** Migrated images by migrations folder and table, in the legacy (rollback-journal) header an in-memory database has. */
const images = new Map<string, Buffer>();

/**
 * A database image migrated once per process by the migrations of `migrationsFolder`, in memory:
 * what a new file is written from, and what every in-memory store of the memory family opens.
 *
 * @example
 * const client = openSqlite(imageOf(findMigrationsFolder("mcp-tasks")!)); // an in-memory copy
 */
export function imageOf(migrationsFolder: string, migrationsTable = ""): Buffer {
  let image = images.get(`${migrationsFolder}\0${migrationsTable}`);
  if (!image) {
    const client = openSqlite(":memory:");
    try {
      migrateSqlite(client, migrationsFolder, migrationsTable);
      image = client.serialize();
    } finally {
      client.close();
    }
    images.set(`${migrationsFolder}\0${migrationsTable}`, image);
  }
  return image;
}

/** Each migrations folder's seed without rows: the WAL-mode image and its first WAL. */
const seeds = new Map<string, { bytes: Buffer; wal: Buffer }>();

/** A new file of `migrationsFolder` in WAL mode, with `initialise`'s rows (kept per folder and table without them), and its first WAL (see firstWal). */
function seedOf(migrationsFolder: string, migrationsTable = "", initialise?: Initialise): { bytes: Buffer; wal: Buffer } {
  const kept = initialise ? undefined : seeds.get(`${migrationsFolder}\0${migrationsTable}`);
  if (kept) return kept;
  let bytes: Buffer = Buffer.from(imageOf(migrationsFolder, migrationsTable));
  if (initialise) {
    const client = openSqlite(bytes);
    try {
      initialise(drizzleBetterSqlite3().drizzle({ client }), client);
      bytes = client.serialize();
    } finally {
      client.close();
    }
  }
  // The file format's write and read versions (header bytes 18 and 19): 2 opens the file in WAL mode.
  bytes[18] = bytes[19] = 2;
  const seed = { bytes, wal: firstWal(bytes) };
  if (!initialise) seeds.set(`${migrationsFolder}\0${migrationsTable}`, seed);
  return seed;
}

/**
 * Creates `path` (and its folder) as a migrated database in WAL mode unless the file exists;
 * resolves whether this call created it. Why (issue 45 item 1: a new chat creates its host record
 * and session log before its first model call): switching a new file to WAL and applying every
 * migration costs tens of milliseconds, mostly the syncs of the journal-mode switch; writing a
 * copy of an image migrated once per process in memory, by the same migrator, costs one write
 * and one sync. `initialise` (the rows every new file of the kind has) runs on the image before
 * it is written, so no reader sees the file without them. The file appears whole and once: the
 * bytes are written and synced under a temporary name, then hard-linked to `path`, which fails
 * when another process got there first (that file is kept); its first WAL (see firstWal) is linked
 * beside it unless a process that opened it made one. Where hard links are unsupported
 * nothing is created and the caller opens `path` the ordinary way.
 *
 * @example
 * const created = seedSqliteFile("/data/agents/c1/_session-host.db", findMigrationsFolder("session-host")!);
 */
export function seedSqliteFile(path: string, migrationsFolder: string, initialise?: Initialise, migrationsTable?: string): boolean {
  if (existsSync(path)) return false;
  const { bytes, wal } = seedOf(migrationsFolder, migrationsTable, initialise);
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${randomUUID()}.seed`;
  const fd = openSync(temporary, "wx");
  try {
    writeSync(fd, bytes);
    // As the journal-mode switch it replaces: the file a later commit's WAL builds on survives a power loss.
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  if (!linkOnce(temporary, path)) return false;
  // Beside it, its first WAL (below); a WAL a process opening the file made first is kept.
  writeFileSync(`${temporary}-wal`, wal, { flag: "wx" });
  linkOnce(`${temporary}-wal`, `${path}-wal`);
  return true;
}

/** Links `from` to `to` and removes `from`: false when `to` exists (or links are unsupported there). */
function linkOnce(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch (error) {
    if (["EEXIST", "EPERM", "ENOTSUP", "EXDEV"].includes(String((error as NodeJS.ErrnoException).code))) return false;
    throw error;
  } finally {
    unlinkSync(from);
  }
}

/**
 * A WAL of one commit that writes page 1 of `database` as it is (SQLite's WAL format: a 32-byte
 * header, then 24-byte frame headers before pages, cumulative little-endian checksums). Why
 * (issue 45 item 1): a connection that starts a new WAL syncs its header and, having created the
 * file, the folder — two syncs before a new chat's first event is logged; one that appends to a
 * WAL with a commit in it syncs nothing (synchronous NORMAL). Its loss costs nothing: the
 * database holds the same page, and SQLite ignores a WAL whose checksums fail.
 */
function firstWal(database: Buffer): Buffer {
  const pageSize = database.readUInt16BE(16) === 1 ? 65_536 : database.readUInt16BE(16);
  const wal = Buffer.alloc(32 + 24 + pageSize);
  const sums = [0, 0];
  const sum = (from: number, to: number, at?: number) => {
    for (let i = from; i < to; i += 8) {
      sums[0] = (sums[0]! + wal.readUInt32LE(i) + sums[1]!) >>> 0;
      sums[1] = (sums[1]! + wal.readUInt32LE(i + 4) + sums[0]) >>> 0;
    }
    if (at !== undefined) sums.forEach((value, n) => wal.writeUInt32BE(value, at + 4 * n));
  };
  // Header: magic (little-endian checksums), format 3007000, page size, checkpoint 0, two salts, its checksum.
  [0x377f0682, 3_007_000, pageSize, 0].forEach((value, n) => wal.writeUInt32BE(value, n * 4));
  randomBytes(8).copy(wal, 16);
  sum(0, 24, 24);
  // Frame: page 1, the database's size in pages (a commit), the salts, its checksum (with the page's), the page.
  wal.writeUInt32BE(1, 32);
  wal.writeUInt32BE(database.length / pageSize, 36);
  wal.copy(wal, 40, 16, 24);
  database.copy(wal, 56, 0, pageSize);
  sum(32, 40);
  sum(56, 56 + pageSize, 48);
  return wal;
}

/** Options of {@link openMigratedSqlite}. */
export interface MigratedSqliteOptions {
  /** The checked-in migrations: `drizzle/<migrations>` of the package, unless `migrationsFolder` names one. */
  migrations: string;
  migrationsFolder?: string;
  /** drizzle's bookkeeping table of the migrations (the store's has its own name); drizzle's default without it. */
  migrationsTable?: string;
  /** How long a write waits for another process's write lock (default 5000 ms). */
  busyTimeoutMs?: number;
  /** What the file is, for the error message ("the task store"). */
  what: string;
  /** `"normal"` (default): a commit survives a killed process; `"full"` also syncs every commit. */
  synchronous?: "normal" | "full";
  /** The rows every new file of the kind has (idempotent): written with the file's schema (a pooled seed's, see claimSeed, as it is opened, before this returns). */
  initialise?: Initialise;
}

/**
 * Opens (creating the file and its folder, see {@link seedSqliteFile}) a WAL-mode database several
 * processes share and brings it up to its migrations; a lost migration race is retried. A missing migrations folder
 * throws `internal`; any other fault `storage_failure` with `cause`.
 *
 * @example
 * const { client, db } = openMigratedSqlite("/data/mcp-tasks.sqlite", { migrations: "mcp-tasks", what: "the task store" });
 */
export function openMigratedSqlite(path: string, options: MigratedSqliteOptions): { client: Database.Database; db: BetterSQLite3Database } {
  const folder = options.migrationsFolder ?? findMigrationsFolder(options.migrations);
  if (folder === null) throw new SteamharnessError("internal", `[steamharness] [sqlite] drizzle/${options.migrations} migrations not found`);
  let client: Database.Database | undefined;
  try {
    // An existing file (every open but the first) needs neither a seed nor its folder made.
    const pooled = !existsSync(path) && claimSeed(path, `${folder}\0${options.migrationsTable ?? ""}`, () => seedOf(folder, options.migrationsTable));
    if (!pooled && !existsSync(path) && !seedSqliteFile(path, folder, options.initialise, options.migrationsTable)) mkdirSync(dirname(path), { recursive: true });
    client = openSqlite(path, { timeout: options.busyTimeoutMs ?? 5000 });
    // PRAGMAs are connection settings drizzle has no builder for.
    client.pragma("journal_mode = WAL");
    client.pragma(`synchronous = ${options.synchronous === "full" ? "FULL" : "NORMAL"}`);
    const db = migrateSqlite(client, folder, options.migrationsTable, options.initialise);
    if (pooled) options.initialise?.(db, client);
    return { client, db };
  } catch (error) {
    client?.close();
    // DX-8: a folder that cannot be made (a file in its place, no permission) is named as such.
    const folderFailed = (error as NodeJS.ErrnoException | null)?.syscall === "mkdir";
    throw wrapAdapterError("sqlite", folderFailed ? `cannot create the directory of ${options.what} ${dirname(path)}` : `cannot open ${options.what} ${path}`, error);
  }
}
