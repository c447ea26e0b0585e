/**
 * The configuration server (CFG-4, `steamharness server`): project configuration isolated by
 * project and account ("Server 按项目和账号隔离") behind an HTTP API. The admin key creates
 * accounts; each account gets an API token, shown once and stored as its SHA-256. A request
 * names its account by its token (or by the admin key plus the `X-Steamharness-Account`
 * header) and reaches only that account's projects; `POST /v1/account/token` rotates the
 * caller's token (the old one stops working at once). Plain HTTP: put a TLS terminator in front
 * when it leaves the machine (docs/configuration-server.md).
 *
 * TEN-7: requests naming a Host (or Origin) the server does not serve are refused before anything
 * else (DNS rebinding; src/adapters/driving/shared/host-check.ts, shared with the gateway); bodies are
 * read under a size and a nesting limit (413 / 400, src/adapters/driving/shared/json-body.ts); failed
 * authentications are limited per client address (429) after the credential is checked, so a
 * valid one is never locked out. `GET /v1/account/model-credential` issues the account's
 * model-call credential (what `system: true` model entries send, never the account token) and
 * `GET /v1/model-credential` lets a model endpoint verify one; every other route refuses it (403).
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { checkAccountName } from "../../../domain/configuration/accounts.js";
import { SERVER_ACCOUNT_HEADER, SERVER_API_PREFIX, SERVER_ERROR_STATUS } from "../../../domain/configuration/server-protocol.js";
import { SteamharnessError, isSteamharnessError } from "../../../domain/errors.js";
import { listenOn } from "../shared/listen.js";
import type { Clock } from "../../../ports/clock.js";
import type { ConfigurationAccount, ConfigurationAccountStore } from "../../../ports/configuration-accounts.js";
import { createHostCheck } from "../shared/host-check.js";
import { discardBody } from "../shared/json-body.js";
import { createRateLimiter, FAILED_AUTH_LIMIT, type RateLimit } from "../shared/rate-limit.js";
import type { Principal } from "../../../domain/principal.js";
import { bearerOf, callerPrincipal, hashAccountToken, MODEL_CREDENTIAL_PREFIX, modelCredentialOf, newAccountToken, sameSecret, verifiedModelCredential } from "./credentials.js";
import { closeHttpServer, readJsonBody, sendJson } from "./http-json.js";
import { projectRoute } from "./routes.js";

/** Options of {@link startConfigurationServer}. */
export interface ConfigurationServerOptions {
  accounts: ConfigurationAccountStore;
  /** The admin key; without it no account can be created (admin routes answer 403). */
  adminKey?: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** Largest request body in bytes (default 8 MiB). */
  maxBodyBytes?: number;
  /** Host names (or addresses) served besides loopback and `host` (`--allowed-host`). */
  allowedHosts?: readonly string[];
  /** Failed authentications per client address and window before 429 (default {@link FAILED_AUTH_LIMIT}); `false`: no limit. */
  failedAuthLimit?: RateLimit | false;
  clock?: Clock;
  /** Called with every storage fault (the client only learns "unavailable"). */
  onStorageFault?: (error: unknown) => void;
}

/** A running configuration server. */
export interface ConfigurationServer {
  /** `http://<host>:<port>`. */
  url: string;
  port: number;
  /** Stops listening and drops open connections (the account store stays open). */
  close(): Promise<void>;
}

/** A request's caller: how it authenticated, the account it acts for, and its principal (TEN-1). */
type Caller = ({ kind: "admin"; account: ConfigurationAccount | null } | { kind: "account"; account: ConfigurationAccount; tokenHash: string }) & { principal: Principal };

const fail = (code: "unauthorized" | "forbidden" | "not_found", message: string) => new SteamharnessError(code, `[steamharness] [config-server] ${message}`);

/**
 * Starts the server and resolves once it listens.
 *
 * @example
 * const server = await startConfigurationServer({ accounts: createSqliteConfigurationAccounts({ path }), adminKey });
 * console.log(server.url);
 */
