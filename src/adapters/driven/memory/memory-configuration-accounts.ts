import type { Clock } from "../../../ports/clock.js";
import type { ConfigurationAccountCreate, ConfigurationAccountStore } from "../../../ports/configuration-accounts.js";
import { createConfigurationAccounts, type AccountRows } from "../kernel/configuration-accounts.js";
import { directCall } from "../kernel/store-call.js";
import { createMemoryProjectConfigurationStore } from "./memory-project-configuration-store.js";

/** What memory throws for a repeated id, name or token hash (the SQL families' unique index). */
class UniqueViolation extends Error {}

/**
 * The account rows in memory: a list, scanned (the configuration server holds a handful).
 *
 * @example
 * const rows = createMemoryAccountRows();
 */
export function createMemoryAccountRows(): AccountRows {
  const accounts: ConfigurationAccountCreate[] = [];
  const taken = (accountId: string, name: string, tokenHash: string) => accounts.some((row) => row.accountId === accountId || row.name === name || row.tokenHash === tokenHash);
  return {
    insert(row) {
      if (taken(row.accountId, row.name, row.tokenHash)) throw new UniqueViolation();
      accounts.push(row);
    },
    setTokenHash(accountId, tokenHash) {
      const row = accounts.find((candidate) => candidate.accountId === accountId && candidate.tokenHash !== tokenHash);
      if (!row) return undefined;
      if (accounts.some((other) => other.tokenHash === tokenHash)) throw new UniqueViolation();
      row.tokenHash = tokenHash;
      return row;
    },
    exists: (accountId) => accounts.some((row) => row.accountId === accountId),
    find: (by) => accounts.find((row) => ("tokenHash" in by ? row.tokenHash === by.tokenHash : row.accountId === by.idOrName || row.name === by.idOrName)),
    list: () => [...accounts].sort((a, b) => a.createdAt - b.createdAt || (a.accountId < b.accountId ? -1 : 1)),
    isUniqueViolation: (error) => error instanceof UniqueViolation,
  };
}

/**
 * The in-memory reference account store of the configuration server (CFG-4): the kernel's
 * account store over {@link createMemoryAccountRows}, one memory configuration store per account,
 * so projects are isolated by (account, project).
 *
 * @example
 * const accounts = createMemoryConfigurationAccounts();
 * await accounts.createAccount({ accountId: "a1", name: "team-a", tokenHash, createdAt: Date.now() });
 */
export function createMemoryConfigurationAccounts(options: { clock?: Clock } = {}): ConfigurationAccountStore {
  return createConfigurationAccounts({
    rows: createMemoryAccountRows(),
    call: directCall,
    family: "memory",
    configurations: () => createMemoryProjectConfigurationStore(options.clock ? { clock: options.clock } : {}),
    close: async () => {},
  });
}
