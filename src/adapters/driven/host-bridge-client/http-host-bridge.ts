/**
 * The HTTP client of the host bridge (CAP-8), on the global `fetch`. It re-checks the address
 * (the token goes to `http://127.0.0.1[:port]` and nowhere else), refuses redirects (a redirect
 * could carry the bearer header away), and maps the bridge's answers to steamharness errors.
 * The wire protocol is documented in `src/domain/capabilities/host-bridge.ts`.
 */
import { SteamharnessError, type SteamharnessErrorCode } from "../../../domain/errors.js";
import { isJsonValue, type JsonValue } from "../../../domain/json.js";
import { HOST_BRIDGE_PATHS, hostBridgeUrlProblem, type HostBridgeClient, type HostBridgeConfig } from "../../../domain/capabilities/host-bridge.js";

/** Options of {@link createHttpHostBridge}. */
export interface HttpHostBridgeOptions extends HostBridgeConfig {
  /** Per-request timeout in milliseconds (default 15000). */
  timeoutMs?: number;
  /** The fetch to use (default the global `fetch`). */
  fetch?: typeof fetch;
}

const KNOWN_CODES: readonly SteamharnessErrorCode[] = ["input_validation", "not_found", "conflict", "unavailable", "approval_denied", "timeout", "internal"];
const ALLOWED_PATHS: readonly string[] = Object.values(HOST_BRIDGE_PATHS);

/**
 * A host-bridge client posting JSON with the bearer token.
 *
 * @example
 * const bridge = createHttpHostBridge({ url: "http://127.0.0.1:4567", token });
 * const configurations = await bridge.post("/v1/configurations/get", {});
 */
export function createHttpHostBridge(options: HttpHostBridgeOptions): HostBridgeClient {
  const problem = hostBridgeUrlProblem(options.url);
  if (problem) throw new SteamharnessError("unavailable", `host configuration is unavailable: ${problem}`);
  const base = options.url.replace(/\/$/, "");
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 15_000;
  return {
    async post(path, body, signal) {
      if (!ALLOWED_PATHS.includes(path)) throw new SteamharnessError("input_validation", `unknown host bridge path ${path}`);
      const timeout = AbortSignal.timeout(timeoutMs);
      const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
      let response: Response;
      try {
        response = await doFetch(`${base}${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${options.token}`, "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify(body),
          redirect: "error",
          signal: combined,
        });
      } catch (error) {
        if (signal?.aborted) throw new SteamharnessError("cancelled", "host bridge request was cancelled", { cause: error });
        if (timeout.aborted) throw new SteamharnessError("timeout", `host bridge did not answer within ${timeoutMs} ms`, { cause: error });
        throw new SteamharnessError("unavailable", "host bridge is unreachable", { cause: error });
      }
      const payload = await readJson(response);
      if (response.ok) return payload;
      throw bridgeError(response.status, payload);
    },
  };
}

async function readJson(response: Response): Promise<JsonValue> {
  const text = await response.text();
  if (text === "") return null;
  try {
    const value: unknown = JSON.parse(text);
    return isJsonValue(value) ? value : null;
  } catch {
    if (!response.ok) return null;
    throw new SteamharnessError("unavailable", `host bridge answered ${response.status} with a body that is not JSON`);
  }
}

function bridgeError(status: number, payload: JsonValue): SteamharnessError {
  if (status === 401 || status === 403) return new SteamharnessError("unavailable", `host bridge refused the token (HTTP ${status})`);
  const error = payload !== null && typeof payload === "object" && !Array.isArray(payload) ? payload.error : undefined;
  const record = error !== null && typeof error === "object" && !Array.isArray(error) ? error : {};
  const code = KNOWN_CODES.find((known) => known === record.code) ?? (status === 404 ? "not_found" : status === 409 ? "conflict" : "unavailable");
  const message = typeof record.message === "string" ? record.message : `host bridge answered HTTP ${status}`;
  const field = typeof record.field === "string" ? record.field : undefined;
  return new SteamharnessError(code, message, { ...(field ? { field } : {}), data: { status } });
}
