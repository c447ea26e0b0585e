/**
 * The composition root's choice of project configuration store (CFG-1, CFG-4): the local SQLite
 * store under the data dir, or — when a server login resolves (the `STEAMHARNESS_SERVER_*`
 * variables first, then the saved login in the auth dir) — the configuration server's client.
 * Every surface (CLI `config`, `chat`, `gateway`, workflow workers) opens its store here.
 */
import { SteamharnessError } from "../domain/errors.js";
import type { ConfigurationAccountStore } from "../ports/configuration-accounts.js";
import type { ProjectConfigurationChoice } from "../ports/surface-services.js";
import { SERVER_ACCOUNT_ENV, SERVER_ADMIN_KEY_ENV, SERVER_API_PREFIX, SERVER_TOKEN_ENV, SERVER_URL_ENV } from "../domain/configuration/server-protocol.js";
import { checkServerUrl, createHttpProjectConfigurationStore, createServerCall, type ConfigurationServerCredential } from "../adapters/driven/config-server-client/http-project-configuration-store.js";
import { readSavedAuth, resolveServerAuth, savedAuthPath, type ResolvedServerAuth } from "../adapters/driven/config-server-client/server-auth.js";

/** Options of {@link openProjectConfigurationStore}. */
export interface OpenConfigurationStoreOptions {
  /** The local data dir (the local store is `<dataDir>/configurations.sqlite`). */
  dataDir: string;
  /**
   * Where `workflow-auth.json` is saved; default `dataDir`. `null`: read no saved login (a
   * workflow worker, whose host already resolved it into the worker's environment).
   */
  authDir?: string | null;
  /** The process environment (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** The project's `.env` values, below the process environment. */
  projectEnv?: Record<string, string>;
  /** Ask the server for the model-call credential of system model entries (default true; `config` commands need none). */
  modelCredential?: boolean;
}

/** The store a surface uses, where it lives, and the login it resolved. */
export interface ConfigurationStoreChoice extends ProjectConfigurationChoice {
  auth: ResolvedServerAuth;
}

/**
 * The credential of a resolved login, or `input_validation` naming what is missing.
 *
 * @example
 * credentialOf({ source: "saved", serverUrl, token }) // { token }
 */
export function credentialOf(auth: ResolvedServerAuth): ConfigurationServerCredential {
  if (auth.token) return { token: auth.token };
  if (auth.adminKey && auth.account) return { adminKey: auth.adminKey, account: auth.account };
  const hint = auth.adminKey ? "STEAMHARNESS_SERVER_ADMIN_KEY needs STEAMHARNESS_SERVER_ACCOUNT (the account it acts as)" : "set STEAMHARNESS_SERVER_TOKEN or run `steamharness login --server <url> --token <token>`";
  throw new SteamharnessError("input_validation", `[steamharness] [config-server-client] the configuration server ${auth.serverUrl} is chosen (${auth.source}) but no credential is: ${hint}`, { field: "STEAMHARNESS_SERVER_TOKEN" });
}

/**
 * Opens the configuration store a surface uses: the server's client when a login with a URL
 * resolves, else the local SQLite store. Throws `input_validation` for a server URL without a
 * credential (never a silent fall back to the local store).
 *
 * @example
 * const { store, location } = await openProjectConfigurationStore({ dataDir, authDir });
 */
export async function openProjectConfigurationStore(options: OpenConfigurationStoreOptions): Promise<ConfigurationStoreChoice> {
  const env = options.env ?? process.env;
  const auth = resolveServerAuth(env, options.projectEnv ?? {}, options.authDir === null ? null : await readSavedAuth(options.authDir ?? options.dataDir));
  const where = { dataDir: options.dataDir, authDir: options.authDir ?? options.dataDir };
  const described = (choice: Omit<ConfigurationStoreChoice, "describe">): ConfigurationStoreChoice => ({ ...choice, describe: () => configurationStoreLine(choice, where, env) });
  if (auth.serverUrl) {
    const credential = credentialOf(auth);
    const url = checkServerUrl(auth.serverUrl, "STEAMHARNESS_SERVER_URL");
    const store = createHttpProjectConfigurationStore({ url, credential });
    const systemApiKey = "token" in credential && options.modelCredential !== false ? await modelCredentialOf(url, credential) : undefined;
    return described({ store, location: "server", auth, ...(systemApiKey === undefined ? {} : { systemApiKey }) });
  }
  const { createSqliteProjectConfigurationStore } = await import("../adapters/driven/sqlite/configuration/sqlite-project-configuration-store.js");
  return described({ store: createSqliteProjectConfigurationStore({ dataDir: options.dataDir }), location: "local", auth });
}

