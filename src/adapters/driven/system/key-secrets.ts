import { createHash, randomBytes } from "node:crypto";

/** How API-key secrets are made and digested (BUD-4): node:crypto, kept out of the pure kernel. */
export interface KeySecrets {
  /** A fresh secret: 32 random bytes, base64url. */
  random(): string;
  /** The SHA-256 digest (hex) a secret is stored as. */
  digest(secret: string): string;
}

/**
 * Key secrets from node:crypto (`randomBytes`, SHA-256).
 *
 * @example
 * const secrets = createKeySecrets();
 * const hash = secrets.digest(secrets.random());
 */
export function createKeySecrets(): KeySecrets {
  return {
    random: () => randomBytes(32).toString("base64url"),
    digest: (secret) => createHash("sha256").update(secret).digest("hex"),
  };
}
