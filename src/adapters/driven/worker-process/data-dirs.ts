import { isAbsolute, join, resolve } from "node:path";
import { SteamharnessError } from "../../../domain/errors.js";

// MCP-2 / MCP-8 / SES-10: the layout of a workflow host's data on this machine — every data dir,
// its flag and its default, the agent sessions' folder among them (so the application never
// names it, ARCH-4; where a project's sessions live by default is the session store's rule,
// handed in as `agentStoreDirFor`).

/**
 * MCP-2 / MCP-8: where a workflow host keeps its data. Every directory is absolute; the ones
 * not given on the command line live under `dataDir`.
 */
export interface WorkflowDataDirs {
  /** Root of local workflow data (`--data-dir`, default `~/.steamharness`). */
  dataDir: string;
  /** Managed files, including imported MCP file params (`--file-store-dir`, default `<data>/files`). */
  fileStoreDir: string;
  /** The project KV store (`--kv-store-dir`, default `<data>/kv`). */
  kvStoreDir: string;
  /** PersistentValue and the local knowledge base (`--persistent-value-store-dir`, default `<data>/values`). */
  persistentValueStoreDir: string;
  /** Files a run creates (`--file-create-store-dir`, default `<data>/created`). */
  fileCreateStoreDir: string;
  /** Where `workflow-auth.json` is kept (`--auth-dir`, default `<data>`). */
  authDir: string;
  /**
   * Durable agent sessions of runs (`--agent-store-dir`): by default project-local,
   * `<project>/.workflow/agents` (SES-1, SES-10), like `chat` and the gateway, so every host of a
   * project finds the same conversations; a read-only project folder needs another one.
   */
  agentStoreDir: string;
}

/** The command-line spelling of each directory option, for error messages. */
export const DATA_DIR_FLAGS = {
  dataDir: "--data-dir",
  fileStoreDir: "--file-store-dir",
  kvStoreDir: "--kv-store-dir",
  persistentValueStoreDir: "--persistent-value-store-dir",
  fileCreateStoreDir: "--file-create-store-dir",
  authDir: "--auth-dir",
  agentStoreDir: "--agent-store-dir",
} as const;

/** What the data dirs default by: the user's home, and where a project's sessions live (the session store's rule, SES-10). */
export interface DataDirDefaults {
  home: string;
  agentStoreDirFor(projectDir: string, given?: string): string;
}

/** Directory options as given on the command line (any may be absent). */
export type DataDirOptions = Partial<Record<keyof typeof DATA_DIR_FLAGS, string>>;

/**
 * Resolves the data directories: every given option must be an absolute path (a relative one
 * fails with `input_validation` naming the flag), the rest default under the data dir; the agent
 * sessions default to the project, `<projectDir>/.workflow/agents` (SES-10; `projectDir` defaults
 * to the working directory). `where` says where home is and where a project's sessions live.
 *
 * @example
 * resolveDataDirs({ dataDir: "/srv/sh" }, { home, agentStoreDirFor }).kvStoreDir // "/srv/sh/kv"
 * resolveDataDirs({}, { home, agentStoreDirFor }, "/srv/project").agentStoreDir // "/srv/project/.workflow/agents"
 * resolveDataDirs({ agentStoreDir: "/var/lib/sessions" }, { home, agentStoreDirFor }).agentStoreDir // "/var/lib/sessions"
 */
export function resolveDataDirs(options: DataDirOptions, where: DataDirDefaults, projectDir: string = process.cwd()): WorkflowDataDirs {
  for (const [key, flag] of Object.entries(DATA_DIR_FLAGS) as [keyof typeof DATA_DIR_FLAGS, string][]) {
    const value = options[key];
    if (value === undefined) continue;
    if (value.trim() === "" || !isAbsolute(value)) {
      throw new SteamharnessError("input_validation", `${flag} must be an absolute directory path, got ${JSON.stringify(value)}`, { field: flag });
    }
  }
  const dataDir = resolve(options.dataDir ?? join(where.home, ".steamharness"));
  const pick = (value: string | undefined, fallback: string) => resolve(value ?? join(dataDir, fallback));
  return {
    dataDir,
    fileStoreDir: pick(options.fileStoreDir, "files"),
    kvStoreDir: pick(options.kvStoreDir, "kv"),
    persistentValueStoreDir: pick(options.persistentValueStoreDir, "values"),
    fileCreateStoreDir: pick(options.fileCreateStoreDir, "created"),
    authDir: options.authDir === undefined ? dataDir : resolve(options.authDir),
    agentStoreDir: where.agentStoreDirFor(projectDir, options.agentStoreDir),
  };
}
