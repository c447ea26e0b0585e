import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { SteamharnessError } from "../../../domain/errors.js";
import { isUuid } from "../../../domain/workflow/project-manifest.js";
import type { ApprovalSweeper } from "../../../app/approvals/approval-sweeper.js";
import type { GovernedToolPermissions } from "../../../app/approvals/governed-tool-permissions.js";
import type { ApprovalStore } from "../../../ports/approval-store.js";
import type { SessionCatalog } from "../../../ports/session-catalog.js";
import type { Storage } from "../../../ports/storage.js";
import type { ServerStateLocation, SurfaceServices } from "../../../ports/surface-services.js";
import type { TextFiles } from "../../../ports/text-files.js";
import { createViewerServer } from "./viewer-server.js";
import { approvalSweepMs, escalationWebhookFrom } from "../shared/escalation-webhook-option.js";

/** The flags of `steamharness view`, as commander parses them. */
export interface ViewFlags {
  /** A project folder (`view <project-dir>`): its `.workflow/agents` sessions and its local store under the data dir. */
  projectDir?: string;
  /** Root of local data for a project folder (default `~/.steamharness`). */
  dataDir?: string;
  store?: string;
  /** A PostgreSQL connection string (`steamharness/postgres`): view its sessions instead of a SQLite store. */
  postgres?: string;
  /** The PostgreSQL schema (default `"steamharness"`). */
  schema?: string;
  agentStoreDir?: string;
  port?: string;
  contextWindow?: string;
  /** Issue 47: answers in the page are decided through a governed adapter of this policy file, in the viewed store. */
  approvalPolicy?: string;
  /** GOV-3: escalations of the viewer's sweeps are POSTed here, HMAC-signed (`--escalation-webhook`). */
  escalationWebhook?: string;
  /** The file holding the webhook's HMAC secret (default: STEAMHARNESS_ESCALATION_WEBHOOK_SECRET). */
  escalationWebhookSecretFile?: string;
}

const integer = (value: string | undefined, field: string, min: number, max: number): number | undefined => {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max) throw new SteamharnessError("input_validation", `--${field} must be an integer from ${min} to ${max}`, { field });
  return number;
};

/**
 * The storage `steamharness view` reads: a SQLite storage directory that must exist (a viewer
 * never creates an empty store). A PostgreSQL flag joins here: open that storage and give the
 * viewer its session catalog (index rows).
 *
 * @example
 * const storage = await openViewStorage({ store: ".steamharness" }, services);
 */
export async function openViewStorage(flags: ViewFlags, services: SurfaceServices): Promise<{ storage: Storage; directory: string }> {
  if (flags.postgres !== undefined) throw new SteamharnessError("input_validation", "a PostgreSQL storage opens asynchronously: use openViewTarget", { field: "postgres" });
  const projectDir = flags.projectDir ?? projectOfSessionFolder(flags);
  if (projectDir !== undefined) return openProjectStorage(projectDir, flags, services);
  const directory = resolve(flags.store ?? ".steamharness");
  if ((await services.textFiles.kind(directory)) === null) throw new SteamharnessError("not_found", `no storage directory at ${directory} (pass --store DIR)`, { field: "store" });
  const agentStoreDir = flags.agentStoreDir === undefined ? undefined : resolve(flags.agentStoreDir);
  if (agentStoreDir !== undefined && (await services.textFiles.kind(agentStoreDir)) === null) throw new SteamharnessError("not_found", `no session folder at ${agentStoreDir}`, { field: "agentStoreDir" });
  return { storage: await services.localStorage({ directory, ...(agentStoreDir === undefined ? {} : { sessionFolder: agentStoreDir }) }), directory };
}

/** `--agent-store-dir <project>/.workflow/agents` alone: that project (DX-6), so no `--store` is needed. */
function projectOfSessionFolder(flags: ViewFlags): string | undefined {
  if (flags.store !== undefined || flags.agentStoreDir === undefined) return undefined;
  const folder = resolve(flags.agentStoreDir);
  if (basename(folder) !== "agents" || basename(dirname(folder)) !== ".workflow") {
    throw new SteamharnessError("input_validation", `--agent-store-dir ${flags.agentStoreDir} is not a project's .workflow/agents folder: pass --store <dir> with it, or the project folder (steamharness view <project-dir>)`, { field: "agentStoreDir" });
  }
  return dirname(dirname(folder));
}

