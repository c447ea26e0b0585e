import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { SteamharnessError } from "../../../../domain/errors.js";
import { conversationFolderSegment, sessionFileSegments } from "./session-file-names.js";

/** Options of {@link resolveSessionDatabasePath}. */
export interface ResolveSessionDatabasePathOptions {
  /** The storage directory of agent sessions (`storage.agentStoreDir`); relative to the cwd. */
  agentStoreDir?: string;
  /** Absent for sessions outside a conversation. */
  conversationId?: string;
  sessionKey: string;
  /** An explicit database file; it wins over the derived one. */
  databasePath?: string;
}

/**
 * The absolute path of a session's SQLite file (SES-1): `databasePath` when given, else
 * `<agentStoreDir>/<conversation>-<hash>/<sessionKey>-<hash>.sqlite` — one file per (storage dir,
 * conversationId, sessionKey), with readable, filesystem-safe, collision-free names for any
 * Unicode key. Throws `input_validation` when neither a directory nor a path is given.
 *
 * @example
 * resolveSessionDatabasePath({ agentStoreDir: ".workflow/agents", conversationId: "c1", sessionKey: "会话 一" })
 * // "/project/.workflow/agents/c1-<hash>/会话-一-<hash>.sqlite"
 */
export function resolveSessionDatabasePath(options: ResolveSessionDatabasePathOptions): string {
  if (options.databasePath !== undefined && options.databasePath !== "") return resolve(options.databasePath);
  if (options.agentStoreDir === undefined || options.agentStoreDir === "") {
    throw new SteamharnessError("input_validation", "a session database needs storage.agentStoreDir or databasePath", {
      field: "agentStoreDir",
    });
  }
  if (typeof options.sessionKey !== "string") {
    throw new SteamharnessError("input_validation", "sessionKey must be a string", { field: "sessionKey" });
  }
  return join(resolve(options.agentStoreDir), ...sessionFileSegments(options));
}

/**
 * The lock file that carries a session's execution lease (SES-2), next to its database.
 *
 * @example
 * sessionLockPath("/data/agent-1.sqlite") // "/data/agent-1.sqlite.lock"
 */
export function sessionLockPath(databasePath: string): string {
  return `${databasePath}.lock`;
}

/**
 * The folder holding every session file of one conversation (or of the sessions outside any
 * conversation) under a storage directory, for tools that act on a whole conversation
 * (cancel, clean-up). Throws `input_validation` for an empty `agentStoreDir`.
 *
 * @example
 * conversationSessionsDirectory({ agentStoreDir: ".workflow/agents", conversationId: "c1" })
 * // "/project/.workflow/agents/c1-<hash>"
 */
export function conversationSessionsDirectory(options: { agentStoreDir: string; conversationId?: string }): string {
  if (typeof options.agentStoreDir !== "string" || options.agentStoreDir === "") {
    throw new SteamharnessError("input_validation", "agentStoreDir must be a non-empty string", { field: "agentStoreDir" });
  }
  return join(resolve(options.agentStoreDir), conversationFolderSegment(options.conversationId));
}

const forkMarks = (conversationDir: string): string => join(conversationDir, "_forks");

/**
 * FORK-1: marks in `from`'s conversation folder that a fork in another conversation (its file
 * `forkPath`) reads through to one of its sessions — one file per fork, named by a hash of its
 * path, holding that path relative to `agentStoreDir` — so a prune keeps the folder while the fork
 * exists (a fork in the same conversation goes with it). Written before the fork's file: a fork
 * that failed leaves a mark of a missing file, which counts for nothing.
 *
 * @example
 * markForeignFork("/data/agents", { projectId, conversationId: "run-1", sessionKey: "agent" }, "/data/agents/c2-…/agent.sqlite");
 */
export function markForeignFork(agentStoreDir: string, from: { conversationId?: string }, forkPath: string): void {
  const parent = conversationSessionsDirectory({ agentStoreDir, ...(from.conversationId === undefined ? {} : { conversationId: from.conversationId }) });
  if (dirname(forkPath) === parent) return;
  mkdirSync(forkMarks(parent), { recursive: true });
  writeFileSync(join(forkMarks(parent), createHash("sha256").update(forkPath).digest("hex").slice(0, 32)), relative(resolve(agentStoreDir), forkPath));
}

/**
 * Whether a fork in another conversation still reads through to a session of this conversation
 * folder ({@link markForeignFork}); a mark of a file that is gone counts for nothing.
 *
 * @example
 * if (hasForeignForks("/data/agents", conversationSessionsDirectory({ agentStoreDir: "/data/agents", conversationId: "run-1" }))) return "keep";
 */
export function hasForeignForks(agentStoreDir: string, conversationDir: string): boolean {
  const marks = existsSync(forkMarks(conversationDir)) ? readdirSync(forkMarks(conversationDir)) : [];
  return marks.some((mark) => existsSync(join(resolve(agentStoreDir), readFileSync(join(forkMarks(conversationDir), mark), "utf8"))));
}
