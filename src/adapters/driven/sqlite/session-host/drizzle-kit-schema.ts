/**
 * The tables as top-level exports, which is how drizzle-kit reads a schema (drizzle.session-host.config.ts); the
 * adapters build them on first use through {@link sessionHostTables} instead (PERF-1).
 */
import { sessionHostTables } from "./host-schema.js";

export const { hostTasks, hostContexts, hostSettings, hostCommands, hostTurnItems } = sessionHostTables();
