/**
 * The tables as top-level exports, which is how drizzle-kit reads a schema (drizzle.configuration.config.ts); the
 * adapters build them on first use through {@link configurationTables} instead (PERF-1).
 */
import { configurationTables } from "./configuration-schema.js";

export const { configurationProjects, configurations, configurationAccounts } = configurationTables();
