/**
 * Where SQLite agent sessions live (file and folder names), without the SQLite adapters
 * themselves: a command that only works out a path (its `--agent-store-dir`) does not load the
 * storage modules at start-up (cold start). `compose/sqlite.ts` exports the same names.
 */
export { DEFAULT_AGENT_STORE_DIR, NO_CONVERSATION_SEGMENT, SESSION_FILE_EXTENSION, agentStoreDirFor, conversationFolderSegment, projectAgentStoreDir, sessionFileSegments, sessionPathSegment, sessionPathSlug } from "../adapters/driven/sqlite/sessions/session-file-names.js";
export type { SessionFileKey } from "../adapters/driven/sqlite/sessions/session-file-names.js";
