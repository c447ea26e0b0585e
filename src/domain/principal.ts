/**
 * TEN-1: who a remote request is. Every request a remote surface accepts (`mcp --http`, the
 * gateway, the configuration server) resolves to one {@link Principal} — or is refused; there is
 * no fallback from one kind of identity to another. Everything a tenant owns (runs, tasks, MCP
 * sessions, conversations, budgets, data) is keyed by `principal.tenant`.
 *
 * Tenant keys are namespaced by the credential's source (`oauth:`, `key:`, `token:`,
 * `account:`), so an OAuth subject can never equal an API-key tenant or an OAuth client id, and
 * two surfaces sharing one store (the gateway and `mcp --http --keys` on one key store) agree on
 * a tenant's key.
 */
import { SteamharnessError } from "./errors.js";
import type { ApiTenantLimits } from "../ports/api-keys.js";

/** The kind of credential a principal was resolved from; the prefix of its tenant key. */
export type PrincipalSource = "oauth" | "key" | "token" | "account";

/** The remote surface a request reached. */
export type PrincipalSurface = "mcp-http" | "gateway" | "config-server";

/** Who a verified remote request is for. */
export interface Principal {
  /** The namespaced tenant key (`oauth:user-42`, `key:acme`): what the request's data and limits belong to. */
  readonly tenant: string;
  /** The person or program within the tenant (OAuth `sub`, the key's id, the account id). */
  readonly subject: string;
  /** The credential that authenticated the request (token client id, API key id, account id); never a secret. */
  readonly credentialId: string;
  readonly source: PrincipalSource;
  readonly surface: PrincipalSurface;
  /** BUD-4: the tenant's limits as its credential's record sets them (an API key's tenant); absent when it sets none. Every route reads them here. */
  readonly limits?: ApiTenantLimits;
}

/** The longest tenant id, subject or credential id accepted (characters). */
const MAX_ID = 256;

/** Control characters, and characters path and key separators treat specially, are not part of an id. */
// eslint-disable-next-line no-control-regex
const UNUSABLE = /[\u0000-\u001f\u007f]/;

/**
 * The id as given when it is a usable identity (a non-empty string of at most 256 characters
 * without control characters), else `undefined`.
 *
 * @example
 * usableId("user-42"); // "user-42"
 * usableId(""); // undefined
 */
export function usableId(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" && value.length <= MAX_ID && !UNUSABLE.test(value) ? value : undefined;
}

/**
 * The namespaced tenant key of a tenant id from `source`.
 *
 * @example
 * tenantKey("oauth", "user-42"); // "oauth:user-42"
 */
export function tenantKey(source: PrincipalSource, id: string): string {
  return `${source}:${id}`;
}

/** What {@link createPrincipal} needs: the raw ids as the credential carried them (checked there). */
export interface PrincipalInput {
  source: PrincipalSource;
  surface: PrincipalSurface;
  /** The tenant id within its source (the claim's value, the key's tenant id, the account id). */
  tenantId: unknown;
  subject: unknown;
  credentialId: unknown;
  /** The tenant's limits, when the credential's record has them. */
  limits?: ApiTenantLimits;
}

/**
 * A principal from a verified credential's ids, or `unauthorized` naming the missing one — never
 * a principal built from a substitute id.
 *
 * @example
 * const principal = createPrincipal({ source: "oauth", surface: "mcp-http", tenantId: payload.sub, subject: payload.sub, credentialId: payload.client_id });
 */
export function createPrincipal(input: PrincipalInput): Principal {
  const tenantId = usableId(input.tenantId);
  const subject = usableId(input.subject);
  const credentialId = usableId(input.credentialId);
  const missing = tenantId === undefined ? "tenant" : subject === undefined ? "subject" : credentialId === undefined ? "credential id" : undefined;
  if (missing) throw new SteamharnessError("unauthorized", `[steamharness] [tenants] the ${input.source} credential names no usable ${missing}`, { data: { source: input.source } });
  return Object.freeze({ tenant: tenantKey(input.source, tenantId!), subject: subject!, credentialId: credentialId!, source: input.source, surface: input.surface, ...(input.limits ? { limits: input.limits } : {}) });
}

/**
 * Whether two principals may see each other's things: the same tenant.
 *
 * @example
 * if (!sameTenant(owner, caller)) throw notFound(); // another tenant's session is "not found"
 */
export function sameTenant(a: Pick<Principal, "tenant">, b: Pick<Principal, "tenant">): boolean {
  return a.tenant === b.tenant;
}

/**
 * The one principal of a single static bearer token (`mcp --http --auth-token-file`, the
 * gateway's `--token`): tenant `token:static`, whatever the surface.
 *
 * @example
 * staticTokenPrincipal("gateway").tenant; // "token:static"
 */
export function staticTokenPrincipal(surface: PrincipalSurface): Principal {
  return createPrincipal({ source: "token", surface, tenantId: "static", subject: "static", credentialId: "static-token" });
}
