/**
 * The configuration server (CFG-4, `steamharness server`): project configuration isolated by
 * project and account ("Server 按项目和账号隔离") behind an HTTP API. The admin key creates
 * accounts; each account gets an API token, shown once and stored as its SHA-256. A request
 * names its account by its token (or by the admin key plus the `X-Steamharness-Account`
 * header) and reaches only that account's projects; `POST /v1/account/token` rotates the
 * caller's token (the old one stops working at once). Plain HTTP: put a TLS terminator in front
 * when it leaves the machine (docs/configuration-server.md).
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { checkAccountName } from "../../../domain/configuration/accounts.js";
import { SERVER_ACCOUNT_HEADER, SERVER_API_PREFIX, SERVER_ERROR_STATUS } from "../../../domain/configuration/server-protocol.js";
import { SteamharnessError, isSteamharnessError } from "../../../domain/errors.js";
import type { Clock } from "../../../ports/clock.js";
import type { ConfigurationAccount, ConfigurationAccountStore } from "../../../ports/configuration-accounts.js";
import type { Principal } from "../../../domain/principal.js";
import { bearerOf, callerPrincipal, hashAccountToken, newAccountToken, sameSecret } from "./credentials.js";
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
type Caller = ({ kind: "admin"; account: ConfigurationAccount | null } | { kind: "account"; account: ConfigurationAccount }) & { principal: Principal };

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

  async function callerOf(request: IncomingMessage): Promise<Caller> {
    const bearer = bearerOf(request.headers.authorization);
    if (bearer === null) throw fail("unauthorized", "send Authorization: Bearer <account token or admin key>");
    if (adminKey !== undefined && sameSecret(bearer, adminKey)) {
      const named = request.headers[SERVER_ACCOUNT_HEADER];
      if (typeof named !== "string" || named === "") return { kind: "admin", account: null, principal: callerPrincipal("admin", null) };
      const account = await accounts.account(named);
      if (!account) throw fail("not_found", `no account "${named}"`);
      return { kind: "admin", account, principal: callerPrincipal("admin", account.accountId) };
    }
    const account = await accounts.accountByTokenHash(hashAccountToken(bearer));
    if (!account) throw fail("unauthorized", "the token is not an account token of this server");
    return { kind: "account", account, principal: callerPrincipal("account", account.accountId) };
  }

  async function route(request: IncomingMessage): Promise<{ status: number; body: unknown }> {
    const url = new URL(request.url ?? "/", "http://server");
    const method = request.method ?? "GET";
    if (url.pathname === "/healthz" && method === "GET") return { status: 200, body: { ok: true } };
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
    if (reads || rotates) {
      if (!caller.account) throw fail("forbidden", `the admin key acts as an account only with the ${SERVER_ACCOUNT_HEADER} header`);
      if (rotates) return { status: 200, body: await rotateToken(caller.account) };
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
      // A request whose body was not read must not leave it on a kept-alive connection.
      if (!request.complete) headers.connection = "close";
      sendJson(response, SERVER_ERROR_STATUS[typed.code] ?? 500, payload, headers);
    }
  }

  const server = createServer((request, response) => void serve(request, response));
  server.requestTimeout = 60_000;
  server.headersTimeout = 10_000;
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port: options.port ?? 0, host }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return { url: `http://${shownHost}:${port}`, port, close: () => closeHttpServer(server) };
}
