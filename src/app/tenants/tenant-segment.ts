/**
 * TEN-3: the one encoding of a tenant key inside storage names — the folder of a tenant's stores
 * and the prefix of its rows (see tenant-storage.ts).
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { SteamharnessError } from "../../domain/errors.js";

/** The folder holding the tenants' namespaces inside a store directory. */
export const TENANTS_FOLDER = "tenants";

/** Segments longer than this end in a digest instead (file names stay far below 255 bytes). */
const MAX_READABLE = 96;

/**
 * The one encoding of a tenant key as a file name and key prefix: lower-case ASCII letters,
 * digits and `-` as they are, every other UTF-8 byte as `_` and two hex digits (so `key:Acme`
 * is `key_3a_41cme`). Injective, never `.`/`..`, no separator, the same on case-insensitive
 * file systems; a long key is its first 64 encoded characters, `~` and its SHA-256 (`~` never
 * occurs in the short form). An empty or non-string tenant is `input_validation`.
 *
 * @example
 * tenantSegment("key:acme") // "key_3aacme"
 */
export function tenantSegment(tenant: string): string {
  if (typeof tenant !== "string" || tenant === "") throw new SteamharnessError("input_validation", "[steamharness] [tenants] a tenant key must be a non-empty string", { field: "tenant" });
  let encoded = "";
  for (const byte of new TextEncoder().encode(tenant)) {
    const char = String.fromCharCode(byte);
    encoded += /[a-z0-9-]/.test(char) ? char : `_${byte.toString(16).padStart(2, "0")}`;
  }
  if (encoded.length <= MAX_READABLE) return encoded;
  return `${encoded.slice(0, 64)}~${createHash("sha256").update(tenant).digest("hex")}`;
}

/**
 * A tenant's folder inside a store directory: `<directory>/tenants/<segment>`.
 *
 * @example
 * tenantDirectory("/srv/sh/kv", "key:acme") // "/srv/sh/kv/tenants/key_3aacme"
 */
export function tenantDirectory(directory: string, tenant: string): string {
  return join(tenantsFolder(directory), tenantSegment(tenant));
}

/**
 * The folder of a data dir that holds its tenants' folders (`<dir>/tenants`).
 *
 * @example
 * tenantsFolder("/srv/sh/kv") // "/srv/sh/kv/tenants"
 */
export function tenantsFolder(directory: string): string {
  return join(directory, TENANTS_FOLDER);
}

