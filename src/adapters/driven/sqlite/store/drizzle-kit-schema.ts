/**
 * The tables as top-level exports, which is how drizzle-kit reads a schema (drizzle.config.ts); the
 * adapters build them on first use through {@link storeTables} instead (PERF-1).
 */
import { storeTables } from "./schema.js";

export const { kvEntries, knowledgeDocuments, managedFiles, persistentValues, budgetRows, budgetReservations, apiKeys, apiTenants, apiRateWindows, apiSlots, approvalRequests, approvalDecisions, approvalAudit } = storeTables();
