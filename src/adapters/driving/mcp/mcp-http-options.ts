import { resolve } from "node:path";
import { Option, type Command } from "commander";
import { SteamharnessError } from "../../../domain/errors.js";
import type { TextFiles } from "../../../ports/text-files.js";
import { defaultKeyStoreDirectory } from "../shared/key-store-directory.js";
import { wholeNumber } from "../shared/option-parsers.js";
import type { McpHttpKeyStore } from "./serve-workflow-http.js";
import type { McpHttpAuthOptions } from "./transport/http-auth.js";
import type { McpScopePolicy } from "./transport/http-scopes.js";

// The `--http` flags of `steamharness mcp` (MCP-11, MCP-12): parsed here, served by
// ./serve-workflow-http.ts. Nothing here loads the MCP SDK.

/** Commander's parsed values of the HTTP flags. */
export interface McpHttpFlags {
  http?: boolean;
  host?: string;
  port?: number;
  path?: string;
  allowedHost?: string[];
  allowedOrigin?: string[];
  authTokenFile?: string;
  oauthIssuer?: string;
  oauthAudience?: string;
  oauthScopesConfig?: string;
  postgres?: string;
  postgresSchema?: string;
  taskLeaseMs?: number;
  tenantConcurrency?: number;
  oauthTenantClaim?: string;
  keys?: boolean;
  store?: string;
  keyCacheMs?: number;
  maxSessionsPerTenant?: number;
  /** The `--data-dir` of the command: the default key store is `<data-dir>/gateway`. */
  dataDir?: string;
}

/** The shortest static token accepted: anything shorter is guessable. */
export const MIN_STATIC_TOKEN_LENGTH = 16;

const repeatable = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/**
 * Adds `--http` and the flags that only mean something with it to `steamharness mcp`.
 *
 * @example
 * addMcpHttpOptions(program.command("mcp"));
 */
export function addMcpHttpOptions(command: Command): Command {
  return command
    .option("--http", "serve over Streamable HTTP instead of stdio (prints the endpoint's URL on stderr)")
    .option("--host <address>", "with --http: the address to bind (default 127.0.0.1; a non-loopback address needs --auth-token-file, --keys or --oauth-issuer)")
    .addOption(new Option("--port <n>", "with --http: the port (0-65535, default 3000; 0 picks a free one)").argParser(wholeNumber(0, 65_535)))
    .option("--path <path>", "with --http: the MCP endpoint's path (default /mcp)")
    .addOption(new Option("--allowed-host <name>", "with --http: a host name the Host header may name, e.g. a load balancer's (repeatable)").argParser(repeatable))
    .addOption(new Option("--allowed-origin <origin>", "with --http: an origin browsers may call from, e.g. https://app.example.com (repeatable)").argParser(repeatable))
    .option("--auth-token-file <file>", `with --http: require "Authorization: Bearer <token>", the token being this file's content (at least ${MIN_STATIC_TOKEN_LENGTH} characters)`)
    .option("--oauth-issuer <url>", "with --http: accept OAuth access tokens (JWT) of this authorization server (its metadata names the JWKS); needs --oauth-audience")
    .option("--oauth-audience <url>", "with --http: this endpoint's public URL, which tokens must name as their audience (e.g. https://mcp.example.com/mcp)")
    .option("--oauth-tenant-claim <claim>", "with --oauth-issuer: the access-token claim naming the caller's tenant (fair worker turns, tenant budgets; default sub, else the client id)")
    .option("--oauth-scopes-config <file>", 'with --http: JSON scopes per request kind and tool: { "read": ["mcp:read"], "run": ["mcp:run"], "tools": { "<tool>": ["..."] } } (that split is the default)')
    .option("--postgres <url>", "with --http: keep MCP tasks in this PostgreSQL database (postgres://…), so several hosts serving the project share them (default: the project's SQLite data store)")
    .option("--postgres-schema <name>", "with --postgres: the schema of the task table (default steamharness)")
    .addOption(new Option("--task-lease-ms <n>", "with --http: how long a host's claim on a running task lasts without renewal; a live host takes a dead owner's task over (or fails it) within about 1.6 times it (1000-600000, default 15000)").argParser(wholeNumber(1000, 600_000)))
    .option("--keys", "with --http: accept the API keys of the gateway's key store (steamharness gateway keys add); the key's tenant is the caller's, each tools/call admitted against its limits. Keys are in --store, or in --postgres when given")
    .option("--store <dir>", "with --keys: the SQLite store directory of the keys (default <data-dir>/gateway, as for steamharness gateway)")
    .addOption(new Option("--key-cache-ms <ms>", "with --keys: how long a verified key is trusted: the bound within which a revocation reaches this host (default 2000)").argParser(wholeNumber(0, 3_600_000)))
    .addOption(new Option("--max-sessions-per-tenant <n>", "with --http and authorization: the most open MCP sessions one tenant holds; opening more closes that tenant's least recently used one, never another tenant's (1-1000, default 100)").argParser(wholeNumber(1, 1000)))
    .addOption(new Option("--tenant-concurrency <n>", "with --http: the most tool calls one tenant (OAuth subject, or the static token) runs at once, so it leaves the other workers to other tenants; waiting calls take turns across tenants either way (1-64, default: no cap)").argParser(wholeNumber(1, 64)));
}

