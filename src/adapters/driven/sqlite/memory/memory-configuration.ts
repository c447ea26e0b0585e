import type { Clock } from "../../../../ports/clock.js";
import type { ConfigurationAccountStore } from "../../../../ports/configuration-accounts.js";
import type { ProjectConfigurationStore } from "../../../../ports/project-configuration-store.js";
import { sqlConfigurationAccounts } from "../../kernel/configuration-accounts.js";
import { sqlConfigurationStoreOn } from "../../kernel/configuration-rows.js";
import { configurationTables } from "../configuration/configuration-schema.js";
import { openMemoryDatabase } from "./memory-database.js";

/** Options of {@link createMemoryProjectConfigurationStore}. */
export interface MemoryProjectConfigurationStoreOptions {
  clock?: Clock;
}

/**
 * The in-memory project configuration store (CFG-1): the SQLite store on an in-memory
 * configuration database ({@link openMemoryDatabase}); a write is one transaction that reads the
 * project, applies the domain's rules and writes back. Nothing survives `close()` or the process.
 *
 * @example
 * const store = createMemoryProjectConfigurationStore();
 * await store.create("project-1", { configurationId: "main", name: "Main", values: {} });
 */
export function createMemoryProjectConfigurationStore(options: MemoryProjectConfigurationStoreOptions = {}): ProjectConfigurationStore {
  return sqlConfigurationStoreOn(openMemoryDatabase("configuration", configurationTables(), options.clock), "");
}

/**
 * The in-memory account store of the configuration server (CFG-4): the SQLite account store on an
 * in-memory configuration database, each account's projects in the same database keyed by
 * (account, project).
 *
 * @example
 * const accounts = createMemoryConfigurationAccounts();
 * await accounts.createAccount({ accountId: "a1", name: "team-a", tokenHash, createdAt: Date.now() });
 */
export function createMemoryConfigurationAccounts(options: { clock?: Clock } = {}): ConfigurationAccountStore {
  return sqlConfigurationAccounts(openMemoryDatabase("configuration", configurationTables(), options.clock));
}
