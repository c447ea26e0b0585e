/**
 * The configuration server's secrets (CFG-4): account tokens are 32 random bytes shown once and
 * stored as their SHA-256; the admin key is compared in constant time over digests, so neither
 * its content nor its length leaks through timing.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

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
