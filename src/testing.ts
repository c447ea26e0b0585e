/**
 * steamharness/testing — port contract suites a host runs against its own adapters, and the
 * offline scripted model. Every export here is public API.
 */
export { createOfflineModel } from "./testing/offline-model.js";
export type { OfflineModel, OfflineModelOptions, OfflineStep } from "./testing/offline-model.js";
export { runKvStoreContract } from "./testing/kv-store.contract.js";
export { runKnowledgeStoreContract } from "./testing/knowledge-store.contract.js";
export { runManagedFileStoreContract } from "./testing/managed-file-store.contract.js";
export { runPersistentValueStoreContract } from "./testing/persistent-value-store.contract.js";
export { runClockContract } from "./testing/clock.contract.js";
export { runIdSourceContract } from "./testing/id-source.contract.js";
export { runToolPermissionsContract } from "./testing/tool-permissions.contract.js";
export type { ToolPermissionsControl } from "./testing/tool-permissions.contract.js";
export { runUserInputContract } from "./testing/user-input.contract.js";
export type { UserInputControl } from "./testing/user-input.contract.js";
export { runTokenUsageContract } from "./testing/token-usage.contract.js";
export { runBudgetLedgerContract } from "./testing/budget-ledger.contract.js";
export { runApprovalStoreContract } from "./testing/approval-store.contract.js";
export type { ApprovalStoreInspect } from "./testing/approval-store.contract.js";
export type { BudgetLedgerInspect } from "./testing/budget-ledger.contract.js";
export { runApiKeyStoreContract } from "./testing/api-keys.contract.js";
export type { ApiKeyStoreInspect } from "./testing/api-keys.contract.js";
export { runSessionStoreContract } from "./testing/session-store.contract.js";
export { runSessionLeaseContract } from "./testing/session-lease.contract.js";
export type { SessionLeaseInspect, SessionLeaseContractCase } from "./testing/session-lease.contract.js";
export { runSessionStoreOpenerContract } from "./testing/session-store-opener.contract.js";
export { runSessionBackendContract } from "./testing/session-backend.contract.js";
export type { SessionBackendInspect, SessionBackendContractOptions, SessionBackendContractCase } from "./testing/session-backend.contract.js";
export { runSessionHostStoreContract } from "./testing/session-host-store.contract.js";
export { runTelemetryContract } from "./testing/telemetry.contract.js";
export { runTenantIsolationContract } from "./testing/tenant-isolation.contract.js";
export type { TenantScopedStorages } from "./testing/tenant-isolation.contract.js";
export type { TelemetryInspect, TelemetrySpanRecord, TelemetryContractCase } from "./testing/telemetry.contract.js";
export type { SessionHostStoreInspect, SessionHostStoreContractCase } from "./testing/session-host-store.contract.js";
export type { SessionStoreOpenerInspect, SessionStoreOpenerContractCase } from "./testing/session-store-opener.contract.js";
export type { ContractTestApi, ContractExpect, ContractCaseContext, ContractFactory, ContractOptions, ContractSubject } from "./testing/contract-support.js";
export type { KvStoreInspect } from "./testing/kv-store.contract.js";
export type { KnowledgeStoreInspect } from "./testing/knowledge-store.contract.js";
export type { ManagedFileStoreInspect } from "./testing/managed-file-store.contract.js";
export type { PersistentValueStoreInspect } from "./testing/persistent-value-store.contract.js";
export type { FixedClock } from "./adapters/driven/memory/fixed-clock.js";
export { createFixedClock } from "./adapters/driven/memory/fixed-clock.js";
export { createSequentialIdSource } from "./adapters/driven/memory/sequential-id-source.js";
export { runProjectConfigurationStoreContract } from "./testing/project-configuration-store.contract.js";
export type { SessionStoreContractApi, SessionStoreFixture, SessionStoreContractOptions, SessionStoreContractSkip } from "./testing/session-store.contract.js";
