/**
 * Validation and defaults of createProviderModel's options, including the guard that keeps
 * credentials from the environment out of requests.
 */
import { SteamharnessError } from "../../../domain/errors.js";
import type { RuntimeModelEndpoint } from "../../../ports/runtime.js";
import { PROVIDER_API_KINDS, type ProviderApiKind } from "./pi-ai-loader.js";

/**
 * Options of `createProviderModel`: one endpoint (the runtime port's {@link RuntimeModelEndpoint},
 * whose fields say what each means) plus the HTTP settings. Nothing is read from the environment.
 */
export interface ProviderModelOptions extends RuntimeModelEndpoint {
  /** Extra HTTP headers, sent with every request (they win over the defaults). */
  headers?: Record<string, string>;
  /** HTTP timeout per request in ms (SDK default: 10 minutes). */
  timeoutMs?: number;
  /**
   * Retries inside the SDK (default 0): the agent loop retries visibly (OUT-3), so hidden SDK
   * retries would only delay and duplicate requests.
   */
  maxRetries?: number;
}

/** The resolved configuration of one provider model. */
export interface ProviderConfig {
  apiKind: ProviderApiKind;
  baseUrl: string;
  apiKey: string;
  model: string;
  provider: string;
  contextWindow: number;
  maxTokens: number;
  reasoning: boolean;
  /** Whether requests may turn the native web search on (never for openai-completions). */
  webSearch: boolean;
  maxRetries: number;
  timeoutMs?: number;
  /** Headers for the SDK client; `null` removes a header the SDK would add. */
  headers: Record<string, string | null>;
}

const DEFAULT_PROVIDER: Record<ProviderApiKind, string> = {
  "openai-responses": "openai",
  "anthropic-messages": "anthropic",
  "openai-completions": "openai",
};

/**
 * Headers the SDKs would fill from the environment even when a key is passed: the OpenAI SDK
 * sends OPENAI_ORG_ID / OPENAI_PROJECT_ID, the Anthropic SDK sends ANTHROPIC_AUTH_TOKEN as a
 * bearer token next to `x-api-key`. A `null` default header makes the SDK drop them, so the
 * only credential that leaves the process is the explicit `apiKey`.
 */
function environmentHeaderGuard(apiKind: ProviderApiKind, apiKey: string): Record<string, null> {
  if (apiKind !== "anthropic-messages") return { "OpenAI-Organization": null, "OpenAI-Project": null };
  // pi-ai sends Anthropic OAuth tokens (sk-ant-oat…) as the bearer token itself.
  return apiKey.includes("sk-ant-oat") ? {} : { Authorization: null };
}

function invalid(field: string, message: string): SteamharnessError {
  return new SteamharnessError("input_validation", `[steamharness] [providers] ${message}`, { field });
}

function nonEmptyString(value: unknown, field: string, message: string): string {
  if (typeof value !== "string" || value.trim() === "") throw invalid(field, message);
  return value;
}

function integerAtLeast(value: unknown, field: string, min: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
    throw invalid(field, `${field} must be an integer of at least ${min}`);
  }
  return value;
}

/**
 * Checks createProviderModel's options and fills the defaults. Throws SteamharnessError
 * `input_validation` naming the field. No value is ever taken from `process.env`.
 *
 * @example
 * const config = validateProviderModelOptions({ apiKind: "openai-completions", baseUrl, apiKey, model: "gpt-4.1" });
 */
export function validateProviderModelOptions(options: ProviderModelOptions): ProviderConfig {
  if (typeof options !== "object" || options === null) throw invalid("options", "options must be an object");
  const apiKind = options.apiKind;
  if (!PROVIDER_API_KINDS.includes(apiKind)) {
    throw invalid("apiKind", `apiKind must be one of ${PROVIDER_API_KINDS.join(", ")}`);
  }
  const baseUrl = nonEmptyString(options.baseUrl, "baseUrl", "baseUrl is required (the endpoint is never guessed)");
  let protocol: string;
  try {
    protocol = new URL(baseUrl).protocol;
  } catch {
    throw invalid("baseUrl", `baseUrl is not a URL: ${baseUrl}`);
  }
  if (protocol !== "http:" && protocol !== "https:") throw invalid("baseUrl", "baseUrl must be an http(s) URL");
  const apiKey = nonEmptyString(
    options.apiKey,
    "apiKey",
    "apiKey is required: pass the key explicitly; environment variables such as OPENAI_API_KEY or ANTHROPIC_API_KEY are never read",
  );
  const model = nonEmptyString(options.model, "model", "model is required");
  const provider =
    options.provider === undefined ? DEFAULT_PROVIDER[apiKind] : nonEmptyString(options.provider, "provider", "provider must be a non-empty string");
  const headers: Record<string, string | null> = environmentHeaderGuard(apiKind, apiKey);
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (typeof value !== "string") throw invalid("headers", `header ${name} must be a string`);
    headers[name] = value;
  }
  for (const field of ["reasoning", "webSearch"] as const) {
    if (options[field] !== undefined && typeof options[field] !== "boolean") throw invalid(field, `${field} must be a boolean`);
  }
  const config: ProviderConfig = {
    apiKind,
    baseUrl,
    apiKey,
    model,
    provider,
    contextWindow: integerAtLeast(options.contextWindow, "contextWindow", 1, 128_000),
    maxTokens: integerAtLeast(options.maxTokens, "maxTokens", 1, 16_384),
    reasoning: options.reasoning ?? false,
    webSearch: options.webSearch === true && apiKind !== "openai-completions",
    maxRetries: integerAtLeast(options.maxRetries, "maxRetries", 0, 0),
    headers,
  };
  if (options.timeoutMs !== undefined) config.timeoutMs = integerAtLeast(options.timeoutMs, "timeoutMs", 1, 0);
  return config;
}