export async function startConfigurationServer(options: ConfigurationServerOptions): Promise<ConfigurationServer> {
  const { accounts } = options;
  const adminKey = options.adminKey || undefined;
  if (adminKey !== undefined && !/^[\x21-\x7e]{16,}$/.test(adminKey)) {
    throw new SteamharnessError("input_validation", "[steamharness] [config-server] the admin key must be at least 16 printable ASCII characters", { field: "adminKey" });
  }
  const maxBodyBytes = options.maxBodyBytes ?? 8 * 1024 * 1024;
  const now = () => options.clock?.now() ?? Date.now();
  const hosts = createHostCheck(options.allowedHosts ?? [], "configuration server");
  const failedAuthLimit = options.failedAuthLimit ?? FAILED_AUTH_LIMIT;
  const failures = failedAuthLimit === false ? null : createRateLimiter(failedAuthLimit, now);

  /** An authentication failed: 429 once the address used up its failures, else the 401 given. */
  function failedAuth(request: IncomingMessage, refusal: SteamharnessError): SteamharnessError {
    const wait = failures?.take(request.socket.remoteAddress ?? "unknown") ?? 0;
    if (wait === 0) return refusal;
    return new SteamharnessError("rate_limited", `[steamharness] [config-server] too many failed authentications from this address: try again in ${wait} s`, { data: { retryAfter: wait } });
  }

  async function callerOf(request: IncomingMessage): Promise<Caller> {
    const bearer = bearerOf(request.headers.authorization);
    if (bearer === null) throw failedAuth(request, fail("unauthorized", "send Authorization: Bearer <account token or admin key>"));
    if (adminKey !== undefined && sameSecret(bearer, adminKey)) {
      const named = request.headers[SERVER_ACCOUNT_HEADER];
      if (typeof named !== "string" || named === "") return { kind: "admin", account: null, principal: callerPrincipal("admin", null) };
      const account = await accounts.account(named);
      if (!account) throw fail("not_found", `no account "${named}"`);
      return { kind: "admin", account, principal: callerPrincipal("admin", account.accountId) };
    }
    if (bearer.startsWith(MODEL_CREDENTIAL_PREFIX) && adminKey !== undefined && verifiedModelCredential(adminKey, bearer) !== null) {
      throw fail("forbidden", "a model-call credential cannot read or write configurations: send the account token");
    }
    const tokenHash = hashAccountToken(bearer);
    const account = await accounts.accountByTokenHash(tokenHash);
    if (!account) throw failedAuth(request, fail("unauthorized", "the token is not an account token of this server"));
    return { kind: "account", account, tokenHash, principal: callerPrincipal("account", account.accountId) };
  }

  /** `GET /v1/model-credential`: the account a model-call credential belongs to (for a model endpoint). */
  async function modelCaller(request: IncomingMessage): Promise<{ account: ConfigurationAccount }> {
    const bearer = bearerOf(request.headers.authorization);
    const tokenHash = bearer === null || adminKey === undefined ? null : verifiedModelCredential(adminKey, bearer);
    const account = tokenHash === null ? null : await accounts.accountByTokenHash(tokenHash);
    if (!account) throw failedAuth(request, fail("unauthorized", "send Authorization: Bearer <model-call credential>"));
    return { account };
  }

  async function route(request: IncomingMessage): Promise<{ status: number; body: unknown }> {
    const url = new URL(request.url ?? "/", "http://server");
    const method = request.method ?? "GET";
    const refused = hosts.refusal(request);
    if (refused) throw new SteamharnessError("forbidden", `[steamharness] [config-server] ${refused.message}`, { data: { reason: refused.code } });
    if (url.pathname === "/healthz" && method === "GET") return { status: 200, body: { ok: true } };
    if (url.pathname === `${SERVER_API_PREFIX}/model-credential` && method === "GET") return { status: 200, body: await modelCaller(request) };
    if (!url.pathname.startsWith(`${SERVER_API_PREFIX}/`)) throw fail("not_found", `no route ${method} ${url.pathname}`);
    let segments: string[];
    try {
      segments = url.pathname.slice(SERVER_API_PREFIX.length + 1).split("/").map((segment) => decodeURIComponent(segment));
    } catch {
      throw new SteamharnessError("input_validation", "[steamharness] [config-server] the path is not valid percent-encoding", { field: "path" });
    }
    const caller = await callerOf(request);
    const body = await readJsonBody(request, maxBodyBytes);
    const [resource, ...rest] = segments;
    if (resource === "accounts" && rest.length === 0) {
      if (caller.kind !== "admin") throw fail("forbidden", "accounts are managed with the admin key");
      if (method === "GET") return { status: 200, body: { accounts: await accounts.listAccounts() } };
      if (method === "POST") return { status: 201, body: await createAccount(body) };
    }
    // The caller's own account: read it, or rotate its token.
    const reads = resource === "account" && rest.length === 0 && method === "GET";
    const rotates = resource === "account" && rest.length === 1 && rest[0] === "token" && method === "POST";
    const issues = resource === "account" && rest.length === 1 && rest[0] === "model-credential" && method === "GET";
    if (reads || rotates || issues) {
      if (!caller.account) throw fail("forbidden", `the admin key acts as an account only with the ${SERVER_ACCOUNT_HEADER} header`);
      if (rotates) return { status: 200, body: await rotateToken(caller.account) };
      if (issues) return { status: 200, body: modelCredential(caller) };
      return { status: 200, body: { account: caller.account, via: caller.kind, principal: caller.principal } };
    }
    if (resource === "projects") {
      if (!caller.account) throw fail("forbidden", `project configuration belongs to an account: send an account token, or the admin key with the ${SERVER_ACCOUNT_HEADER} header`);
      const answer = await projectRoute(accounts.configurations(caller.account.accountId), method, rest, body);
      if (answer) return answer;
    }
    throw fail("not_found", `no route ${method} ${url.pathname}`);
  }

  async function createAccount(body: unknown): Promise<{ account: ConfigurationAccount; token: string }> {
    const name = checkAccountName((body as { name?: unknown } | null | undefined)?.name);
    const token = newAccountToken();
    const account = await accounts.createAccount({ accountId: randomUUID(), name, tokenHash: hashAccountToken(token), createdAt: now() });
    return { account, token };
  }

  /** A new token for the account; its hash replaces the old one, which stops working at once. */
  async function rotateToken(account: ConfigurationAccount): Promise<{ account: ConfigurationAccount; token: string }> {
    const token = newAccountToken();
    return { account: await accounts.replaceTokenHash(account.accountId, hashAccountToken(token)), token };
  }

  /**
   * The caller's model-call credential, bound to the token it called with (so rotating the token
   * retires it). Only for an account token: the admin key has no account token to bind to.
   */
  function modelCredential(caller: Caller): { credential: string } {
    if (caller.kind !== "account") throw fail("forbidden", "a model-call credential is issued to an account token, not to the admin key");
    if (adminKey === undefined) throw fail("forbidden", "this server issues no model-call credentials (it runs without an admin key)");
    return { credential: modelCredentialOf(adminKey, caller.tokenHash) };
  }

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      const { status, body } = await route(request);
      sendJson(response, status, body);
    } catch (error) {
      const typed = isSteamharnessError(error) ? error : new SteamharnessError("internal", "[steamharness] [config-server] the request failed unexpectedly", { cause: error });
      if (typed.code === "storage_failure" || typed.code === "internal") options.onStorageFault?.(error);
      // Storage faults tell the caller nothing about paths or SQL; the server's log has the cause.
      const message = typed.code === "storage_failure" ? "[steamharness] [config-server] the configuration storage is unavailable" : typed.message;
      const payload = { error: { code: typed.code === "storage_failure" ? "unavailable" : typed.code, message, ...(typed.field === undefined ? {} : { field: typed.field }) } };
      const headers: Record<string, string> = typed.code === "unauthorized" ? { "www-authenticate": "Bearer" } : {};
      if (typed.code === "rate_limited") headers["retry-after"] = String(typed.data?.retryAfter ?? 60);
      // A body not read is read to its end and dropped before the answer, so the client receives
      // it instead of a reset; it must not stay on a kept-alive connection either.
      if (!request.complete) {
        headers.connection = "close";
        await discardBody(request);
      }
      const status = typeof typed.data?.status === "number" ? typed.data.status : (SERVER_ERROR_STATUS[typed.code] ?? 500);
      sendJson(response, status, payload, headers);
    }
  }

  const server = createServer((request, response) => void serve(request, response));
  server.requestTimeout = 60_000;
  server.headersTimeout = 10_000;
  const host = options.host ?? "127.0.0.1";
  const { port, authority } = await listenOn(server, { hostname: host, port: options.port });
  hosts.allowHost(host);
  return { url: `http://${authority}`, port, close: () => closeHttpServer(server) };
}
