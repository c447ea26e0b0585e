import { isAbsolute } from "node:path";
import { SteamharnessError } from "../../domain/errors.js";
import { tenantDirectory } from "../tenants/tenant-segment.js";
import type { RelatedProject } from "../../domain/workflow/run-context.js";
import type { WorkflowManifest } from "../../domain/workflow/project-manifest.js";
import { requireConfirmedRelation } from "../../domain/workflow/related-projects.js";
import type { FileParamPolicy, ProjectFiles, RunDataDirs, RunFolderOptions, WorkflowProjectLocation } from "../../ports/project-files.js";
import type { WorkflowRunIndex } from "../../ports/workflow-run-stores.js";
import type { WorkflowRunPorts } from "../../ports/workflow-runs.js";

// The command-line side of a workflow host the use case reads, checked before any project code
// loads: related projects, file roots, tenants' dirs. Kept free of TypeBox so `steamharness mcp` fails fast.


/** The dirs a host keeps for itself, never per tenant (its configuration store, its login). */
const HOST_DIRS = new Set(["dataDir", "authDir"]);

/**
 * TEN-3: the data dirs of one tenant of a host (`mcp --http` with OAuth or API keys): every store
 * a run reads and writes — KV, persistent values and knowledge (paused runs, run snapshots and
 * memories with them), managed files, created files and agent sessions with their run index —
 * in the tenant's folder of that dir, `<dir>/tenants/<segment>` (see `tenantDirectory`). The
 * data dir (the host's configuration store) and the auth dir stay the host's.
 *
 * @example
 * tenantDataDirs(files.dataFolders({ dataDir: "/srv/sh" }, projectDir).dirs, "key:acme").fileStoreDir // "/srv/sh/files/tenants/key_3aacme"
 */
export function tenantDataDirs<Dirs extends RunDataDirs>(dirs: Dirs, tenant: string): Dirs {
  // Every dir but the host's own two is the tenant's (the session folder among them).
  return Object.fromEntries(Object.entries(dirs).map(([name, directory]) => [name, HOST_DIRS.has(name) ? directory : tenantDirectory(directory, tenant)])) as Dirs;
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

/** What can be checked about a host without loading project code: project, dirs, related projects, file roots ({@link precheckProjectRunner}). */
export interface PrecheckedProjectRunner {
  location: WorkflowProjectLocation;
  dirs: RunDataDirs;
  /**
   * SES-12 / TEN-3: the opener of the run index of the host's runs, or of `dataTenant`'s; the
   * opener returns `undefined` while there is no index to open (no session folder yet).
   */
  runIndexOf(dataTenant?: string): () => Promise<WorkflowRunIndex> | undefined;
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

/** Options of {@link precheckProjectRunner}: the project, the data folders its command names, related projects and file roots. */
export interface PrecheckOptions extends FileParamHostOptions {
  projectDir: string;
  dirs?: RunFolderOptions;
  relatedProjects?: readonly string[];
  ports: Pick<WorkflowRunPorts, "files" | "stores">;
}

/**
 * The cheap, fail-fast part of opening a host (no TypeBox, no worker): the manifest, the data
 * dirs (absolute), the related projects (confirmed on both sides, CFG-5) and the file-param
 * policy (`allowedFileRoots`, SEC-5: absolute existing directories; by default the project and
 * the working directory, none for a `multiTenant` host; every data dir and `serverState` path
 * denied, TEN-2). Throws what `createProjectRunner` would.
 *
 * @example
 * const checked = await precheckProjectRunner({ projectDir: "/abs/project", allowedFileRoots: ["/srv/docs"], ports });
 */
export async function precheckProjectRunner(options: PrecheckOptions): Promise<PrecheckedProjectRunner> {
  const { files, stores } = options.ports;
  const location = await files.locate(options.projectDir);
  const { dirs, sessionFolder } = files.dataFolders(options.dirs ?? {}, location.directory);
  const relatedProjects = await parseRelatedProjects(options.relatedProjects ?? [], location.manifest, files);
  const state = [...Object.values(dirs), ...(options.serverState ?? [])];
  const filePolicy = await files.filePolicy(options.allowedFileRoots, location.directory, state, { multiTenant: options.multiTenant === true });
  // SES-12: a run's sessions are indexed in its session folder, opened once the folder exists
  // (a project whose runs have no agents gets no `.workflow/agents` from it). TEN-3: a tenant's
  // is its folder of the session folder, as tenantDataDirs places it.
  const runIndexOf = (dataTenant?: string) => {
    const folder = dataTenant === undefined ? sessionFolder : tenantDirectory(sessionFolder, dataTenant);
    return () => (files.exists(folder) ? stores.openRunIndex(folder) : undefined);
  };
  return { location, dirs, relatedProjects, filePolicy, runIndexOf };
}
