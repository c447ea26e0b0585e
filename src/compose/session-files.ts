/**
 * PENDING (ARCH-6, ARCH-7): what the project runner still imports from the root, until the
 * workflow-run use case moves to src/app/workflow-runs and takes it as an option. Nothing else
 * may import this file; the architecture test lists it as a barrel that must go.
 */
export { agentStoreDirFor } from "../adapters/driven/sqlite/sessions/session-file-names.js";