/** The HTTP serving options of the parsed flags, or null for stdio; HTTP flags without `--http` are an `input_validation` error. */
export async function mcpHttpOptionsFrom(flags: McpHttpFlags, files: TextFiles): Promise<{ host?: string; port?: number; path?: string; allowedHosts?: string[]; allowedOrigins?: string[]; auth?: McpHttpAuthOptions; postgres?: string; postgresSchema?: string; taskLeaseMs?: number; tenantConcurrency?: number; keys?: McpHttpKeyStore; maxSessionsPerTenant?: number } | null> {
  const given = (["host", "port", "path", "allowedHost", "allowedOrigin", "authTokenFile", "oauthIssuer", "oauthAudience", "oauthScopesConfig", "oauthTenantClaim", "postgres", "postgresSchema", "taskLeaseMs", "tenantConcurrency", "keys", "store", "keyCacheMs", "maxSessionsPerTenant"] as const).filter((key) => flags[key] !== undefined);
  if (!flags.http) {
    if (given.length === 0) return null;
    const flag = `--${given[0]!.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
    throw new SteamharnessError("input_validation", `[steamharness] [mcp] ${flag} only applies with --http`, { field: flag });
  }
  let auth: McpHttpAuthOptions | undefined;
  if (flags.authTokenFile !== undefined) {
    let token: string;
    try {
      token = (await files.read(flags.authTokenFile)).trim();
    } catch (error) {
      throw new SteamharnessError("input_validation", `[steamharness] [mcp] cannot read --auth-token-file ${flags.authTokenFile}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { field: "--auth-token-file", cause: error });
    }
    if (token.length < MIN_STATIC_TOKEN_LENGTH || /\s/.test(token)) {
      throw new SteamharnessError("input_validation", `[steamharness] [mcp] the token in --auth-token-file must be at least ${MIN_STATIC_TOKEN_LENGTH} characters with no spaces`, { field: "--auth-token-file" });
    }
    auth = { kind: "token", token };
  }
  if (flags.oauthIssuer !== undefined || flags.oauthAudience !== undefined || flags.oauthScopesConfig !== undefined || flags.oauthTenantClaim !== undefined) {
    if (auth) throw new SteamharnessError("input_validation", "[steamharness] [mcp] --auth-token-file and --oauth-issuer are alternatives: pass one", { field: "--oauth-issuer" });
    if (flags.oauthIssuer === undefined || flags.oauthAudience === undefined) {
      throw new SteamharnessError("input_validation", "[steamharness] [mcp] OAuth needs both --oauth-issuer <url> and --oauth-audience <url>", { field: flags.oauthIssuer === undefined ? "--oauth-issuer" : "--oauth-audience" });
    }
    for (const [flag, value] of [["--oauth-issuer", flags.oauthIssuer], ["--oauth-audience", flags.oauthAudience]] as const) {
      if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) throw new SteamharnessError("input_validation", `[steamharness] [mcp] ${flag} must be an http(s) URL, got ${JSON.stringify(value)}`, { field: flag });
    }
    if (flags.oauthTenantClaim !== undefined && !/^\S+$/.test(flags.oauthTenantClaim)) throw new SteamharnessError("input_validation", `[steamharness] [mcp] --oauth-tenant-claim must be a claim name, got ${JSON.stringify(flags.oauthTenantClaim)}`, { field: "--oauth-tenant-claim" });
    auth = {
      kind: "oauth",
      issuer: flags.oauthIssuer,
      audience: flags.oauthAudience,
      ...(flags.oauthScopesConfig !== undefined ? { scopes: await scopesConfig(flags.oauthScopesConfig, files) } : {}),
      ...(flags.oauthTenantClaim !== undefined ? { tenantClaim: flags.oauthTenantClaim } : {}),
    };
  }
  if (!flags.keys && (flags.store !== undefined || flags.keyCacheMs !== undefined)) {
    const flag = flags.store !== undefined ? "--store" : "--key-cache-ms";
    throw new SteamharnessError("input_validation", `[steamharness] [mcp] ${flag} only applies with --keys`, { field: flag });
  }
  if (flags.keys && auth) throw new SteamharnessError("input_validation", "[steamharness] [mcp] --keys and --auth-token-file/--oauth-issuer are alternatives: pass one", { field: "--keys" });
  if (flags.keys && flags.store !== undefined && flags.postgres !== undefined) throw new SteamharnessError("input_validation", "[steamharness] [mcp] with --keys, give --store or --postgres, not both", { field: "--store" });
  const keys: McpHttpKeyStore | undefined = flags.keys
    ? {
        directory: flags.store === undefined ? defaultKeyStoreDirectory(flags.dataDir) : resolve(flags.store),
        ...(flags.postgres !== undefined ? { postgres: postgresUrl(flags.postgres) } : {}),
        ...(flags.postgresSchema !== undefined ? { schema: flags.postgresSchema } : {}),
        ...(flags.keyCacheMs !== undefined ? { cacheMs: flags.keyCacheMs } : {}),
      }
    : undefined;
  if (flags.postgresSchema !== undefined && flags.postgres === undefined) throw new SteamharnessError("input_validation", "[steamharness] [mcp] --postgres-schema only applies with --postgres", { field: "--postgres-schema" });
  return {
    ...(flags.host !== undefined ? { host: flags.host } : {}),
    ...(flags.port !== undefined ? { port: flags.port } : {}),
    ...(flags.path !== undefined ? { path: flags.path } : {}),
    ...(flags.allowedHost ? { allowedHosts: flags.allowedHost } : {}),
    ...(flags.allowedOrigin ? { allowedOrigins: flags.allowedOrigin } : {}),
    ...(auth ? { auth } : {}),
    ...(flags.postgres !== undefined ? { postgres: postgresUrl(flags.postgres) } : {}),
    ...(flags.postgresSchema !== undefined ? { postgresSchema: flags.postgresSchema } : {}),
    ...(flags.taskLeaseMs !== undefined ? { taskLeaseMs: flags.taskLeaseMs } : {}),
    ...(flags.tenantConcurrency !== undefined ? { tenantConcurrency: flags.tenantConcurrency } : {}),
    ...(keys ? { keys } : {}),
    ...(flags.maxSessionsPerTenant !== undefined ? { maxSessionsPerTenant: flags.maxSessionsPerTenant } : {}),
  };
}

/** The scopes policy of `--oauth-scopes-config` (TypeBox loads only here). */
async function scopesConfig(file: string, files: TextFiles): Promise<McpScopePolicy> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await files.read(file));
  } catch (error) {
    throw new SteamharnessError("input_validation", `[steamharness] [mcp] cannot read --oauth-scopes-config ${file}: ${(error as Error)?.message ?? String(error)}`, { field: "--oauth-scopes-config", cause: error });
  }
  const { parseScopePolicy } = await import("./transport/http-scopes.js");
  return parseScopePolicy(parsed);
}

/** `--postgres` must be a postgres:// or postgresql:// URL. */
function postgresUrl(value: string): string {
  if (URL.canParse(value) && /^postgres(ql)?:$/.test(new URL(value).protocol)) return value;
  throw new SteamharnessError("input_validation", "[steamharness] [mcp] --postgres must be a postgres:// or postgresql:// URL", { field: "--postgres" });
}
