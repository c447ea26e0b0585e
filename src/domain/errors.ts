/**
 * The one error type of steamharness. Every failure a caller may branch on carries a string
 * `code`; adapter faults keep the original error as `cause`.
 */

/** Every error code steamharness uses. Callers branch on these, never on messages. */
export type SteamharnessErrorCode =
  | "input_validation"
  | "reserved_key"
  | "not_found"
  | "unavailable"
  | "approval_denied"
  | "approval_expired"
  | "tool_not_registered"
  | "invalid_transition"
  | "cursor_mismatch"
  | "conflict"
  | "storage_failure"
  | "user_input_required"
  | "interaction_required"
  | "cancelled"
  | "session_busy"
  | "model_error"
  | "timeout"
  | "hook_failed"
  | "relation_unconfirmed"
  | "unauthorized"
  | "forbidden"
  | "budget_exceeded"
  | "rate_limited"
  /** A workflow run asked for MCP sampling where no MCP client with the `sampling` capability is there to answer. */
  | "sampling_unavailable"
  /** The MCP client refused or failed a sampling request, or answered something that is not a sampling result. */
  | "sampling_failed"
  | "internal";

const BRAND = Symbol.for("steamharness.error");

/** Options accepted by {@link SteamharnessError}. */
export interface SteamharnessErrorOptions {
  /** The field of the input that was wrong, for `input_validation`. */
  field?: string;
  /** Machine-readable extra facts (limits, ids); never secrets. */
  data?: Record<string, unknown>;
  /** The underlying fault, for wrapped adapter errors. */
  cause?: unknown;
}

/**
 * Base class of every steamharness error.
 *
 * @example
 * throw new SteamharnessError("input_validation", "key is longer than 500 characters", { field: "key" });
 */
export class SteamharnessError extends Error {
  readonly code: SteamharnessErrorCode;
  readonly field?: string;
  readonly data?: Record<string, unknown>;
  readonly [BRAND] = true;

  constructor(code: SteamharnessErrorCode, message: string, options: SteamharnessErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "SteamharnessError";
    this.code = code;
    if (options.field !== undefined) this.field = options.field;
    if (options.data !== undefined) this.data = options.data;
  }

  /** The JSON shape used in tool results: `{ code, message, field? }`. */
  toJSON(): { code: SteamharnessErrorCode; message: string; field?: string } {
    return this.field === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, field: this.field };
  }
}

/**
 * True when `value` is a steamharness error, even one thrown by another copy of the library
 * (ESM and CJS bundles loaded side by side), optionally with the given code.
 *
 * @example
 * if (isSteamharnessError(e, "not_found")) return null;
 */
export function isSteamharnessError(
  value: unknown,
  code?: SteamharnessErrorCode,
): value is SteamharnessError {
  if (typeof value !== "object" || value === null) return false;
  if ((value as Record<symbol, unknown>)[BRAND] !== true) return false;
  return code === undefined || (value as SteamharnessError).code === code;
}

/**
 * Wraps an adapter fault once at the port boundary: steamharness errors pass through unchanged,
 * anything else becomes `storage_failure` with the original as `cause`.
 *
 * @example
 * try { db.exec(sql) } catch (e) { throw wrapAdapterError("sqlite", "kv set failed", e) }
 */
export function wrapAdapterError(adapter: string, message: string, cause: unknown): SteamharnessError {
  if (isSteamharnessError(cause)) return cause;
  const detail = cause instanceof Error ? `: ${cause.message}` : "";
  return new SteamharnessError("storage_failure", `[steamharness] [${adapter}] ${message}${detail}`, { cause });
}

/**
 * A run is paused waiting for a person: a tool approval, a question, a form or a plan decision.
 * The host records the decision under `requestId`, then re-runs the same run id.
 *
 * @example
 * try { await runStreamNode(node, input, context) }
 * catch (e) { if (e instanceof UserInputRequiredError) permissions.resolve(e.requestId, { outcome: "approved" }) }
 */
export class UserInputRequiredError extends SteamharnessError {
  /** The stable id of the pending request; resuming names it. */
  readonly requestId: string;
  /** What is being asked, for the host to show. */
  readonly request: Record<string, unknown>;

  constructor(requestId: string, request: Record<string, unknown>, message = "user input required") {
    super("user_input_required", message, { data: { requestId } });
    this.name = "UserInputRequiredError";
    this.requestId = requestId;
    this.request = request;
  }
}
