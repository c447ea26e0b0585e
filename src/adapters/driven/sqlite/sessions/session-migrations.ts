import { findMigrationsFolder } from "../shared/migrations.js";

let cachedFolder: string | null | undefined;

/**
 * The checked-in session migration folder (`drizzle/session`), looked up once per process;
 * `null` when missing.
 *
 * @example
 * const folder = findSessionMigrationsFolder(); // "/…/steamharness/drizzle/session"
 */
export function findSessionMigrationsFolder(start?: string): string | null {
  if (start !== undefined) return findMigrationsFolder("session", start);
  if (cachedFolder === undefined) cachedFolder = findMigrationsFolder("session");
  return cachedFolder;
}
