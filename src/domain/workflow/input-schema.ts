import { isJsonValue, type JsonObject } from "../json.js";

/**
 * MCP-3 × SEP-1613/SEP-2106: an entrypoint may declare its input as a JSON Schema 2020-12
 * document (`inputSchema`) instead of static params, for what params cannot say (`$defs` and
 * `$ref`, `allOf`/`anyOf`, `if`/`then`/`else`, patterns …). The document is published unchanged
 * as the tool's input schema and every call's arguments are validated against it. These are the
 * checks that need no validator; compiling it (and resolving its `$ref`s) is the runner's
 * (app/workflow-runs/argument-checks.ts).
 */

/** The dialect an entrypoint's `inputSchema` is written and validated in. */
export const JSON_SCHEMA_2020_12 = "https://json-schema.org/draft/2020-12/schema";

/** An entrypoint's declared input schema: a JSON Schema 2020-12 object schema. */
export type WorkflowInputSchema = { readonly type: "object"; readonly $schema?: string } & { readonly [keyword: string]: unknown };

// Every [key, value] pair of the document, depth first.
function* entriesOf(value: unknown): Generator<[string, unknown]> {
  if (typeof value !== "object" || value === null) return;
  for (const [key, item] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
    yield [String(key), item];
    yield* entriesOf(item);
  }
}

/**
 * Checks a declared input schema and returns its JSON copy (what the structure report carries
 * to the host and MCP publishes). Returns the reason it is refused, or the copy: it must be
 * plain JSON, an object schema (`type: "object"`: tool arguments are an object), in 2020-12
 * (`$schema` absent or {@link JSON_SCHEMA_2020_12}), with same-document `$ref`s only (nothing is
 * ever fetched, SEP-2106) and no `x-mcp-header` (header mirrors are declared on params).
 *
 * @example
 * checkInputSchema({ type: "object", properties: { a: { $ref: "https://x.test/a.json" } } })
 * // { refused: '$ref "https://x.test/a.json" is not in this document (only "#…" refs; nothing is fetched)' }
 */
export function checkInputSchema(declared: unknown): { schema: JsonObject } | { refused: string } {
  if (typeof declared !== "object" || declared === null || Array.isArray(declared) || !isJsonValue(declared)) {
    return { refused: "must be a JSON Schema object of plain JSON values" };
  }
  const schema = declared as JsonObject;
  if (schema.type !== "object") return { refused: 'must declare type: "object" (a tool takes an object of arguments)' };
  if (schema.$schema !== undefined && schema.$schema !== JSON_SCHEMA_2020_12) {
    return { refused: `$schema must be ${JSON.stringify(JSON_SCHEMA_2020_12)} or absent (arguments are validated as JSON Schema 2020-12), not ${JSON.stringify(schema.$schema)}` };
  }
  for (const [key, item] of entriesOf(schema)) {
    // A property *named* "$ref" holds a schema, not a string.
    if (key === "$ref" && typeof item === "string" && !item.startsWith("#")) return { refused: `$ref ${JSON.stringify(item)} is not in this document (only "#…" refs; nothing is fetched)` };
    if (key === "x-mcp-header") return { refused: "x-mcp-header is declared with a param's header, not in an inputSchema" };
  }
  return { schema: JSON.parse(JSON.stringify(schema)) as JsonObject };
}
