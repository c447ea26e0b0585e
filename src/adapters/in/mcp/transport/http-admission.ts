/**
 * Tenant admission of `tools/call` requests over Streamable HTTP (BUD-4), for API-key auth:
 * after the key is verified, every `tools/call` message of the POST is admitted against the key's
 * tenant (request rate, token-rate window, concurrency slot, budget) by the surface-neutral engine
 * of src/app/tenants. Other requests (`initialize`, `tools/list`, `ping`, notifications, the SSE
 * GET) are not counted: they run nothing.
 *
 * A refusal answers the POST with HTTP 429 and a JSON-RPC error whose `data.code` is the gateway's
 * code: `rate_limit_exceeded` (with `Retry-After`) or `insufficient_quota` (the tenant budget is
 * spent; no `Retry-After`). The concurrency slot is held until the POST's response ends — for a
 * plain call that is the end of its run; a task-augmented call (MCP tasks) answers at once, so it
 * holds the slot only while it is being created.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { TenantAdmissionError, type TenantAdmission, type TenantAdmissions } from "../../../../app/tenants/tenant-admission.js";
import type { ApiTenant } from "../../../../ports/api-keys.js";

/** The request as the bearer check hands it on (the same shape as http-auth.ts's `McpHttpRequest`). */
type AuthorizedRequest = IncomingMessage & { body?: unknown; auth?: AuthInfo };
/** An express-style middleware (http-auth.ts's `McpHttpMiddleware`; not imported, to keep the files acyclic). */
type Middleware = (req: AuthorizedRequest, res: ServerResponse, next: (error?: unknown) => void) => Promise<void>;

/** The JSON-RPC error code of a refused admission (implementation-defined server error range). */
export const ADMISSION_REFUSED_CODE = -32029;

type JsonRpcMessage = { method?: unknown; id?: unknown };

/** The `tools/call` messages of a POST body (one message or a batch). */
function toolCalls(body: unknown): JsonRpcMessage[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.filter((message): message is JsonRpcMessage => typeof message === "object" && message !== null && (message as JsonRpcMessage).method === "tools/call");
}

function refuse(res: ServerResponse, error: TenantAdmissionError, id: unknown): void {
  const budget = error.kind === "budget";
  const headers: Record<string, string> = { "content-type": "application/json", ...(budget ? {} : { "retry-after": String(error.retryAfterSeconds) }) };
  res.writeHead(429, headers).end(JSON.stringify({ jsonrpc: "2.0", error: { code: ADMISSION_REFUSED_CODE, message: error.reason, data: error.wire }, id: id ?? null }));
}

/**
 * The middleware admitting the `tools/call` messages of a key-authorized request (it runs after
 * the bearer check, which put the key's tenant in `req.auth.extra.apiTenant`).
 *
 * @example
 * const admit = admitToolCalls(createTenantAdmission({ keys, budgets, cacheMs: 2000, slotTtlMs: 30_000, now: Date.now }));
 */
export function admitToolCalls(admission: TenantAdmissions): Middleware {
  return async (req, res, next) => {
    const tenant = req.auth?.extra?.apiTenant as ApiTenant | undefined;
    const calls = req.method === "POST" && tenant ? toolCalls(req.body) : [];
    if (calls.length === 0) return next();
    const admitted: TenantAdmission[] = [];
    for (const call of calls) {
      try {
        admitted.push(await admission.admit(tenant!));
      } catch (error) {
        await Promise.all(admitted.map((one) => one.finish(0)));
        if (error instanceof TenantAdmissionError) return refuse(res, error, call.id);
        return next(error);
      }
    }
    // Tokens are not charged here: the run's worker charges each settled model call to the tenant's window (BUD-4).
    res.once("close", () => void Promise.all(admitted.map((one) => one.finish(0))));
    next();
  };
}
