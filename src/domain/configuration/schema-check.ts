/**
 * TypeBox-backed validation for configuration documents: the first `Value.Errors` entry becomes an
 * `input_validation` error whose `field` is the JSON path of the offending value, so a person
 * sees `fields/2/type` or `values/STEAMHARNESS_AGENT_MODELS/0/apiKind` rather than "invalid".
 */
import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { SteamharnessError } from "../errors.js";
import { describeSchemaError } from "../schema-errors.js";

/**
 * Returns `value` typed by `schema`, or throws `input_validation` naming the first failing path
 * (prefixed with `field`).
 *
 * @example
 * const field = checkSchema(ConfigurationFieldSchema, raw, "fields/0");
 */
export function checkSchema<T extends TSchema>(schema: T, value: unknown, field: string): Static<T> {
  if (Value.Check(schema, value)) return value;
  const first = Value.Errors(schema, value).First();
  const path = joinPath(field, first?.path ?? "");
  const detail = first ? `${describeSchemaError(first)}${describeFound(first.value)}` : "does not match its schema";
  throw new SteamharnessError("input_validation", `[steamharness] [configuration] ${path || "value"}: ${detail}`, {
    field: path || field,
  });
}

/**
 * Joins a field prefix and a JSON pointer (`/a/0`) into a slash path without a leading slash.
 *
 * @example
 * joinPath("values", "/title") // "values/title"
 */
export function joinPath(prefix: string, pointer: string): string {
  const tail = pointer.replace(/^\//, "");
  if (!prefix) return tail;
  return tail ? `${prefix}/${tail}` : prefix;
}

/**
 * Throws `input_validation` with a configuration-prefixed message.
 *
 * @example
 * throw configurationInvalid("values/title", "title is required");
 */
export function configurationInvalid(field: string, message: string, data?: Record<string, unknown>): SteamharnessError {
  return new SteamharnessError("input_validation", `[steamharness] [configuration] ${message}`, {
    field,
    ...(data ? { data } : {}),
  });
}

function describeFound(value: unknown): string {
  if (value === undefined) return " (missing)";
  const text = JSON.stringify(value);
  if (text === undefined) return "";
  return ` (found ${text.length > 60 ? `${text.slice(0, 57)}...` : text})`;
}

/**
 * A deep copy of a JSON value. Not `structuredClone`: under test runners with separate realms
 * its objects get a foreign `Object.prototype`, which plain-JSON checks then refuse.
 *
 * @example
 * const copy = cloneJson({ a: [1] });
 */
export function cloneJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
