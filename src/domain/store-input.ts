/**
 * Input checks shared by every store adapter, so that the memory and SQLite adapters refuse
 * exactly the same inputs with the same `input_validation` errors before touching any state.
 */
import { SteamharnessError } from "./errors.js";
import { isJsonValue, type JsonValue } from "./json.js";
import { STORE_LIMITS } from "./limits.js";
import type { KvNamespace } from "../ports/kv-store.js";
import type { KnowledgeDocumentInput, KnowledgeFilter } from "../ports/knowledge-store.js";

// A lone surrogate cannot be stored as UTF-8 text; it would silently turn into U+FFFD.
const LONE_SURROGATE = /\p{Cs}/u;
const utf8 = new TextEncoder();

function invalid(field: string, message: string, data?: Record<string, unknown>): SteamharnessError {
  return new SteamharnessError("input_validation", `[steamharness] ${message}`, { field, data });
}

/**
 * A non-empty, well-formed string of at most `maxLength` UTF-16 units, or `input_validation`.
 *
 * @example
 * const key = checkText("key", input, STORE_LIMITS.kvKey);
 */
export function checkText(field: string, value: unknown, maxLength: number, allowEmpty = false): string {
  if (typeof value !== "string") throw invalid(field, `${field} must be a string`);
  if (!allowEmpty && value.length === 0) throw invalid(field, `${field} must not be empty`);
  if (value.length > maxLength) {
    throw invalid(field, `${field} is longer than ${maxLength} characters`, { maxLength, length: value.length });
  }
  if (LONE_SURROGATE.test(value)) throw invalid(field, `${field} contains a lone surrogate`);
  return value;
}

/**
 * A valid project id (the namespace of every store).
 *
 * @example
 * checkProjectId("proj-1"); // "proj-1"
 */
export function checkProjectId(projectId: unknown): string {
  return checkText("projectId", projectId, STORE_LIMITS.kvKey);
}

/**
 * A valid KV namespace; a present `conversationId` must be a non-empty string.
 *
 * @example
 * checkKvNamespace({ projectId: "p", conversationId: "c" });
 */
export function checkKvNamespace(ns: unknown): KvNamespace {
  if (typeof ns !== "object" || ns === null) throw invalid("ns", "namespace must be an object");
  const { projectId, conversationId } = ns as KvNamespace;
  const checked: KvNamespace = { projectId: checkProjectId(projectId) };
  if (conversationId !== undefined) {
    checked.conversationId = checkText("conversationId", conversationId, STORE_LIMITS.kvKey);
  }
  return checked;
}

/**
 * A valid KV key or persistent-value name.
 *
 * @example
 * checkKvKey("settings/theme");
 */
export function checkKvKey(key: unknown, field = "key"): string {
  return checkText(field, key, STORE_LIMITS.kvKey);
}

/**
 * Serialises a KV value, refusing non-JSON values (undefined, NaN, functions, cycles, class
 * instances) and values over `STORE_LIMITS.kvValueBytes` UTF-8 bytes.
 *
 * @example
 * serializeKvValue({ a: 1 }); // '{"a":1}'
 */
export function serializeKvValue(value: unknown, field = "value"): string {
  if (!isJsonValue(value)) throw invalid(field, `${field} is not a JSON value`);
  const json = JSON.stringify(value);
  // Three bytes per UTF-16 unit is the UTF-8 worst case, so short strings skip the encoding.
  if (json.length * 3 > STORE_LIMITS.kvValueBytes) {
    const bytes = utf8.encode(json).length;
    if (bytes > STORE_LIMITS.kvValueBytes) {
      throw invalid(field, `${field} is larger than ${STORE_LIMITS.kvValueBytes} bytes`, {
        maxBytes: STORE_LIMITS.kvValueBytes,
        bytes,
      });
    }
  }
  return json;
}

/**
 * The page size to use: the default when absent, clamped to `STORE_LIMITS.pageLimit`.
 *
 * @example
 * checkPageLimit(undefined); // 50
 */
export function checkPageLimit(limit: unknown): number {
  if (limit === undefined || limit === null) return STORE_LIMITS.defaultPageLimit;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1) {
    throw invalid("limit", "limit must be a positive integer");
  }
  return Math.min(limit, STORE_LIMITS.pageLimit);
}

/**
 * A valid optional prefix (empty means "no restriction").
 *
 * @example
 * checkPrefix("prefix", "notes/");
 */
export function checkPrefix(field: string, prefix: unknown, maxLength: number): string {
  if (prefix === undefined || prefix === null) return "";
  return checkText(field, prefix, maxLength, true);
}

/**
 * Valid knowledge filters, with absent prefixes as empty strings.
 *
 * @example
 * checkKnowledgeFilter({ idPrefix: "faq/" }); // { idPrefix: "faq/", excludeIdPrefix: "" }
 */
export function checkKnowledgeFilter(filter: KnowledgeFilter): Required<KnowledgeFilter> {
  return {
    idPrefix: checkPrefix("idPrefix", filter.idPrefix, STORE_LIMITS.documentId),
    excludeIdPrefix: checkPrefix("excludeIdPrefix", filter.excludeIdPrefix, STORE_LIMITS.documentId),
  };
}

/**
 * A valid knowledge document to upsert (a fresh object; extra fields dropped).
 *
 * @example
 * checkDocumentInput({ documentId: "a", title: "A", markdown: "# A" });
 */
export function checkDocumentInput(doc: unknown): KnowledgeDocumentInput {
  if (typeof doc !== "object" || doc === null) throw invalid("doc", "document must be an object");
  const input = doc as KnowledgeDocumentInput;
  return {
    documentId: checkText("documentId", input.documentId, STORE_LIMITS.documentId),
    title: checkText("title", input.title, STORE_LIMITS.documentTitle, true),
    markdown: checkText("markdown", input.markdown, STORE_LIMITS.documentMarkdown, true),
  };
}

/**
 * True when `value` starts with `prefix` and not with `excludePrefix` (empty means no rule).
 *
 * @example
 * matchesIdFilter("faq/1", { idPrefix: "faq/", excludeIdPrefix: "" }); // true
 */
export function matchesIdFilter(value: string, filter: Required<KnowledgeFilter>): boolean {
  if (!value.startsWith(filter.idPrefix)) return false;
  return filter.excludeIdPrefix === "" || !value.startsWith(filter.excludeIdPrefix);
}

/**
 * Orders strings by UTF-16 code units, the order every listing port promises.
 *
 * @example
 * ["b", "a"].sort(compareUtf16); // ["a", "b"]
 */
export function compareUtf16(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Re-exported for adapters that parse stored JSON back into a value. */
export type { JsonValue };