/**
 * The account's model-call credential from the server (`GET /v1/account/model-credential`), or
 * `undefined` when the server issues none or cannot be asked (system entries then keep their
 * saved `apiKeyRef`; the store's own calls report an unreachable server).
 */
async function modelCredentialOf(url: string, credential: ConfigurationServerCredential): Promise<string | undefined> {
  const answer = await createServerCall(url, credential, { timeoutMs: 10_000 })<{ credential?: unknown }>("GET", `${SERVER_API_PREFIX}/account/model-credential`).catch(() => null);
  return typeof answer?.credential === "string" ? answer.credential : undefined;
}

/**
 * DX-13: the line naming the store a command reads (`config`, `chat`, `gateway`) — the local SQLite file, or the
 * server URL and the account — and, when `STEAMHARNESS_SERVER_*` variables hide a saved login,
 * that they win over it (an admin key exported for `steamharness server` does, even without a URL).
 *
 * @example
 * process.stderr.write(`${await configurationStoreLine(choice, { dataDir, authDir })}\n`);
 * // [steamharness] configuration store: server https://config.example.com as account team-a (saved login /home/me/.steamharness/workflow-auth.json)
 */
export async function configurationStoreLine(choice: Omit<ConfigurationStoreChoice, "describe">, where: { dataDir: string; authDir: string | null }, env: Record<string, string | undefined> = process.env): Promise<string> {
  const savedPath = where.authDir === null ? "(none read)" : savedAuthPath(where.authDir);
  const { auth } = choice;
  let store: string;
  if (choice.location === "local") {
    const { projectConfigurationDatabasePath } = await import("../adapters/driven/sqlite/configuration/sqlite-project-configuration-store.js");
    store = `local ${projectConfigurationDatabasePath(where.dataDir)}`;
  } else {
    // A token names its account only on the server: ask it (the command talks to it anyway).
    const account = auth.token
      ? await createServerCall(auth.serverUrl!, { token: auth.token }, { timeoutMs: 10_000 })<{ account: { name: string } }>("GET", `${SERVER_API_PREFIX}/account`).then(({ account: { name } }) => name, () => "of the token")
      : auth.account;
    store = `server ${auth.serverUrl} as account ${account} (${auth.source === "saved" ? `saved login ${savedPath}` : "STEAMHARNESS_SERVER_* variables"})`;
  }
  const saved = auth.source === "environment" && where.authDir !== null ? await readSavedAuth(where.authDir).catch(() => null) : null;
  if (!saved?.serverUrl) return `[steamharness] configuration store: ${store}`;
  const names = SERVER_VARIABLES.filter((name) => env[name]).join(", ");
  const hint = choice.location === "local" ? `; unset ${names} to use the saved login` : "";
  return `[steamharness] configuration store: ${store}; the environment's ${names} take precedence over the saved login ${savedPath} (${saved.serverUrl})${hint}`;
}

const SERVER_VARIABLES = [SERVER_URL_ENV, SERVER_TOKEN_ENV, SERVER_ADMIN_KEY_ENV, SERVER_ACCOUNT_ENV];
/** Where the configuration server keeps its data: one SQLite file or a PostgreSQL database. */
export type ConfigurationServerStorage = { sqlite: string } | { postgres: string; schema?: string };

/**
 * Opens the configuration server's account store (accounts and their projects), migrating it.
 *
 * @example
 * const accounts = await openConfigurationAccounts({ sqlite: "/srv/steamharness/server.sqlite" });
 */
export async function openConfigurationAccounts(storage: ConfigurationServerStorage): Promise<ConfigurationAccountStore> {
  if ("sqlite" in storage) {
    const { createSqliteConfigurationAccounts } = await import("../adapters/driven/sqlite/configuration/sqlite-project-configuration-store.js");
    return createSqliteConfigurationAccounts({ path: storage.sqlite });
  }
  const { createPostgresConfigurationAccounts } = await import("../adapters/driven/postgres/postgres-sql-driver.js");
  return createPostgresConfigurationAccounts({ connectionString: storage.postgres, ...(storage.schema ? { schema: storage.schema } : {}) });
}
