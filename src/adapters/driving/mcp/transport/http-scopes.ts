/**
 * Which OAuth scopes an MCP request needs (MCP-12): `read` for the handshake, listings, reads
 * and notifications; `run` for `tools/call`, or the tool's own scopes when the policy names it.
 * A JSON-RPC batch needs the union.
 */
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { SteamharnessError } from "../../../../domain/errors.js";

const Scopes = Type.Array(Type.String({ minLength: 1, pattern: "^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$" }), { minItems: 1 });

/** The scopes-config file's shape (`--oauth-scopes-config`). */
export const McpScopePolicySchema = Type.Object(
  {
    /** Scopes of everything but `tools/call`. */
    read: Scopes,
    /** Scopes of `tools/call` of a tool `tools` does not name. */
    run: Scopes,
    /** Scopes of `tools/call` per tool name (instead of `run`). */
    tools: Type.Optional(Type.Record(Type.String({ minLength: 1 }), Scopes)),
  },
  { additionalProperties: false },
);

/** Scopes per kind of request and per tool. */
export type McpScopePolicy = Static<typeof McpScopePolicySchema>;

/** The default split: `mcp:read` to connect and list, `mcp:run` to call any tool. */
export const DEFAULT_MCP_SCOPES: McpScopePolicy = { read: ["mcp:read"], run: ["mcp:run"] };

/**
 * Checks a parsed scopes-config document; `input_validation` naming the first wrong field otherwise.
 *
 * @example
 * parseScopePolicy({ read: ["mcp:read"], run: ["mcp:run"], tools: { deploy: ["deploy"] } })
 */
export function parseScopePolicy(value: unknown): McpScopePolicy {
  if (Value.Check(McpScopePolicySchema, value)) return value;
  const first = [...Value.Errors(McpScopePolicySchema, value)][0];
  throw new SteamharnessError("input_validation", `[steamharness] [mcp] the scopes config is invalid at ${first?.path || "/"}: ${first?.message ?? "invalid"} (expected { "read": [...], "run": [...], "tools"?: { "<tool>": [...] } })`, {
    field: "--oauth-scopes-config",
  });
}

/** Every scope a policy names (what the protected-resource metadata lists as supported). */
export function scopesOfPolicy(policy: McpScopePolicy = DEFAULT_MCP_SCOPES): string[] {
  return [...new Set([...policy.read, ...policy.run, ...Object.values(policy.tools ?? {}).flat()])];
}

/**
 * The scopes one POST body (a JSON-RPC message or batch) needs; a body-less request (GET's
 * stream, DELETE) needs `read`.
 *
 * @example
 * scopesOfRequest({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo" } }) // ["mcp:run"]
 */
export function scopesOfRequest(body: unknown, policy: McpScopePolicy = DEFAULT_MCP_SCOPES): string[] {
  const messages = Array.isArray(body) ? body : [body];
  const needed = new Set<string>();
  for (const message of messages) {
    const call = message as { method?: unknown; params?: { name?: unknown } } | null;
    if (call?.method === "tools/call") {
      const name = typeof call.params?.name === "string" ? call.params.name : "";
      for (const scope of (Object.hasOwn(policy.tools ?? {}, name) ? policy.tools![name] : undefined) ?? policy.run) needed.add(scope);
    } else for (const scope of policy.read) needed.add(scope);
  }
  return [...needed].sort();
}
