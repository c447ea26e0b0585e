/**
 * The services a driving surface is handed (ARCH-6): built once per process by the entry (the
 * CLI at start) or per call by a library factory, and passed down as options. Every opener loads
 * its backend on first call, so a command that opens nothing loads no storage module (cold start).
 */
import type { SessionCatalog } from "../ports/session-catalog.js";
import type { SurfaceServices } from "../ports/surface-services.js";
import { agentStoreDirFor } from "../adapters/driven/sqlite/sessions/session-file-names.js";
import { openGatewayKeyStore } from "./api-keys.js";
import { openMcpTaskStore } from "./mcp-tasks.js";
import { openProcessRuntime, type ProcessRuntime } from "./telemetry.js";
import { localTextFiles } from "../adapters/driven/system/text-files.js";
import { localViewerAssets } from "../adapters/driven/system/viewer-assets.js";

/**
 * The services of one process (or one library call): its runtime is built on first use, with
 * telemetry from `env`.
 *
 * @example
 * const services = createSurfaceServices(process.env);
 * const storage = await services.localStorage({ directory: ".steamharness" });
 * await services.shutdown();
 */
export function createSurfaceServices(env: Readonly<Record<string, string | undefined>> = process.env): SurfaceServices {
  let opened: Promise<ProcessRuntime> | null = null;
  const configuration = () => import("./configuration-store.js");
  const client = () => import("../adapters/driven/config-server-client/server-auth.js");
  const http = () => import("../adapters/driven/config-server-client/http-project-configuration-store.js");
  return {
    runtime: async () => (await (opened ??= openProcessRuntime(env))).runtime,
    shutdown: async () => void (await (await opened)?.shutdown()),
    async localStorage(location) {
      const { createSqliteStorage } = await import("../adapters/driven/sqlite/store/sqlite-storage.js");
      return createSqliteStorage({ directory: location.directory, ...(location.sessionFolder === undefined ? {} : { agentStoreDir: location.sessionFolder }) });
    },
    sessionFolderOf: agentStoreDirFor,
    localSessionCatalog: openLocalSessionCatalog,
    async sharedStorage(location) {
      const [{ createPostgresStorage }, { createPostgresSessionCatalog }] = await Promise.all([import("../adapters/driven/postgres/postgres-storage.js"), import("../adapters/driven/postgres/sessions/postgres-session-catalog.js")]);
      const connection = { connectionString: location.connectionString, ...(location.schema === undefined ? {} : { schema: location.schema }) };
      const storage = await createPostgresStorage(connection);
      const catalog = createPostgresSessionCatalog(connection);
      return { storage: { ...storage, close: async () => void (await Promise.all([catalog.close(), storage.close()])) }, catalog };
    },
    projectConfiguration: async (options) => (await configuration()).openProjectConfigurationStore(options),
    configurationAccounts: async (storage) => (await configuration()).openConfigurationAccounts(storage),
    keyStore: openGatewayKeyStore,
    approvalStore: async (location) => (await import("./approvals.js")).openApprovalStore(location),
    escalationWebhook: async (options) => (await import("../adapters/driven/system/escalation-webhook.js")).createEscalationWebhook(options),
    mcpTasks: openMcpTaskStore,
    workflowRunPorts: async () => (await import("./workflow-runs.js")).workflowRunPorts(),
    textFiles: localTextFiles,
    viewerAssets: localViewerAssets,
    webChatPage: async (directory) => (await import("../adapters/driven/system/web-chat-page.js")).bundleWebChatPage(directory),
    serverLogin: {
      fileOf: async (authDir) => (await client()).authFileOf(authDir),
      read: async (authDir) => (await client()).readSavedAuth(authDir),
      save: async (authDir, login) => (await client()).saveAuth(authDir, login),
      remove: async (authDir) => (await client()).removeSavedAuth(authDir),
      checkUrl: async (value, field) => (await http()).checkServerUrl(value, field),
      call: async <T>(serverUrl: string, token: string, method: string, path: string) => (await http()).createServerCall(serverUrl, { token })<T>(method, path),
    },
  };
}

/**
 * The catalog of a local (SQLite) session folder, loading the SQLite adapter on first call.
 *
 * @example
 * const catalog = await openLocalSessionCatalog("/srv/project/.workflow/agents");
 */
export async function openLocalSessionCatalog(sessionFolder: string): Promise<SessionCatalog> {
  const { createSqliteSessionCatalog } = await import("../adapters/driven/sqlite/sessions/sqlite-session-catalog.js");
  return createSqliteSessionCatalog({ agentStoreDir: sessionFolder });
}
