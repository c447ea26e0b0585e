/**
 * Bearer authorization of the Streamable HTTP endpoint (MCP-11, MCP-12), on the SDK's
 * `requireBearerAuth` middleware so the 401/403 answers and their `WWW-Authenticate` headers are
 * the SDK's. A static token (single-user setups) grants every tool.
 */
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import type { OAuthTokenVerifier } from "@modelcontextprotocol/sdk/server/auth/provider.js";
import { InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";

/** A static bearer token: whoever presents it may list and call every tool. */
export interface McpHttpTokenAuth {
  kind: "token";
  /** The secret clients send as `Authorization: Bearer <token>` (at least 16 characters). */
  token: string;
}

/** How the HTTP endpoint authorizes requests. */
export type McpHttpAuthOptions = McpHttpTokenAuth;

/** A request as the SDK's express app hands it on (parsed body, path without the query). */
export type McpHttpRequest = IncomingMessage & { body?: unknown; path: string; auth?: AuthInfo };
/** An express-style middleware on node's request and response. */
export type McpHttpMiddleware = (req: McpHttpRequest, res: ServerResponse, next: () => void) => void | Promise<void>;

/** A static token never expires; the SDK middleware still wants an expiry, so it gets a far one. */
const NEVER = Number.MAX_SAFE_INTEGER;

function tokenVerifier(expected: string): OAuthTokenVerifier {
  const wanted = Buffer.from(expected);
  return {
    async verifyAccessToken(token) {
      const given = Buffer.from(token);
      if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) throw new InvalidTokenError("Invalid token");
      return { token, clientId: "static-token", scopes: [], expiresAt: NEVER };
    },
  };
}

/**
 * The express middleware that authorizes requests to the MCP path (`path`); other paths pass.
 *
 * @example
 * app.use(authorizationMiddleware({ kind: "token", token }, "/mcp"));
 */
export function authorizationMiddleware(auth: McpHttpAuthOptions, path: string): McpHttpMiddleware {
  const bearer = requireBearerAuth({ verifier: tokenVerifier(auth.token) }) as unknown as McpHttpMiddleware;
  return (req, res, next) => (req.path === path ? bearer(req, res, next) : next());
}
