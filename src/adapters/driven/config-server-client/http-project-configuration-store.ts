/**
 * The `ProjectConfigurationStore` port over the configuration server's HTTP API (CFG-4): every
 * call is one request to `steamharness server`, which runs it on the account's store, so
 * revisions, conflicts, tombstones and import/export keep the port's rules; the server's typed
 * errors come back as the same `SteamharnessError` (code, field).
 */
import { SERVER_ACCOUNT_HEADER, SERVER_API_PREFIX, projectPath } from "../../../domain/configuration/server-protocol.js";
import { SteamharnessError, type SteamharnessErrorCode } from "../../../domain/errors.js";
import type { ProjectConfigurationStore } from "../../../ports/project-configuration-store.js";

/** How the client proves who it is: an account token, or the admin key acting as an account. */
export type ConfigurationServerCredential = { token: string } | { adminKey: string; account: string };

/** Options of {@link createHttpProjectConfigurationStore}. */
export interface HttpProjectConfigurationStoreOptions {
  /** The server's base URL, `http(s)://host[:port]`. */
  url: string;
  credential: ConfigurationServerCredential;
  /** Milliseconds one request may take (default 30 000). */
  timeoutMs?: number;
  /** The fetch to use (default the global one); passed in, never patched. */
  fetch?: typeof fetch;
}

const CODES = new Set<SteamharnessErrorCode>(["input_validation", "not_found", "conflict", "unauthorized", "forbidden", "unavailable", "timeout", "storage_failure", "rate_limited", "internal"]);

/**
 * Checks and normalises a server URL (http or https, no credentials, no query); `input_validation`
 * with `field` otherwise.
 *
 * @example
 * checkServerUrl("https://config.example.com/") // "https://config.example.com"
 */
export function checkServerUrl(value: string, field = "url"): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SteamharnessError("input_validation", `[steamharness] [config-server-client] "${value}" is not a URL`, { field });
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.username || url.password || url.search || url.hash) {
    throw new SteamharnessError("input_validation", "[steamharness] [config-server-client] the server URL must be http(s)://host[:port][/path] without credentials or query", { field });
  }
  return url.href.replace(/\/+$/, "");
}

/**
 * The client store. Network failures are `unavailable`; answers that are not the protocol's JSON
 * are `internal`.
 *
 * @example
 * const store = createHttpProjectConfigurationStore({ url: "https://config.example.com", credential: { token } });
 * const overview = await store.read(projectId);
 */
export function createHttpProjectConfigurationStore(options: HttpProjectConfigurationStoreOptions): ProjectConfigurationStore {
  const base = checkServerUrl(options.url);
  const call = createServerCall(base, options.credential, options);
  let closed = false;
  const request = <T>(method: string, path: string, body?: unknown): Promise<T> => {
    if (closed) return Promise.reject(new SteamharnessError("storage_failure", "[steamharness] [config-server-client] the configuration store is closed"));
    return call<T>(method, path, body);
  };
  const checkedId = (value: string, field: string) => {
    // An empty id would change the path's shape; the server validates everything else.
    if (typeof value !== "string" || value === "") throw new SteamharnessError("input_validation", `[steamharness] [config-server-client] ${field} must be a non-empty string`, { field });
    return value;
  };
  return {
    read: async (projectId) => request("GET", projectPath(checkedId(projectId, "projectId"))),
    get: async (projectId, id) => (await request<{ configuration: never }>("GET", projectPath(checkedId(projectId, "projectId"), checkedId(id, "configurationId")))).configuration,
    lookup: async (projectId, id) => request("GET", projectPath(checkedId(projectId, "projectId"), checkedId(id, "configurationId"), "lookup")),
    create: async (projectId, input) => request("POST", `${projectPath(checkedId(projectId, "projectId"))}/configurations`, input),
    update: async (projectId, id, input) => request("PATCH", projectPath(checkedId(projectId, "projectId"), checkedId(id, "configurationId")), input),
    delete: async (projectId, id, input) => {
      await request("DELETE", projectPath(checkedId(projectId, "projectId"), checkedId(id, "configurationId")), input);
    },
    select: async (projectId, id, input) => request("POST", projectPath(checkedId(projectId, "projectId"), checkedId(id, "configurationId"), "select"), input),
    setFields: async (projectId, fields, input) => request("PUT", `${projectPath(checkedId(projectId, "projectId"))}/fields`, { fields, expectedRevision: input.expectedRevision }),
    exportProject: async (projectId) => request("GET", `${projectPath(checkedId(projectId, "projectId"))}/export`),
    importProject: async (projectId, document, input) => request("POST", `${projectPath(checkedId(projectId, "projectId"))}/import`, { document, expectedRevision: input.expectedRevision }),
    async close() {
      closed = true;
    },
  };
}

/** One authenticated JSON request to the server; the typed error of a failure. */
export type ServerCall = <T>(method: string, path: string, body?: unknown) => Promise<T>;

/**
 * The request function the client store (and `steamharness login`) use.
 *
 * @example
 * const me = await createServerCall(url, { token })("GET", "/v1/account");
 */
export function createServerCall(base: string, credential: ConfigurationServerCredential, options: { timeoutMs?: number; fetch?: typeof fetch } = {}): ServerCall {
  const doFetch = options.fetch ?? fetch;
  const headers: Record<string, string> = "token" in credential
    ? { authorization: `Bearer ${credential.token}` }
    : { authorization: `Bearer ${credential.adminKey}`, [SERVER_ACCOUNT_HEADER]: credential.account };
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    let response: Response;
    try {
      response = await doFetch(`${base}${path.startsWith(SERVER_API_PREFIX) || path.startsWith("/") ? path : `/${path}`}`, {
        method,
        headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
      });
    } catch (cause) {
      const timedOut = (cause as Error)?.name === "TimeoutError";
      throw new SteamharnessError(timedOut ? "timeout" : "unavailable", `[steamharness] [config-server-client] ${timedOut ? "no answer from" : "cannot reach"} the configuration server ${base}`, { cause });
    }
    const text = await response.text();
    let payload: unknown;
    try {
      payload = text === "" ? null : JSON.parse(text);
    } catch (cause) {
      throw new SteamharnessError("internal", `[steamharness] [config-server-client] ${base} answered ${response.status} with something other than JSON`, { cause });
    }
    if (response.ok) return payload as T;
    const error = (payload as { error?: { code?: unknown; message?: unknown; field?: unknown } } | null)?.error;
    const code = CODES.has(error?.code as SteamharnessErrorCode) ? (error!.code as SteamharnessErrorCode) : "internal";
    const message = typeof error?.message === "string" ? error.message : `[steamharness] [config-server-client] ${base} answered ${response.status}`;
    throw new SteamharnessError(code, message, { ...(typeof error?.field === "string" ? { field: error.field } : {}), data: { status: response.status } });
  };
}
