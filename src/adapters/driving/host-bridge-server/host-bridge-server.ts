/**
 * The loopback host-bridge server (CFG-3): the host side of CAP-8, backed by the project
 * configuration store, so `workflow-host_project_configurations` works end to end on one machine.
 *
 * Security, in the order checked: it listens on 127.0.0.1 only (random port by default); a
 * request from any other remote address, with a `Host` other than `127.0.0.1:<port>` (DNS
 * rebinding) or with an `Origin` (a browser page) is refused with 403; then the bearer token is
 * required (401), compared in constant time over SHA-256 digests so neither content nor length
 * leaks. Only `POST` of a JSON object up to 1 MiB to the two protocol paths is served.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { HOST_BRIDGE_PATHS, HOST_BRIDGE_TOKEN_ENV, HOST_BRIDGE_URL_ENV } from "../../../domain/capabilities/host-bridge.js";
import { SteamharnessError, isSteamharnessError, type SteamharnessErrorCode } from "../../../domain/errors.js";
import { listenOn } from "../shared/listen.js";
import type { JsonValue } from "../../../domain/json.js";
import type { ProjectConfigurationStore } from "../../../ports/project-configuration-store.js";
import { handleGet, handleManage, type BridgeBackend, type BridgeStorageLocation } from "./bridge-handlers.js";

/** Options of {@link startHostBridgeServer}. */
export interface HostBridgeServerOptions {
  /** The local configuration store (storage location `local`). */
  store?: ProjectConfigurationStore;
  /** Stores by storage location; `store` is shorthand for `{ local: store }`. */
  stores?: Partial<Record<BridgeStorageLocation, ProjectConfigurationStore>>;
  /** The project `get_configurations` reads when the request names none. */
  defaultProjectId?: string;
  /** The bearer token; default 32 random bytes, base64url. Printable ASCII, at least 16 characters. */
  token?: string;
  /** The port on 127.0.0.1; default 0 (a free port chosen by the system). */
  port?: number;
  /** Largest request body in bytes (default 1 MiB). */
  maxBodyBytes?: number;
}

/** A running bridge. */
export interface HostBridgeServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  token: string;
  /** The two variables a host passes to the agent's process so CAP-8 finds this bridge. */
  env: { [HOST_BRIDGE_URL_ENV]: string; [HOST_BRIDGE_TOKEN_ENV]: string };
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

const STATUS: Partial<Record<SteamharnessErrorCode, number>> = { input_validation: 400, not_found: 404, conflict: 409, unavailable: 503, timeout: 504 };
const LOOPBACK_REMOTES = new Set(["127.0.0.1", "::ffff:127.0.0.1"]);

/**
 * Starts the bridge on 127.0.0.1 and resolves once it listens.
 *
 * @example
 * const bridge = await startHostBridgeServer({ store: createSqliteProjectConfigurationStore({ dataDir }) });
 * spawn("steamharness", ["chat", dir], { env: { ...process.env, ...bridge.env } });
 * await bridge.close();
 */
export async function startHostBridgeServer(options: HostBridgeServerOptions): Promise<HostBridgeServer> {
  const stores = { ...(options.store ? { local: options.store } : {}), ...options.stores };
  if (Object.keys(stores).length === 0) throw new SteamharnessError("input_validation", "[steamharness] [host-bridge] give a configuration store", { field: "store" });
  const token = options.token ?? randomBytes(32).toString("base64url");
  if (!/^[\x21-\x7e]{16,}$/.test(token)) {
    throw new SteamharnessError("input_validation", "[steamharness] [host-bridge] the token must be at least 16 printable ASCII characters", { field: "token" });
  }
  const backend: BridgeBackend = { stores, ...(options.defaultProjectId === undefined ? {} : { defaultProjectId: options.defaultProjectId }) };
  const expectedDigest = digest(`Bearer ${token}`);
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  let port = 0;
  const server = createServer((request, response) => {
    serve(request, response).catch(() => send(response, 500, failure("internal", "the bridge failed unexpectedly")));
  });
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!LOOPBACK_REMOTES.has(request.socket.remoteAddress ?? "")) return refuse(response, 403, "only loopback clients are served");
    if (request.headers.host !== `127.0.0.1:${port}`) return refuse(response, 403, "unexpected Host header");
    if (request.headers.origin !== undefined) return refuse(response, 403, "browser requests are not served");
    if (!timingSafeEqual(digest(request.headers.authorization ?? ""), expectedDigest)) {
      return refuse(response, 401, "missing or wrong bearer token", { "www-authenticate": "Bearer" });
    }
    const handler = request.url === HOST_BRIDGE_PATHS.get ? handleGet : request.url === HOST_BRIDGE_PATHS.manage ? handleManage : undefined;
    if (!handler) return refuse(response, 404, "unknown path", {}, "not_found");
    if (request.method !== "POST") return refuse(response, 405, "only POST is served", { allow: "POST" }, "input_validation");
    if (!/^application\/json\b/i.test(request.headers["content-type"] ?? "")) return refuse(response, 415, "send application/json", {}, "input_validation");
    const body = await readBody(request, maxBodyBytes);
    if (body === "too large") return refuse(response, 413, `the body is larger than ${maxBodyBytes} bytes`, {}, "input_validation");
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return refuse(response, 400, "the body is not JSON", {}, "input_validation");
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return refuse(response, 400, "the body must be a JSON object", {}, "input_validation");
    try {
      send(response, 200, await handler(backend, parsed));
    } catch (error) {
      if (!isSteamharnessError(error)) throw error;
      // Storage faults say nothing about paths or SQL to the caller; the host's logs have the cause.
      if (error.code === "storage_failure") return send(response, 503, failure("unavailable", "the configuration storage is unavailable"));
      send(response, STATUS[error.code] ?? 500, failure(error.code, error.message.replace(/^\[steamharness\] \[configuration\] /, ""), error.field));
    }
  }

  ({ port } = await listenOn(server, { hostname: "127.0.0.1", port: options.port, exclusive: true }));
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    token,
    env: { [HOST_BRIDGE_URL_ENV]: url, [HOST_BRIDGE_TOKEN_ENV]: token },
    close: () => closeServer(server),
  };
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

function failure(code: string, message: string, field?: string): JsonValue {
  return { error: field === undefined ? { code, message } : { code, message, field } };
}

function refuse(response: ServerResponse, status: number, message: string, headers: Record<string, string> = {}, code = "unavailable"): void {
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
  // A refused request's connection is not kept: nothing else should arrive on it.
  response.setHeader("connection", "close");
  send(response, status, failure(code, message));
}

function send(response: ServerResponse, status: number, payload: JsonValue): void {
  if (response.headersSent) return;
  const text = JSON.stringify(payload);
  response.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text), "cache-control": "no-store" });
  response.end(text);
}

async function readBody(request: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(request.headers["content-length"] ?? "0");
  if (declared > limit) return "too large";
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) return "too large";
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
