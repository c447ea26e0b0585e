import type { ApiKeyStore } from "./api-keys.js";
import type { ApprovalRequestRecord, ApprovalStore } from "./approval-store.js";
import type { BudgetLedger } from "./budget-ledger.js";
import type { ConfigurationAccountStore } from "./configuration-accounts.js";
import type { McpTaskStore } from "./mcp-task-store.js";
import type { ProjectConfigurationStore } from "./project-configuration-store.js";
import type { HarnessRuntime } from "./runtime.js";
import type { SessionCatalog } from "./session-catalog.js";
import type { Storage } from "./storage.js";
import type { WorkflowRunPorts } from "./workflow-runs.js";
import type { TextFiles } from "./text-files.js";
import type { ViewerAssets } from "./viewer-assets.js";
import type { BrowserPage } from "./browser-page.js";

/** A local project store: a store folder, and where its sessions live (default the store's own). */
export interface LocalStoreLocation {
  /** The store folder (created when missing). */
  directory: string;
  /** The session folder (absolute), beside the store folder. */
  sessionFolder?: string;
}

/** A database several machines share. */
export interface SharedStoreLocation {
  connectionString: string;
  /** The schema (default `steamharness`). */
  schema?: string;
}

/** Where a served project's keys or tasks live: a local folder, or a shared database when `postgres` is given. */
export interface ServerStateLocation {
  directory: string;
  postgres?: string;
  schema?: string;
}

/** The configuration store a surface uses (CFG-1, CFG-4), and where it lives. */
export interface ProjectConfigurationChoice {
  store: ProjectConfigurationStore;
  /** `local` (the data dir) or `server` (the configuration server). */
  location: "local" | "server";
  /**
   * The current account's credential that system model entries are re-authenticated with: in
   * server mode the account's model-call credential (TEN-7: `shm_…`, issued by the server, good for
   * model calls only — never the account token, which can rewrite every configuration of the
   * account); `undefined` locally, when acting through the admin key, or when the server issues none.
   */
  systemApiKey?: string;
  /**
   * DX-13: one line naming the store read — the local file, or the server URL and account — and,
   * when `STEAMHARNESS_SERVER_*` variables hide a saved login, that they take precedence.
   */
  describe(): Promise<string>;
}

/** An opened key store and the ledger of its tenants' budgets (BUD-4), in the same database. */
export interface KeyStore {
  keys: ApiKeyStore;
  budgets: BudgetLedger;
  close(): Promise<void>;
}

/** The saved login of the configuration server (`workflow-auth.json` in an auth dir). */
export interface SavedServerLogin {
  serverUrl?: string;
  token?: string;
  adminKey?: string;
  account?: string;
}

/** The configuration server's client, as the `login`, `logout` and `rotate-token` commands use it. */
export interface ServerLoginClient {
  /** The login file's path in an auth dir. */
  fileOf(authDir: string): Promise<string>;
  /** The saved login, or `null` when there is none; `input_validation` for a malformed file. */
  read(authDir: string): Promise<SavedServerLogin | null>;
  /** Saves a login (temporary file renamed, mode 0600); resolves with the file's path. */
  save(authDir: string, login: SavedServerLogin): Promise<string>;
  /** Removes the saved login; `false` when there was none. */
  remove(authDir: string): Promise<boolean>;
  /** The URL checked (http/https, no credentials); `input_validation` naming `field` otherwise. */
  checkUrl(value: string, field: string): Promise<string>;
  /** One JSON call of the server's API with an account token; rejects with the server's error. */
  call<T>(serverUrl: string, token: string, method: string, path: string): Promise<T>;
}

/**
 * What the composition root hands a driving surface (ARCH-6): the process's runtime and how to
 * open the stores a command names. Each entry builds one per process (the CLI at start, a library
 * factory per call); a surface never opens a driven adapter itself, nor imports the root. Each
 * opener loads its backend (SQLite, PostgreSQL, the server client) on first call.
 */
export interface SurfaceServices {
  /** The process's runtime: built on the first call, with its telemetry (from the environment) set then; the same one afterwards. */
  runtime(): Promise<HarnessRuntime>;
  /** Flushes and stops the runtime's telemetry; a no-op when none was started. Call once, at the process's end. */
  shutdown(): Promise<void>;
  /** A project's local storage (SQLite); the caller closes it. */
  localStorage(location: LocalStoreLocation): Promise<Storage>;
  /** The session folder of a project: `given` resolved, else the project's default (`<project>/.workflow/agents`). */
  sessionFolderOf(projectDir: string, given?: string): string;
  /** The session catalog of a local session folder (the run viewer, VIEW-1). */
  localSessionCatalog(sessionFolder: string): Promise<SessionCatalog>;
  /** A shared database's storage and its session catalog; the caller closes both (the storage's `close` closes the catalog too). */
  sharedStorage(location: SharedStoreLocation): Promise<{ storage: Storage; catalog: SessionCatalog }>;
  /**
   * The project configuration store (CFG-4): the configuration server's client when a login
   * resolves (the environment, then the saved login in `authDir`, default `dataDir`), else the local
   * store under `dataDir`. `input_validation` for a server URL without a credential.
   */
  projectConfiguration(options: { dataDir: string; authDir?: string; env?: Record<string, string | undefined>; modelCredential?: boolean }): Promise<ProjectConfigurationChoice>;
  /** The configuration server's account store (migrated on open). */
  configurationAccounts(storage: { sqlite: string } | { postgres: string; schema?: string }): Promise<ConfigurationAccountStore>;
  /** The API key store of a gateway or an MCP server (BUD-4), with its tenants' budget ledger. */
  keyStore(location: ServerStateLocation): Promise<KeyStore>;
  /** The approval store (GOV-1/7: requests, decisions, the audit chains) of a SQLite store directory or a PostgreSQL database. */
  approvalStore(location: ServerStateLocation): Promise<ApprovalStore>;
  /**
   * GOV-3: an `onEscalation` hook that POSTs each escalation to `url`, HMAC-signed with `secret`
   * and retried (docs/approvals.md). `input_validation` (field `url` or `secret`) for a url that
   * is not http(s) or a secret under 16 characters.
   */
  escalationWebhook(options: { url: string; secret: string }): Promise<(request: ApprovalRequestRecord, group: string) => Promise<void>>;
  /** The durable MCP task store of a served project (MCP-13). */
  mcpTasks(location: ServerStateLocation): Promise<McpTaskStore>;
  /** The configuration server's login client. */
  serverLogin: ServerLoginClient;
  /**
   * ARCH-6 / ARCH-7: the ports the workflow-run use case (src/app/workflow-runs) runs on: worker
   * processes, the project's files (the data-folder layout among them), the stores beside the
   * runs. A surface opens, checks and prunes workflow projects with the use case's
   * `openProjectRunner`, `precheckProjectRunner` and `pruneProjectRuns` on these. Loaded on first
   * use: `--help` and `--version` load none of it.
   */
  workflowRunPorts(): Promise<WorkflowRunPorts>;
  /** The files a command names by a flag (`--admin-key-file`, `config import <file>`, …), read and written whole. */
  textFiles: TextFiles;
  /** The viewer's built pages (the run viewer's page, the MCP card view). */
  viewerAssets: ViewerAssets;
  /**
   * UI-6: the browser chat page `steamharness gateway --ui` serves, built from `directory`
   * (default the package's examples/web-chat). Throws `unavailable` when the folder or its build
   * tools are missing.
   */
  webChatPage(directory?: string): Promise<BrowserPage>;
}
