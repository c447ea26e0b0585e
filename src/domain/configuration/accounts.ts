/**
 * The configuration server's account rules (CFG-4), pure: account names and the wire shape of
 * an account. Tokens are made and hashed by the server (it owns the randomness and crypto).
 */
import { SteamharnessError } from "../errors.js";

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * Checks an account name: 1–100 characters of letters, digits, `.`, `_`, `-`, starting with a
 * letter or digit. Throws `input_validation` (field `name`).
 *
 * @example
 * checkAccountName("team-a") // "team-a"
 */
export function checkAccountName(name: unknown): string {
  if (typeof name !== "string" || !NAME.test(name)) {
    throw new SteamharnessError("input_validation", "[steamharness] [config-server] account name must be 1–100 letters, digits, '.', '_' or '-', starting with a letter or digit", { field: "name" });
  }
  return name;
}
