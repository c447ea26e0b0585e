/**
 * The configuration server's wire protocol (CFG-4), shared by the server (`steamharness server`)
 * and its client adapter: paths, headers, the variables that select it and the mapping between
 * error codes and HTTP statuses. Every body is JSON; a failure is `{ "error": { code, message,
 * field? } }` and the client rethrows it as the same typed error.
 */
import type { SteamharnessErrorCode } from "../errors.js";

/** The server URL a host uses instead of its local configuration store. */
export const SERVER_URL_ENV = "STEAMHARNESS_SERVER_URL";
/** The admin key: creates accounts; with {@link SERVER_ACCOUNT_ENV} it also acts as that account. */
export const SERVER_ADMIN_KEY_ENV = "STEAMHARNESS_SERVER_ADMIN_KEY";
/** An account's API token (what `steamharness login` saves). */
export const SERVER_TOKEN_ENV = "STEAMHARNESS_SERVER_TOKEN";
/** The account (id or name) the admin key acts as. */
export const SERVER_ACCOUNT_ENV = "STEAMHARNESS_SERVER_ACCOUNT";
/** The request header naming the account an admin-key request acts as. */
export const SERVER_ACCOUNT_HEADER = "x-steamharness-account";
/** The API version prefix of every path. */
export const SERVER_API_PREFIX = "/v1";

/** HTTP status of each error code the server answers with (anything else: 500). */
export const SERVER_ERROR_STATUS: Partial<Record<SteamharnessErrorCode, number>> = {
  input_validation: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  unavailable: 503,
  storage_failure: 503,
  timeout: 504,
};

/**
 * The path of a project (and optionally one of its configurations, and an action on it), each
 * id percent-encoded so any id the store accepts travels intact.
 *
 * @example
 * projectPath("p 1", "main", "select") // "/v1/projects/p%201/configurations/main/select"
 */
export function projectPath(projectId: string, configurationId?: string, action?: "lookup" | "select"): string {
  let path = `${SERVER_API_PREFIX}/projects/${encodeURIComponent(projectId)}`;
  if (configurationId !== undefined) path += `/configurations/${encodeURIComponent(configurationId)}`;
  if (action !== undefined) path += `/${action}`;
  return path;
}