/** DX-18: the command that writes a first session, for this kind of project (a workflow project refuses `chat`). */
function firstSessionHint(projectType: unknown, projectDir: string): string {
  if (projectType === "conversation") return `run \`npx steamharness chat ${projectDir}\` (or serve it with gateway)`;
  if (projectType === "workflow") return `run one of its entrypoints with \`npx steamharness run ${projectDir} <entrypoint>\` (see \`npx steamharness structure ${projectDir}\`), or serve it with \`npx steamharness mcp ${projectDir}\``;
  return `a ${typeof projectType === "string" ? projectType : "plain"} project holds no agent sessions of its own; they come from the conversation or workflow projects that use it`;
}

/**
 * DX-6: the storage of a project folder as the local hosts keep it — sessions in
 * `<project>/.workflow/agents` (or `--agent-store-dir`), the values a page answer is recorded in
 * where that project's host reads them: `<data-dir>/projects/<id>` for a conversation project
 * (`chat`, `gateway`), `<data-dir>/values` for a workflow project (`run`, `mcp`).
 */
async function openProjectStorage(projectDir: string, flags: ViewFlags, services: SurfaceServices): Promise<{ storage: Storage; directory: string }> {
  if (flags.store !== undefined) throw new SteamharnessError("input_validation", "pass either a project folder or --store, not both", { field: "store" });
  const folder = resolve(projectDir);
  const manifestPath = join(folder, "package.json");
  let manifest: { id?: unknown; projectType?: unknown; name?: unknown };
  try {
    manifest = JSON.parse(await services.textFiles.read(manifestPath)) as typeof manifest;
  } catch {
    throw new SteamharnessError("input_validation", `${folder} is not a project: no readable package.json (pass a project folder, or --store <dir>)`, { field: "projectDir" });
  }
  if (typeof manifest.id !== "string" || !isUuid(manifest.id)) {
    throw new SteamharnessError("input_validation", `${manifestPath} has no UUID "id": not a steamharness project`, { field: "projectDir" });
  }
  const agentStoreDir = resolve(flags.agentStoreDir ?? join(folder, ".workflow", "agents"));
  const name = typeof manifest.name === "string" ? manifest.name : manifest.id;
  // A project with no sessions yet is not an error: the page opens on an empty list and fills
  // in live once `chat` (or run / mcp) writes the first session (DX-6).
  if ((await services.textFiles.kind(agentStoreDir)) === null) {
    process.stderr.write(`steamharness: no sessions of ${name} yet (${agentStoreDir}): ${firstSessionHint(manifest.projectType, projectDir)} and they appear here\n`);
  }
  const dataDir = resolve(flags.dataDir ?? join(homedir(), ".steamharness"));
  const directory = manifest.projectType === "workflow" ? join(dataDir, "values") : join(dataDir, "projects", manifest.id);
  return { storage: await services.localStorage({ directory, sessionFolder: agentStoreDir }), directory };
}

/**
 * What `steamharness view` shows: with `--postgres URL`, the PostgreSQL storage (pg loaded only
 * then) and its session catalog (the session index rows); else the SQLite store of
 * {@link openViewStorage} with its folder catalog. `location` is where that storage's approval
 * tables are (issue 47: the store the viewed runs' hosts record approvals in).
 *
 * @example
 * const { storage, catalog } = await openViewTarget({ postgres: "postgres://127.0.0.1/app" }, services);
 */
