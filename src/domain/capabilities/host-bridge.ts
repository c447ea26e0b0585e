/**
 * The host bridge of CAP-8: a loopback HTTP service the host injects so the agent can read and
 * manage the host's project configurations. The capability exists only when both
 * `STEAMHARNESS_DEVELOPER_ASSISTANT_HOST_BRIDGE_URL` and `…_TOKEN` are set and the URL is exactly
 * `http://127.0.0.1[:port][/]` — the literal address, not another spelling of loopback
 * (`localhost`, `[::1]`, `127.1`, `0x7f000001`, `127.0.0.1.`), so no resolver, proxy or URL
 * normaliser can route the token elsewhere. The domain never reads the process environment itself: callers pass
 * the environment record.
 *
 * Wire protocol (ours; the bridge server of CFG-3 implements it):
 * - `POST <url>/v1/configurations/get` with a JSON body
 *   `{ storageLocation?, projectId?, configurationId? }` → 200 with a JSON object (the host's
 *   configurations, each with `configurationId`, `revision`, values; and the current id).
 * - `POST <url>/v1/configurations/manage` with a JSON body
 *   `{ operation: "create"|"update"|"delete"|"select", storageLocation, projectId,
 *   configurationId, revision, name?, values? }` → 200 with a JSON object (the configuration
 *   after the change, with its new revision).
 * - Every request carries `Authorization: Bearer <token>` and `Content-Type: application/json`;
 *   redirects are never followed.
 * - Failures answer non-2xx with `{ "error": { "code", "message" } }`; `code` is a steamharness
 *   error code (`conflict` for a stale revision, `not_found`, `input_validation`, …); 401/403
 *   become `unavailable`.
 */
import { SteamharnessError } from "../errors.js";
import type { JsonValue } from "../json.js";

/** Environment variable holding the bridge URL. */
export const HOST_BRIDGE_URL_ENV = "STEAMHARNESS_DEVELOPER_ASSISTANT_HOST_BRIDGE_URL";
/** Environment variable holding the bridge bearer token. */
export const HOST_BRIDGE_TOKEN_ENV = "STEAMHARNESS_DEVELOPER_ASSISTANT_HOST_BRIDGE_TOKEN";

/** The bridge endpoints, relative to the bridge URL. */
export const HOST_BRIDGE_PATHS = {
  get: "/v1/configurations/get",
  manage: "/v1/configurations/manage",
} as const;

/** A usable bridge address: the normalised origin (no trailing slash) and the token. */
export interface HostBridgeConfig {
  url: string;
  token: string;
}

/** The bridge configuration, or why it is unavailable. */
export type HostBridgeResolution = { ok: true; config: HostBridgeConfig } | { ok: false; reason: string };

/** The client port the capability talks to; `src/adapters/host-bridge` implements it over HTTP. */
export interface HostBridgeClient {
  /** POSTs `body` to `path` (one of {@link HOST_BRIDGE_PATHS}); resolves the JSON answer or throws a `SteamharnessError`. */
  post(path: string, body: { [key: string]: JsonValue }, signal?: AbortSignal): Promise<JsonValue>;
}

const LOOPBACK_URL = /^http:\/\/127\.0\.0\.1(?::([1-9][0-9]{0,4}))?\/?$/;

/**
 * Reads the bridge URL and token from an environment record and checks them. Never throws.
 *
 * @example
 * resolveHostBridge({ STEAMHARNESS_DEVELOPER_ASSISTANT_HOST_BRIDGE_URL: "http://127.0.0.1:4567", STEAMHARNESS_DEVELOPER_ASSISTANT_HOST_BRIDGE_TOKEN: "t0ken" })
 * // { ok: true, config: { url: "http://127.0.0.1:4567", token: "t0ken" } }
 */
export function resolveHostBridge(env: Readonly<Record<string, string | undefined>>): HostBridgeResolution {
  const url = env[HOST_BRIDGE_URL_ENV];
  const token = env[HOST_BRIDGE_TOKEN_ENV];
  if (url === undefined || url === "") return { ok: false, reason: `${HOST_BRIDGE_URL_ENV} is not set` };
  if (token === undefined || token === "") return { ok: false, reason: `${HOST_BRIDGE_TOKEN_ENV} is not set` };
  const urlProblem = hostBridgeUrlProblem(url);
  if (urlProblem) return { ok: false, reason: urlProblem };
  if (!/^[\x21-\x7e]+$/.test(token)) return { ok: false, reason: `${HOST_BRIDGE_TOKEN_ENV} must be printable ASCII without spaces` };
  return { ok: true, config: { url: url.replace(/\/$/, ""), token } };
}

/**
 * Why `url` is not an acceptable bridge address, or `null` when it is `http://127.0.0.1[:port][/]`
 * with a port from 1 to 65535. The reason never repeats the URL (it may hold credentials).
 *
 * @example
 * hostBridgeUrlProblem("http://127.0.0.1:8080") // null
 * hostBridgeUrlProblem("http://localhost:8080") // "…must be exactly http://127.0.0.1[:port]…"
 */
export function hostBridgeUrlProblem(url: string): string | null {
  const expected = `${HOST_BRIDGE_URL_ENV} must be exactly http://127.0.0.1[:port] (a credential-free loopback address)`;
  const match = LOOPBACK_URL.exec(url);
  if (!match) {
    if (/^[a-z][a-z0-9+.-]*:\/\/[^/]*@/i.test(url)) return `${HOST_BRIDGE_URL_ENV} must not contain credentials; ${expected}`;
    return expected;
  }
  if (match[1] !== undefined && Number(match[1]) > 65535) return `${HOST_BRIDGE_URL_ENV} has an invalid port; ${expected}`;
  return null;
}

/**
 * Throws `unavailable` with the reason when the bridge cannot be used.
 *
 * @example
 * const config = requireHostBridge(resolveHostBridge(env));
 */
export function requireHostBridge(resolution: HostBridgeResolution): HostBridgeConfig {
  if (resolution.ok) return resolution.config;
  throw new SteamharnessError("unavailable", `host configuration is unavailable: ${resolution.reason}`);
}
