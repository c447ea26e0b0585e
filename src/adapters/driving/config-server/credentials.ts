/**
 * The configuration server's secrets (CFG-4): account tokens are 32 random bytes shown once and
 * stored as their SHA-256; the admin key is compared in constant time over digests, so neither
 * its content nor its length leaks through timing. A model-call credential (TEN-7) is derived
 * from the stored token hash under the admin key, for `system: true` model entries. TEN-1: every
 * accepted request is one principal ({@link callerPrincipal}).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
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

/** The prefix of a model-call credential: what `system: true` model entries authenticate with. */
export const MODEL_CREDENTIAL_PREFIX = "shm_";

const modelMac = (serverKey: string, tokenHash: string): string => createHmac("sha256", serverKey).update(`steamharness model-call v1\0${tokenHash}`, "utf8").digest("base64url");

/**
 * The model-call credential of an account (TEN-7): `shm_<token hash>.<HMAC of it under the
 * server's admin key>`. It names the account by its stored token hash (so rotating the token
 * retires it) and proves the server issued it; it is not the account token and cannot be turned
 * into it, and the server refuses it everywhere but the model-call check.
 *
 * @example
 * modelCredentialOf(adminKey, hashAccountToken(token)) // "shm_3f….Qk…"
 */
export function modelCredentialOf(serverKey: string, tokenHash: string): string {
  return `${MODEL_CREDENTIAL_PREFIX}${tokenHash}.${modelMac(serverKey, tokenHash)}`;
}

/**
 * The token hash a model-call credential names, when the server issued it; else `null`.
 *
 * @example
 * verifiedModelCredential(adminKey, bearer) // "3f…" (look the account up by it)
 */
export function verifiedModelCredential(serverKey: string, credential: string): string | null {
  const found = /^shm_([0-9a-f]{64})\.([A-Za-z0-9_-]{43})$/.exec(credential);
  return found && sameSecret(found[2]!, modelMac(serverKey, found[1]!)) ? found[1]! : null;
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
