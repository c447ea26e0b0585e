import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { SteamharnessError } from "../../domain/errors.js";

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
  /** Durable agent sessions of runs (`<data>/agent-sessions`). */
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
} as const;

/** Directory options as given on the command line (any may be absent). */
export type DataDirOptions = Partial<Record<keyof typeof DATA_DIR_FLAGS, string>>;

/**
 * Resolves the data directories: every given option must be an absolute path (a relative one
 * fails with `input_validation` naming the flag), the rest default under the data dir.
 *
 * @example
 * resolveDataDirs({ dataDir: "/srv/sh" }).kvStoreDir // "/srv/sh/kv"
 */
export function resolveDataDirs(options: DataDirOptions, home: string = homedir()): WorkflowDataDirs {
  for (const [key, flag] of Object.entries(DATA_DIR_FLAGS) as [keyof typeof DATA_DIR_FLAGS, string][]) {
    const value = options[key];
    if (value === undefined) continue;
    if (value.trim() === "" || !isAbsolute(value)) {
      throw new SteamharnessError("input_validation", `${flag} must be an absolute directory path, got ${JSON.stringify(value)}`, { field: flag });
    }
  }
  const dataDir = resolve(options.dataDir ?? join(home, ".steamharness"));
  const pick = (value: string | undefined, fallback: string) => resolve(value ?? join(dataDir, fallback));
  return {
    dataDir,
    fileStoreDir: pick(options.fileStoreDir, "files"),
    kvStoreDir: pick(options.kvStoreDir, "kv"),
    persistentValueStoreDir: pick(options.persistentValueStoreDir, "values"),
    fileCreateStoreDir: pick(options.fileCreateStoreDir, "created"),
    authDir: options.authDir === undefined ? dataDir : resolve(options.authDir),
    agentStoreDir: join(dataDir, "agent-sessions"),
  };
}
