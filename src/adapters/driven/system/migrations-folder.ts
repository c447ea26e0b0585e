/**
 * Finding a checked-in drizzle migrations folder, from the sources (tsx, jest) and from the
 * bundled `dist/`. Shared by the SQLite and PostgreSQL adapters; loads no database driver.
 */
import { existsSync, readFileSync } from "node:fs";
import { SteamharnessError } from "../../../domain/errors.js";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The journal drizzle-kit writes into every migrations folder. */
export const MIGRATIONS_JOURNAL = join("meta", "_journal.json");

function moduleDirectory(): string {
  // The CJS bundle has __dirname and no import.meta.url; the ESM build, tsx and jest the reverse.
  if (typeof __dirname === "string") return __dirname;
  return dirname(fileURLToPath(import.meta.url));
}

const found = new Map<string, string | null>();

/**
 * Finds a checked-in migrations folder (`drizzle/<subfolder>` holding a drizzle journal) by
 * walking up from `start`: the package root is above both `src/adapters/<tech>/` (tsx, jest) and
 * the bundled `dist/` (the package ships `drizzle/`). `null` when it is nowhere above. Without
 * `start` the package's own folder is looked up once per process: a process opens a session file
 * on every new chat, and the walk costs a dozen `stat`s.
 *
 * @example
 * findMigrationsFolder("session") // "/…/steamharness/drizzle/session"
 * findMigrationsFolder("")        // "/…/steamharness/drizzle" (the store's own migrations)
 */
export function findMigrationsFolder(subfolder: string, start?: string): string | null {
  if (start === undefined) {
    if (!found.has(subfolder)) found.set(subfolder, findMigrationsFolder(subfolder, moduleDirectory()));
    return found.get(subfolder)!;
  }
  let directory = start;
  for (let depth = 0; depth < 8; depth++) {
    const candidate = join(directory, "drizzle", subfolder);
    if (existsSync(join(candidate, MIGRATIONS_JOURNAL))) return candidate;
    const parent = dirname(directory);
    if (parent === directory) break;
    directory = parent;
  }
  return null;
}

/**
 * {@link findMigrationsFolder}, for a folder the package ships: throws `internal` (a broken
 * install) naming `family` when it is nowhere above.
 *
 * @example
 * requireMigrationsFolder("postgres-sessions", "postgres") // "/…/steamharness/drizzle/postgres-sessions"
 */
export function requireMigrationsFolder(subfolder: string, family: string, start?: string): string {
  const folder = findMigrationsFolder(subfolder, start);
  if (folder === null) throw new SteamharnessError("internal", `[steamharness] [${family}] no drizzle/${subfolder} migrations folder above ${start ?? "the package"}`);
  return folder;
}

const counts = new Map<string, number>();

/**
 * How many migrations a folder's journal lists, read once per process and folder (a checked-in
 * folder does not change under a running process).
 *
 * @example
 * migrationCount(requireMigrationsFolder("", "sqlite")) // 9
 */
export function migrationCount(migrationsFolder: string): number {
  let count = counts.get(migrationsFolder);
  if (count === undefined) {
    count = (JSON.parse(readFileSync(join(migrationsFolder, MIGRATIONS_JOURNAL), "utf8")) as { entries: unknown[] }).entries.length;
    counts.set(migrationsFolder, count);
  }
  return count;
}
