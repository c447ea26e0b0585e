import { join, resolve } from "node:path";
import { stableHash } from "../../../../domain/stable-hash.js";

/**
 * Where durable agent sessions live inside a project when the host names no session folder
 * (SES-1), relative to the project directory.
 */
export const DEFAULT_AGENT_STORE_DIR = ".workflow/agents";

/**
 * The session folder of a project (SES-10): `<projectDir>/.workflow/agents`, absolute. Every
 * local host (`run`, `mcp`, `chat`, `gateway`) keeps a project's sessions there.
 *
 * @example
 * projectAgentStoreDir("/srv/project") // "/srv/project/.workflow/agents"
 */
export function projectAgentStoreDir(projectDir: string): string {
  return join(resolve(projectDir), DEFAULT_AGENT_STORE_DIR);
}

/**
 * The session folder a local host uses: the one it was given (`--agent-store-dir`, resolved
 * against the working directory), else the project's own ({@link projectAgentStoreDir}). A host
 * serving a read-only project folder names another one.
 *
 * @example
 * agentStoreDirFor("/srv/project") // "/srv/project/.workflow/agents"
 * agentStoreDirFor("/srv/project", "/var/lib/sessions") // "/var/lib/sessions"
 */
export function agentStoreDirFor(projectDir: string, given?: string): string {
  return given === undefined ? projectAgentStoreDir(projectDir) : resolve(given);
}

/** The file extension of a session database. */
export const SESSION_FILE_EXTENSION = ".sqlite";

/** The folder name used for sessions that belong to no conversation. */
export const NO_CONVERSATION_SEGMENT = "_no-conversation";

/** At most this many characters of readable slug before the hash. */
const SLUG_MAX_CHARS = 40;

/**
 * A readable, filesystem-safe slug of any text: NFKC-normalised, lower-cased, Unicode letters and
 * digits kept (so Chinese keys stay readable), every other run of characters turned into one `-`,
 * at most 40 characters. Slugs are not unique on their own: {@link sessionPathSegment} adds a
 * hash of the exact text.
 *
 * @example
 * sessionPathSlug("My Session / 会话 1") // "my-session-会话-1"
 */
export function sessionPathSlug(text: string): string {
  const words = text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "");
  // Cut by code points (never halve a surrogate pair), then drop a trailing dash left by the cut.
  return Array.from(words).slice(0, SLUG_MAX_CHARS).join("").replace(/-+$/, "");
}

/**
 * One collision-free path segment for a conversation id or a session key: the readable slug and
 * a stable 64-bit hash of the exact text (case, spaces and Unicode form included), so two
 * different texts never share a segment even when their slugs are equal ("A b" vs "a-b").
 *
 * @example
 * sessionPathSegment("会话 一") // "会话-一-<16 hex digits>"
 */
export function sessionPathSegment(text: string): string {
  return `${sessionPathSlug(text) || "_"}-${stableHash(text)}`;
}

/** What identifies a session file inside a storage directory. */
export interface SessionFileKey {
  /** Absent (or `undefined`) for sessions outside a conversation. */
  conversationId?: string;
  sessionKey: string;
}

/**
 * The relative path segments of a session's database inside its storage directory (SES-1):
 * `[<conversation folder>, <session file>]`. One file per (conversationId, sessionKey), so a
 * conversation's sessions share a folder that can be listed or removed as a whole.
 *
 * @example
 * sessionFileSegments({ conversationId: "conv-1", sessionKey: "agent" })
 * // ["conv-1-<hash>", "agent-<hash>.sqlite"]
 */
export function sessionFileSegments(key: SessionFileKey): [string, string] {
  const folder = key.conversationId === undefined ? NO_CONVERSATION_SEGMENT : sessionPathSegment(key.conversationId);
  return [folder, `${sessionPathSegment(key.sessionKey)}${SESSION_FILE_EXTENSION}`];
}

/**
 * The folder segment of one conversation inside a storage directory, for tools that act on all
 * sessions of a conversation (cancel, clean-up).
 *
 * @example
 * conversationFolderSegment("conv-1") // "conv-1-<hash>"
 */
export function conversationFolderSegment(conversationId: string | undefined): string {
  return sessionFileSegments({ conversationId, sessionKey: "" })[0];
}