export async function openViewTarget(flags: ViewFlags, services: SurfaceServices): Promise<{ storage: Storage; catalog?: SessionCatalog; projectNames?: Record<string, string>; location: ServerStateLocation }> {
  if (flags.postgres === undefined) {
    const { storage, directory } = await openViewStorage(flags, services);
    const projectNames = await projectNamesOf(flags.projectDir ?? projectOfSessionFolder(flags), services.textFiles);
    return { storage, ...(projectNames ? { projectNames } : {}), location: { directory } };
  }
  if (flags.store !== undefined || flags.agentStoreDir !== undefined || flags.projectDir !== undefined) throw new SteamharnessError("input_validation", "pass either --postgres or a project folder / --store / --agent-store-dir", { field: "postgres" });
  const schema = flags.schema === undefined ? {} : { schema: flags.schema };
  return { ...(await services.sharedStorage({ connectionString: flags.postgres, ...schema })), location: { directory: resolve(".steamharness"), postgres: flags.postgres, ...schema } };
}

/** The name of the project folder a view opens, by its id (VIEW-8: the list shows names, not ids). */
async function projectNamesOf(projectDir: string | undefined, files: TextFiles): Promise<Record<string, string> | undefined> {
  if (projectDir === undefined) return undefined;
  try {
    const manifest = JSON.parse(await files.read(join(resolve(projectDir), "package.json"))) as { id?: unknown; name?: unknown };
    return typeof manifest.id === "string" && typeof manifest.name === "string" && manifest.name !== "" ? { [manifest.id]: manifest.name } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs `steamharness view` until SIGINT/SIGTERM: prints the URL (token included) and serves.
 *
 * @example
 * await runView({ store: ".steamharness", port: "4477" }, services);
 */
export async function runView(flags: ViewFlags, services: SurfaceServices): Promise<void> {
  const port = integer(flags.port, "port", 0, 65535);
  const contextWindow = integer(flags.contextWindow, "contextWindow", 1, 100_000_000);
  // Checked before anything is opened: a bad policy file leaves nothing to close.
  const policyFile = flags.approvalPolicy === undefined ? undefined : resolve(flags.approvalPolicy);
  const policy = policyFile === undefined ? undefined : await (await import("../../../app/approvals/governed-tool-permissions.js")).readApprovalPolicyFile(services.textFiles, policyFile, "--approval-policy");
  const onEscalation = await escalationWebhookFrom(flags, services);
  const sweepMs = policy === undefined ? undefined : approvalSweepMs();
  const { storage, catalog, projectNames, location } = await openViewTarget(flags, services);
  let approvalStore: ApprovalStore | undefined;
  let sweeper: ApprovalSweeper | undefined;
  try {
    let approvals: GovernedToolPermissions | undefined;
    if (policy) {
      // Issue 47: the store the viewed runs' hosts record approvals in (`run`/`mcp`/`gateway --approval-policy` on the same data dir).
      const [{ createGovernedToolPermissions }, { startApprovalSweeper }] = await Promise.all([import("../../../app/approvals/governed-tool-permissions.js"), import("../../../app/approvals/approval-sweeper.js")]);
      approvalStore = await services.approvalStore(location);
      approvals = createGovernedToolPermissions({ policy, store: approvalStore, clock: { now: () => Date.now() }, ...(onEscalation ? { onEscalation } : {}) });
      // GOV-3: escalations and expiries on time while the viewer runs.
      sweeper = startApprovalSweeper(approvals, { intervalMs: sweepMs, onError: (error) => process.stderr.write(`[steamharness] [approvals] sweep failed: ${error instanceof Error ? error.message : String(error)}\n`) });
    }
    const viewer = await createViewerServer({ storage, ...(catalog ? { catalog } : {}), ...(projectNames ? { projectNames } : {}), ...(port === undefined ? {} : { port }), ...(contextWindow === undefined ? {} : { contextWindow }), ...(approvals ? { approvals } : {}) }, services.localSessionCatalog, services.viewerAssets, services.textFiles);
    process.stdout.write(`steamharness view: ${viewer.url}\n(only this machine can reach it; the token in the URL is required)\n`);
    if (policyFile !== undefined) process.stdout.write(`approvals: governed by ${policyFile} (audit: steamharness audit export ${location.postgres === undefined ? `--store ${location.directory}` : "--postgres <url>"})\n`);
    await new Promise<void>((done) => {
      const stop = () => done();
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
    await viewer.close();
  } finally {
    await sweeper?.stop();
    await approvalStore?.close();
    await storage.close();
  }
}
