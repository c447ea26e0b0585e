/**
 * steamharness/configuration — project configuration (CFG): the configuration store port, the
 * snapshots a run reads its agent configuration from, the configuration server with its accounts
 * and client, and the host bridge a workflow worker reads configuration through (ARCH-11: a
 * subpath of its own, so the root import graph never loads the HTTP servers). The store's
 * memory, SQLite and PostgreSQL adapters are on `steamharness/memory`, `/sqlite` and `/postgres`.
 * Every export here is public API.
 */
export type {
  ProjectConfigurationStore,
  ProjectConfiguration,
  ProjectConfigurationOverview,
  ProjectConfigurationLookup,
  ProjectConfigurationCreate,
  ProjectConfigurationUpdate,
  ConfigurationField,
  ProjectConfigurationExport,
} from "./ports/project-configuration-store.js";
export { takeProjectConfigurationSnapshot, createProjectConfigurationSnapshot, parseProjectConfigurationSnapshot } from "./domain/configuration/snapshot.js";
export type { ProjectConfigurationSnapshot } from "./domain/configuration/snapshot.js";
export { agentConfigurationFromSnapshot } from "./domain/configuration/agent-configuration.js";
export type { ApiKeyResolver, SystemApiKeyResolver } from "./domain/configuration/agent-configuration.js";
export { snapshotForRun, createAgentConfigurationLoader } from "./domain/configuration/run-snapshot.js";
export { startHostBridgeServer } from "./adapters/driving/host-bridge-server/host-bridge-server.js";
export type { HostBridgeServer, HostBridgeServerOptions } from "./adapters/driving/host-bridge-server/host-bridge-server.js";
// The configuration server (CFG-4): accounts, the HTTP API, its client and the store choice.
export type { ConfigurationAccount, ConfigurationAccountCreate, ConfigurationAccountStore } from "./ports/configuration-accounts.js";
export { startConfigurationServer } from "./adapters/driving/config-server/config-server.js";
export type { ConfigurationServer, ConfigurationServerOptions } from "./adapters/driving/config-server/config-server.js";
export { createHttpProjectConfigurationStore } from "./adapters/driven/config-server-client/http-project-configuration-store.js";
export type { ConfigurationServerCredential, HttpProjectConfigurationStoreOptions } from "./adapters/driven/config-server-client/http-project-configuration-store.js";
export { openProjectConfigurationStore } from "./compose/configuration-store.js";
export type { ConfigurationStoreChoice, OpenConfigurationStoreOptions } from "./compose/configuration-store.js";
