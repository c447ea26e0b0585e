/**
 * Classifies a failed provider response for the agent loop's retries (OUT-3).
 *
 * pi-ai reports every failure as an assistant message with `stopReason: "error"` and an
 * `errorMessage` string; the SDK error object (with its numeric status) does not survive.
 * The OpenAI and Anthropic SDKs both build HTTP error messages as `"<status> <detail>"`
 * (`APIError.makeMessage`), which is what {@link classifyProviderFailure} reads.
 */
import type { ModelResponse } from "../../../ports/model-provider.js";

/** The retry part of an error response. */
export type ProviderRetry = NonNullable<ModelResponse["retry"]>;

/** Facts about a failed response. */
export interface ProviderFailure {
  /** pi-ai's `errorMessage`. */
  message: string;
  /** Whether the HTTP response had arrived (pi-ai's `start` event) before the failure. */
  streamStarted: boolean;
}

// Statuses where the same request may succeed later: timeout, conflict, rate limit, server
// errors, and Anthropic's 529 "overloaded".
const RETRYABLE_STATUSES = new Set([408, 409, 425, 429]);

// Transport failures surfaced by undici / the SDKs / pi-ai when a connection ends early.
const TRANSPORT_FAILURE =
  /terminated|other side closed|socket|ECONNRESET|EPIPE|ECONNREFUSED|premature close|ended before|connection error|fetch failed|network/i;

const OPAQUE_MESSAGE = /^\s*(\{\}|undefined|null)?\s*$/;

// In-band provider errors (an `error` SSE event, `response.failed`) that are transient.
// OpenAI's in-stream fault ("The server had an error … You can retry your request") keeps only
// its message through pi-ai, hence the wording patterns.
const TRANSIENT_PROVIDER_ERROR =
  /overloaded|rate.?limit|server_error|server had an error|internal|unavailable|timeout|timed out|capacity|retry|try again/i;

/**
 * The HTTP status at the start of an SDK error message, or `undefined`.
 *
 * @example
 * statusOfErrorMessage("429 Rate limit reached") // 429
 * statusOfErrorMessage("terminated")             // undefined
 */
export function statusOfErrorMessage(message: string): number | undefined {
  const match = /^([1-5]\d\d)(?:\s|$)/.exec(message.trim());
  return match ? Number(match[1]) : undefined;
}

/**
 * Whether a retry may succeed and which kind of retry it is (OUT-3): `recovery` for HTTP
 * 408/409/425/429/5xx and connection failures before any response, `dropped` for a connection
 * lost after the stream started; other 4xx (bad request, auth, context overflow) are final.
 *
 * @example
 * classifyProviderFailure({ message: "503 overloaded", streamStarted: false })
 * // { retryable: true, kind: "recovery", status: 503 }
 */
export function classifyProviderFailure(failure: ProviderFailure): ProviderRetry {
  const status = statusOfErrorMessage(failure.message);
  if (status !== undefined) {
    const retryable = status >= 500 || RETRYABLE_STATUSES.has(status);
    return { retryable, kind: "recovery", status };
  }
  if (TRANSPORT_FAILURE.test(failure.message)) {
    return { retryable: true, kind: failure.streamStarted ? "dropped" : "recovery" };
  }
  // pi-ai describes a thrown non-Error (or an Error of another realm, as under jest's VM
  // modules) as "{}": after the stream started that is the body read failing, i.e. a drop.
  if (failure.streamStarted && OPAQUE_MESSAGE.test(failure.message)) return { retryable: true, kind: "dropped" };
  // An in-band provider error or an SDK timeout ("Request timed out."): retry only the transient ones.
  return { retryable: TRANSIENT_PROVIDER_ERROR.test(failure.message), kind: "recovery" };
}
