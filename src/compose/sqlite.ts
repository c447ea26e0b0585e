/**
 * PENDING (ARCH-6, ARCH-7): what the project runner still imports from the root, until the
 * workflow-run use case moves to src/app/workflow-runs and takes these as options. Nothing else
 * may import this file; the architecture test lists it as a barrel that must go.
 */
export { createSqliteSessionBackend } from "../adapters/driven/sqlite/sessions/sqlite-session-backend.js";
export { createSqliteStorage } from "../adapters/driven/sqlite/store/sqlite-storage.js";
