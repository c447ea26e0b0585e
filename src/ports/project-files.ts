import type { JsonValue } from "../domain/json.js";
import type { WorkflowManifest } from "../domain/workflow/project-manifest.js";
import type { WorkflowParam } from "../domain/workflow/workflow-definition.js";

/**
 * ARCH-7: what the workflow-run use case (src/app/workflow-runs) reads of the machine — a
 * project's folder and `.env`, the files callers name as file params, the folders runs keep
 * their data in. The driven adapter is src/adapters/driven/worker-process (node:fs); the
 * composition root wires it. Paths given and returned are absolute.
 */
export interface ProjectFiles {
  /**
   * Reads and checks a project's `package.json` and entry module path, running no project code.
   * Throws `not_found` for a missing folder or entry module, `input_validation` for a folder
   * without `package.json`, a non-workflow project or a bad id.
   */
  locate(directory: string): Promise<WorkflowProjectLocation>;
  /** The project's `.env` values; `{}` when there is none; `input_validation` when it cannot be read. */
  readEnv(projectDir: string): Promise<Record<string, string>>;
  /**
   * SEC-5 / TEN-2: the file-param policy of a host — `allowedFileRoots` (absolute existing
   * directories; by default the project and the working directory, none when `multiTenant`),
   * with `state` (the server's own files and folders) denied. `input_validation` for a bad root.
   */
  filePolicy(allowedFileRoots: readonly string[] | undefined, projectDir: string, state: readonly string[], options: { multiTenant?: boolean }): Promise<FileParamPolicy>;
  /**
   * Checks the file params among `given` against `policy` (`input_validation` naming every
   * refused argument, never a server path) and returns the plain params and, apart, the checked
   * files. `tenantFolder` expands `{tenant}` roots (the caller's tenant folder segment).
   */
  checkFileParams(params: readonly WorkflowParam[], given: Record<string, JsonValue>, options: { policy?: FileParamPolicy; tenantFolder?: string }): Promise<{ params: Record<string, JsonValue>; files: Record<string, FileParamSource | FileParamSource[]> }>;
  /**
   * Watches the files loading the project reads and calls `onChange` once per burst of changes;
   * `watching: false` when the project is too large or the platform cannot watch. Never throws.
   */
  watch(location: WorkflowProjectLocation, onChange: () => void, options: { exclude?: readonly string[] }): Promise<ProjectWatch>;
  /** A hash of the project's loaded files (any edit changes it), or `null` when the project is too large to hash. */
  fingerprint(location: WorkflowProjectLocation, options: { exclude?: readonly string[]; salt?: string }): Promise<string | null>;
  /** Whether a file or folder exists (false on any error). */
  exists(path: string): boolean;
  /** The folders directly inside `directory` (absolute); `[]` when it does not exist. */
  subfolders(directory: string): string[];
  /** Creates a folder and its parents; nothing when it exists. Throws the file system's error. */
  makeDirectory(directory: string): void;
  /** The user's home directory (where `~/.steamharness` lives by default). */
  homeDir(): string;
  /**
   * MCP-2 / MCP-8 / SES-10: where a host of the project in `projectDir` keeps its data — the
   * folders a command names, the rest defaulted (under `dataDir`, itself `~/.steamharness` by
   * default; the session folder by the session store's rule, inside the project). Every folder
   * returned is absolute. A given folder that is not absolute is `input_validation` naming its flag.
   */
  dataFolders(given: RunFolderOptions, projectDir: string): RunFolders;
  /**
   * MCP-15: a project-relative file a declaration names (a resource, a prompt image), as its real
   * path, which must lie inside the real project folder: `input_validation` for a path outside it
   * (a symbolic link pointing out included), `not_found` when the file does not exist.
   */
  resolveFile(projectDir: string, file: string): Promise<string>;
  /**
   * MCP-15: a project file's bytes, resolved as {@link resolveFile}, opened without following a
   * link swapped in since; `input_validation` unless it is a regular file of at most `maxBytes`
   * (default 10 MB), `not_found` when missing. Never hangs on a FIFO.
   */
  readFile(projectDir: string, file: string, maxBytes?: number): Promise<Uint8Array>;
  /**
   * Watches one file (a real path): `onChange` per change, with `"rename"` when it was replaced or
   * removed (the watch then ends: watch it again under its path). `null` when it cannot be
   * watched. The watch never keeps the process alive; `close` is idempotent.
   */
  watchFile(path: string, onChange: (event: "change" | "rename") => void): { close(): void } | null;
  /** A file's whole UTF-8 text; `null` when it cannot be read (missing, unreadable): for caches, which never fail a start. */
  readText(path: string): Promise<string | null>;
  /**
   * Replaces a file's text atomically: its folder made, a temporary file renamed into place, so a
   * concurrent reader sees the old text or the new, never half. Rejects with the system error.
   */
  replaceText(path: string, text: string): Promise<void>;
  /**
   * MCP-19: creates a file with `text` unless one is there, and resolves the file's text: the
   * first writer's for every concurrent caller, also across processes (written aside, then
   * hard-linked into place, so no reader sees half a file and no writer replaces another's).
   * The folder is made; the file is readable by its owner only. Rejects with the system error.
   */
  createTextOnce(path: string, text: string): Promise<string>;
}

