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
 * plain call that is the end of its run. A task-augmented call (MCP tasks) answers at once while
 * its run goes on (TEN-5): its slot is handed to the `tools/call` handler ({@link takeTaskSlot}),
 * which hands it to the task's run; the run frees it when it ends or waits for input, and an
 * answer that resumes it takes a slot again ({@link acquireRunSlot}) or is refused.
 */
import { ProtocolError, type AuthInfo } from "@modelcontextprotocol/server";
import { TenantAdmissionError, type TenantAdmission, type TenantAdmissions } from "../../../../app/tenants/tenant-admission.js";
import type { ApiTenant } from "../../../../ports/api-keys.js";

/** The JSON-RPC error code of a refused admission (implementation-defined server error range). */
export const ADMISSION_REFUSED_CODE = -32029;

type JsonRpcMessage = { method?: unknown; id?: unknown; params?: { task?: unknown } };

/** A tenant's concurrency slot held by a task's run (TEN-5): freed when the run ends or waits; idempotent. */
export interface RunSlot {
  release(): Promise<void>;
}

/** What the admission leaves in `AuthInfo.extra` of a key-authorized request, for the handlers. */
interface SlotHandOver {
  /** The slot admitted for the task-augmented `tools/call` of that JSON-RPC id (taken once). */
  take(id: unknown): RunSlot | undefined;
  /** Admits one more run of the request's tenant (a paused task resumed by an answer). */
  admit(): Promise<RunSlot>;
}

const HAND_OVER = "steamharnessRunSlots";
const handOverOf = (auth: AuthInfo | undefined) => auth?.extra?.[HAND_OVER] as SlotHandOver | undefined;

/**
 * The concurrency slot admitted for the task-augmented `tools/call` with JSON-RPC id `id`, now
 * the caller's to release (the task's run holds it); undefined without key admission.
 *
 * @example
 * const slot = takeTaskSlot(extra.authInfo, extra.requestId);
 */
export function takeTaskSlot(auth: AuthInfo | undefined, id: string | number): RunSlot | undefined {
  return handOverOf(auth)?.take(id);
}

/**
 * Admits a resumed run of the request's key tenant (its concurrency, rate and budget, as a new
 * call); resolves undefined without key admission. A tenant at a limit is refused with the
 * JSON-RPC error a refused call gets ({@link ADMISSION_REFUSED_CODE}, `data` its wire type and
 * code, and `retryAfterSeconds` for a rate), its message followed by `then`.
 *
 * @example
 * const slot = await acquireRunSlot(extra.authInfo, "The task still waits for this answer.");
 */
export async function acquireRunSlot(auth: AuthInfo | undefined, then: string): Promise<RunSlot | undefined> {
  try {
    return await handOverOf(auth)?.admit();
  } catch (error) {
    if (!(error instanceof TenantAdmissionError)) throw error;
    throw new ProtocolError(ADMISSION_REFUSED_CODE, `${error.reason} ${then}`, { ...error.wire, ...(error.kind === "budget" ? {} : { retryAfterSeconds: error.retryAfterSeconds }) });
  }
}

const slotOf = (admitted: TenantAdmission): RunSlot => ({ release: () => admitted.finish(0) });

/** Whether a `tools/call` asks for a task (its run outlives the response). */
const isTaskCall = (message: JsonRpcMessage) => typeof message.params?.task === "object" && message.params.task !== null;

/** The `tools/call` messages of a POST body (one message or a batch). */
function toolCalls(body: unknown): JsonRpcMessage[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.filter((message): message is JsonRpcMessage => typeof message === "object" && message !== null && (message as JsonRpcMessage).method === "tools/call");
}

function refusal(error: TenantAdmissionError, id: unknown): Response {
  const budget = error.kind === "budget";
  const headers: Record<string, string> = { "content-type": "application/json", ...(budget ? {} : { "retry-after": String(error.retryAfterSeconds) }) };
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: ADMISSION_REFUSED_CODE, message: error.reason, data: error.wire }, id: id ?? null }), { status: 429, headers });
}

/**
 * Admits the `tools/call` messages of a key-authorized request (`auth` from the bearer check, with
 * the key's tenant in `auth.extra.apiTenant`): resolves to the refusal to answer (429), or to the
 * function that frees the admitted slots once the response ends. It also leaves the hand-over of
 * task slots in `auth.extra` for the handlers.
 *
 * @example
 * const admit = admitToolCalls(createTenantAdmission({ keys, budgets, cacheMs: 2000, slotTtlMs: 30_000, now: Date.now }));
 * const admitted = await admit(auth, "POST", body);
 * if (admitted instanceof Response) return admitted;
 * res.once("close", admitted);
 */
export function admitToolCalls(admission: TenantAdmissions): (auth: AuthInfo, method: string | undefined, body: unknown) => Promise<Response | (() => void)> {
  const nothing = () => undefined;
  return async (auth, method, body) => {
    const tenant = auth.extra?.apiTenant as ApiTenant | undefined;
    if (!tenant) return nothing;
    // Slots of task-augmented calls, by JSON-RPC id, until their handler takes them.
    const handed = new Map<unknown, TenantAdmission>();
    const handOver: SlotHandOver = {
      take(id) {
        const admitted = handed.get(id);
        handed.delete(id);
        return admitted && slotOf(admitted);
      },
      admit: async () => slotOf(await admission.admit(tenant)),
    };
    auth.extra = { ...auth.extra, [HAND_OVER]: handOver };
    const calls = method === "POST" ? toolCalls(body) : [];
    if (calls.length === 0) return nothing;
    const admitted: TenantAdmission[] = [];
    for (const call of calls) {
      try {
        const one = await admission.admit(tenant);
        if (isTaskCall(call) && call.id !== undefined) handed.set(call.id, one);
        else admitted.push(one);
      } catch (error) {
        await Promise.all([...admitted, ...handed.values()].map((one) => one.finish(0)));
        if (error instanceof TenantAdmissionError) return refusal(error, call.id);
        throw error;
      }
    }
    // Tokens are not charged here: the run's worker charges each settled model call to the tenant's window (BUD-4).
    // A task slot its handler did not take (the call failed before its task was created) goes with the response.
    return () => void Promise.all([...admitted, ...handed.values()].map((one) => one.finish(0)));
  };
}
