import type { ProjectConfigurationStore } from "./project-configuration-store.js";

/** One account of the configuration server (CFG-4). Never carries its token. */
export interface ConfigurationAccount {
  /** Stable id the server assigns (a UUID); projects are keyed by it. */
  accountId: string;
  /** Unique, human-chosen name (see `checkAccountName`). */
  name: string;
  /** Creation time, epoch milliseconds. */
  createdAt: number;
}

/** What {@link ConfigurationAccountStore.createAccount} stores. */
export interface ConfigurationAccountCreate extends ConfigurationAccount {
  /** SHA-256 (hex) of the account's API token; the token itself is never stored. */
  tokenHash: string;
}

/**
 * The configuration server's accounts and their configurations (CFG-4): "Server 按项目和账号隔离"
 * — every project is keyed by (account, project), so two accounts may use the same project id
 * and never see each other's fields, configurations or revisions.
 *
 * Rules every adapter keeps:
 * - `createAccount` writes one row; an account id, name or token hash already used → `conflict`
 *   and nothing is written. Input is validated by the caller (the server), not here.
 * - `replaceTokenHash` swaps one account's token hash in one atomic write: from then on only the
 *   new hash finds the account (the old token stops working at once). An unknown account id →
 *   `not_found`; a hash any account already has (this one included) → `conflict`; in both cases
 *   nothing is written.
 * - `accountByTokenHash` / `account` return `null` for an unknown hash or id, never throw for it.
 * - `listAccounts` orders by creation time, then id.
 * - `configurations(accountId)` is a `ProjectConfigurationStore` with every rule of that port
 *   (revisions, conflicts, tombstones, import/export, atomic writes across processes), scoped to
 *   the account. It does not check that the account exists; the server does before calling it.
 * - Adapter faults surface as `storage_failure` with `cause`; after `close()` calls fail.
 */
export interface ConfigurationAccountStore {
  /** Stores a new account; a taken id, name or token hash → `conflict`. */
  createAccount(input: ConfigurationAccountCreate): Promise<ConfigurationAccount>;
  /**
   * Replaces the token hash of the account with this id (token rotation); an unknown id →
   * `not_found`, a hash already in use → `conflict`, and nothing is written.
   *
   * @example
   * await accounts.replaceTokenHash(account.accountId, newTokenHash) // the account; its old token no longer finds it
   */
  replaceTokenHash(accountId: string, tokenHash: string): Promise<ConfigurationAccount>;
  /** The account whose token hashes to `tokenHash`, or `null`. */
  accountByTokenHash(tokenHash: string): Promise<ConfigurationAccount | null>;
  /** The account with this id or name, or `null`. */
  account(idOrName: string): Promise<ConfigurationAccount | null>;
  /** Every account, oldest first. */
  listAccounts(): Promise<ConfigurationAccount[]>;
  /** The configuration store of one account's projects. */
  configurations(accountId: string): ProjectConfigurationStore;
  /** Releases the backend (and every store `configurations` returned). */
  close(): Promise<void>;
}