/** MCP-2: the data folders a command names (`--data-dir`, `--kv-store-dir`, …); any may be absent, each absolute. */
export interface RunFolderOptions {
  dataDir?: string;
  fileStoreDir?: string;
  kvStoreDir?: string;
  persistentValueStoreDir?: string;
  fileCreateStoreDir?: string;
  authDir?: string;
  /** The agent sessions of the runs (and their run index); the project's own folder for them by default. */
  sessionFolder?: string;
}

/**
 * MCP-2 / MCP-8: the data dirs of a host as the workflow-run use case reads them. The host's whole
 * layout holds more (every store's folder) and travels to the workers as is.
 */
export interface RunDataDirs {
  /** Root of local workflow data (`--data-dir`): the host's configuration store. */
  dataDir: string;
  /** Managed files, including imported MCP file params. */
  fileStoreDir: string;
  /** PersistentValue and the local knowledge base (paused runs, run snapshots). */
  persistentValueStoreDir: string;
  /** The files runs create (each run's `fileCreateDir` is made there when first read). */
  fileCreateStoreDir: string;
  /** Where the host's server login is saved. */
  authDir: string;
}

/** Where a host keeps its data: its whole layout (what the workers get), and the session folder of its runs in it. */
export interface RunFolders {
  dirs: RunDataDirs;
  sessionFolder: string;
}

/** A workflow project found on disk: its folder, manifest and absolute entry module path. */
export interface WorkflowProjectLocation {
  directory: string;
  manifest: WorkflowManifest;
  mainPath: string;
}


/** A checked file param: the real path to copy, its `dev:ino` when checked, and the name to record (the one the client gave). */
export interface FileParamSource {
  path: string;
  name: string;
  /** The checked file's `dev:ino`: the copy refuses another file swapped in under the same path. */
  inode?: string;
}

/** What a host allows file params to import (every path a real path). */
export interface FileParamPolicy {
  /**
   * Directories a client-given file's real path must lie in. A root holding `{tenant}` is
   * expanded per request with the caller's tenant folder segment (`tenantSegment`,
   * app/tenants/tenant-segment.ts). Empty: every file param is refused ({@link FileParamPolicy.noRoots}).
   */
  roots: readonly string[];
  /** The server's own state (real paths): directories and files never imported, even inside a root. */
  denied: readonly string[];
  /** The project folder: its `.env*` files and the files of its `.git` are credentials, denied by inode too (hard links). */
  projectDirs: readonly string[];
  /** Set when `roots` is empty on purpose: the server has several tenants and no `--allow-file-root`. */
  noRoots?: boolean;
}

/** A running watch; `close` stops it (idempotent). `watching` is false when the project was too large. */
export interface ProjectWatch {
  readonly watching: boolean;
  close(): void;
}
