import { isAbsolute, join, resolve } from "node:path";
import { SteamharnessError } from "../../domain/errors.js";
import { tenantDirectory } from "../tenants/tenant-segment.js";
import type { RelatedProject } from "../../domain/workflow/run-context.js";
import type { WorkflowManifest } from "../../domain/workflow/project-manifest.js";
import { requireConfirmedRelation } from "../../domain/workflow/related-projects.js";
import type { FileParamPolicy, ProjectFiles, WorkflowProjectLocation } from "../../ports/project-files.js";
import type { WorkflowRunPorts } from "./ports.js";

// The command-line side of a workflow host, checked before any project code loads: data dirs
// (MCP-2 / MCP-8) and related projects. Kept free of TypeBox so `steamharness mcp` fails fast.


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
  agentStoreDirFor: WorkflowRunPorts["agentStoreDirFor"];
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

/**
 * TEN-3: the data dirs of one tenant of a host (`mcp --http` with OAuth or API keys): every store
 * a run reads and writes — KV, persistent values and knowledge (paused runs, run snapshots and
 * memories with them), managed files, created files and agent sessions with their run index —
 * in the tenant's folder of that dir, `<dir>/tenants/<segment>` (see `tenantDirectory`). The
 * data dir (the host's configuration store) and the auth dir stay the host's.
 *
 * @example
 * tenantDataDirs(resolveDataDirs({ dataDir: "/srv/sh" }, { home, agentStoreDirFor }), "key:acme").kvStoreDir // "/srv/sh/kv/tenants/key_3aacme"
 */
export function tenantDataDirs(dirs: WorkflowDataDirs, tenant: string): WorkflowDataDirs {
  const scoped = (directory: string) => tenantDirectory(directory, tenant);
  return {
    ...dirs,
    fileStoreDir: scoped(dirs.fileStoreDir),
    kvStoreDir: scoped(dirs.kvStoreDir),
    persistentValueStoreDir: scoped(dirs.persistentValueStoreDir),
    fileCreateStoreDir: scoped(dirs.fileCreateStoreDir),
    agentStoreDir: scoped(dirs.agentStoreDir),
  };
}

const ALIAS = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/**
 * Parses repeated `--related-project alias=/abs/dir` values: the alias is a short identifier,
 * unique; the directory is absolute and holds a workflow project (its id is read, no code runs);
 * and the relation is confirmed on both sides (CFG-5): `self` lists the related project's id in
 * its `package.json` `relatedProjects`, and the related project lists `self`'s id — otherwise
 * `relation_unconfirmed`.
 *
 * @example
 * await parseRelatedProjects(["billing=/srv/projects/billing"], manifest, files)
 * // [{ alias: "billing", projectId: "…", directory: "/srv/projects/billing" }]
 */
export async function parseRelatedProjects(values: readonly string[], self: WorkflowManifest, files: Pick<ProjectFiles, "locate">): Promise<RelatedProject[]> {
  const out: RelatedProject[] = [];
  for (const value of values) {
    const eq = value.indexOf("=");
    const alias = eq > 0 ? value.slice(0, eq) : "";
    const directory = eq > 0 ? value.slice(eq + 1) : "";
    if (!ALIAS.test(alias) || directory === "") {
      throw new SteamharnessError("input_validation", `--related-project expects <alias>=<absolute project dir>, got ${JSON.stringify(value)}`, { field: "--related-project" });
    }
    if (!isAbsolute(directory)) {
      throw new SteamharnessError("input_validation", `--related-project ${alias}: the project dir must be an absolute path, got ${JSON.stringify(directory)}`, { field: "--related-project" });
    }
    if (out.some((project) => project.alias === alias)) {
      throw new SteamharnessError("input_validation", `--related-project alias ${alias} is given twice`, { field: "--related-project" });
    }
    const location = await files.locate(directory);
    requireConfirmedRelation(alias, self, location.manifest, location.directory);
    out.push({ alias, projectId: location.manifest.id, directory: location.directory });
  }
  return out;
}

/** What can be checked about a host without loading project code: project, dirs, related projects, file roots. */
export interface PrecheckedProjectRunner {
  location: WorkflowProjectLocation;
  dirs: WorkflowDataDirs;
  relatedProjects: RelatedProject[];
  /** SEC-5 / TEN-2: the real roots client-given file params must lie in, and the server state never imported. */
  filePolicy: FileParamPolicy;
}

/** What the file-param policy of a host needs beyond its data dirs (TEN-2). */
export interface FileParamHostOptions {
  /** `--allow-file-root` values; `{tenant}` stands for the caller's tenant. */
  allowedFileRoots?: readonly string[];
  /** The host serves several tenants (OAuth, API keys): no default file roots. */
  multiTenant?: boolean;
  /** More of the server's own files and folders never imported (a key store, a token file). */
  serverState?: readonly string[];
}

/**
 * The cheap, fail-fast part of opening a host (no TypeBox, no worker): the manifest, the data
 * dirs (absolute), the related projects (confirmed on both sides, CFG-5) and the file-param
 * policy (`allowedFileRoots`, SEC-5: absolute existing directories; by default the project and
 * the working directory, see `defaultFileRoots`, none for a `multiTenant` host; every data dir
 * and `serverState` path denied, TEN-2). Throws what `createProjectRunner` would.
 *
 * @example
 * const checked = await precheckProjectRunner({ projectDir: "/abs/project", allowedFileRoots: ["/srv/docs"], ports });
 */
export async function precheckProjectRunner(options: { projectDir: string; dirs?: DataDirOptions; relatedProjects?: readonly string[]; ports: Pick<WorkflowRunPorts, "files" | "agentStoreDirFor"> } & FileParamHostOptions): Promise<PrecheckedProjectRunner> {
  const { files, agentStoreDirFor } = options.ports;
  const location = await files.locate(options.projectDir);
  const dirs = resolveDataDirs(options.dirs ?? {}, { home: files.homeDir(), agentStoreDirFor }, location.directory);
  const relatedProjects = await parseRelatedProjects(options.relatedProjects ?? [], location.manifest, files);
  const state = [...Object.values(dirs), ...(options.serverState ?? [])];
  const filePolicy = await files.filePolicy(options.allowedFileRoots, location.directory, state, { multiTenant: options.multiTenant === true });
  return { location, dirs, relatedProjects, filePolicy };
}
