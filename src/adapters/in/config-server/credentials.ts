/**
 * The configuration server's secrets (CFG-4): account tokens are 32 random bytes shown once and
 * stored as their SHA-256; the admin key is compared in constant time over digests, so neither
 * its content nor its length leaks through timing. TEN-1: every accepted request is one
 * principal ({@link callerPrincipal}).
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { createPrincipal, type Principal } from "../../../domain/principal.js";

/** The prefix of every account token, so a leaked one is recognisable in logs and scanners. */
export const ACCOUNT_TOKEN_PREFIX = "sht_";

/**
 * A new account token.
 *
 * @example
 * newAccountToken() // "sht_…" (43 base64url characters after the prefix)
 */
export function newAccountToken(): string {
  return `${ACCOUNT_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
}

/**
 * The stored form of a token: SHA-256, hex.
 *
 * @example
 * hashAccountToken("sht_abc").length // 64
 */
export function hashAccountToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/**
 * Whether `given` is `expected`, in constant time whatever the lengths.
 *
 * @example
 * sameSecret(bearer, adminKey)
 */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * The token of an `Authorization: Bearer <token>` header, or `null`.
 *
 * @example
 * bearerOf("Bearer sht_abc") // "sht_abc"
 */
export function bearerOf(header: string | undefined): string | null {
  const match = /^Bearer +(\S+)\s*$/i.exec(header ?? "");
  return match ? match[1]! : null;
}

/**
 * The principal of a configuration-server request (TEN-1): an account token is its account
 * (`account:<id>`, subject and credential the account id); the admin key naming an account acts
 * on that account's data as the admin (subject `admin`); the admin key alone is its own principal
 * (`token:admin`), which owns no project configuration.
 *
 * @example
 * callerPrincipal("account", account.accountId).tenant; // "account:<id>"
 */
export function callerPrincipal(via: "account" | "admin", accountId: string | null): Principal {
  if (via === "account" || accountId !== null) {
    const admin = via === "admin";
    return createPrincipal({ source: "account", surface: "config-server", tenantId: accountId, subject: admin ? "admin" : accountId, credentialId: admin ? "admin-key" : accountId });
  }
  return createPrincipal({ source: "token", surface: "config-server", tenantId: "admin", subject: "admin", credentialId: "admin-key" });
}
