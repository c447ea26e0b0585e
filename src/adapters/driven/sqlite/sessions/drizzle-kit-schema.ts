/**
 * The tables as top-level exports, which is how drizzle-kit reads a schema (drizzle.session.config.ts); the
 * adapters build them on first use through {@link sessionTables} instead (PERF-1).
 */
import { sessionTables } from "./session-schema.js";

export const { sessionEvents, sessionSnapshots, sessionMeta } = sessionTables();
