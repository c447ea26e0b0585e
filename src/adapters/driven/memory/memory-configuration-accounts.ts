import { SteamharnessError } from "../../../domain/errors.js";
import type { Clock } from "../../../ports/clock.js";
import type { ConfigurationAccount, ConfigurationAccountCreate, ConfigurationAccountStore } from "../../../ports/configuration-accounts.js";
import type { ProjectConfigurationStore } from "../../../ports/project-configuration-store.js";
import { createMemoryProjectConfigurationStore } from "./memory-project-configuration-store.js";

/**
 * The in-memory reference account store of the configuration server (CFG-4): one memory
 * configuration store per account, so projects are isolated by (account, project).
 *
 * @example
 * const accounts = createMemoryConfigurationAccounts();
 * await accounts.createAccount({ accountId: "a1", name: "team-a", tokenHash, createdAt: Date.now() });
 */
export function createMemoryConfigurationAccounts(options: { clock?: Clock } = {}): ConfigurationAccountStore {
  const accounts: ConfigurationAccountCreate[] = [];
  const stores = new Map<string, ProjectConfigurationStore>();
  let closed = false;
  const shape = (row: ConfigurationAccountCreate | undefined): ConfigurationAccount | null => (row ? { accountId: row.accountId, name: row.name, createdAt: row.createdAt } : null);
  const open = () => {
    if (closed) throw new SteamharnessError("storage_failure", "[steamharness] [memory] the account store is closed");
  };
  return {
    async createAccount(input) {
      open();
      if (accounts.some((row) => row.accountId === input.accountId || row.name === input.name || row.tokenHash === input.tokenHash)) {
        throw new SteamharnessError("conflict", "[steamharness] [memory] an account with this id, name or token already exists", { field: "name" });
      }
      accounts.push({ ...input });
      return shape(input)!;
    },
    async replaceTokenHash(accountId, tokenHash) {
      open();
      const row = accounts.find((candidate) => candidate.accountId === accountId);
      if (!row) throw new SteamharnessError("not_found", `[steamharness] [memory] no account "${accountId}"`, { field: "accountId" });
      if (accounts.some((candidate) => candidate.tokenHash === tokenHash)) {
        throw new SteamharnessError("conflict", "[steamharness] [memory] an account with this token already exists", { field: "tokenHash" });
      }
      row.tokenHash = tokenHash;
      return shape(row)!;
    },
    async accountByTokenHash(tokenHash) {
      open();
      return shape(accounts.find((row) => row.tokenHash === tokenHash));
    },
    async account(idOrName) {
      open();
      return shape(accounts.find((row) => row.accountId === idOrName || row.name === idOrName));
    },
    async listAccounts() {
      open();
      return [...accounts].sort((a, b) => a.createdAt - b.createdAt || (a.accountId < b.accountId ? -1 : 1)).map((row) => shape(row)!);
    },
    configurations(accountId) {
      let store = stores.get(accountId);
      if (!store) stores.set(accountId, (store = createMemoryProjectConfigurationStore(options.clock ? { clock: options.clock } : {})));
      return store;
    },
    async close() {
      closed = true;
      for (const store of stores.values()) await store.close?.();
    },
  };
}
