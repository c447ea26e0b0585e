/**
 * Argument validation in the implementation, not only in the schema (CAP-4): MCP clients ignore
 * schemas and agent SDKs treat them as type assertions. One validator per capability checks, in
 * order: a plain object; a known `action`; only the fields that action accepts; the TypeBox
 * structure; code-point lengths; the fields the action requires. The first failure is thrown as
 * `input_validation` naming the field.
 */
import type { TObject, TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { SteamharnessError } from "../errors.js";
import { withoutMaxLength } from "./schema.js";
import { assertMaxCodePoints } from "./text-limits.js";

/** The fields one action requires and accepts (besides `action`). */
export interface ActionFields {
  required: readonly string[];
  optional: readonly string[];
}

/** Validates raw arguments into `T`, or throws `input_validation`. */
export type ArgumentValidator<T> = (args: unknown) => T;

/**
 * Builds the validator of a capability from its published schema and its action table.
 *
 * @example
 * const validate = createArgumentValidator<KvArgs>(KV_PARAMETERS, { get: { required: ["key"], optional: ["scope"] } });
 * const args = validate({ action: "get", key: "a" });
 */
export function createArgumentValidator<T>(schema: TObject, actions: Record<string, ActionFields>): ArgumentValidator<T> {
  // Compiled on the first call, not when the capability module loads: five capabilities
  // compiled eagerly were a measurable part of importing the root entry (PERF-1).
  let structural: ReturnType<typeof TypeCompiler.Compile<TSchema>> | undefined;
  const actionNames = Object.keys(actions);
  return (args) => {
    if (args === null || typeof args !== "object" || Array.isArray(args)) {
      throw invalid("arguments", "arguments must be a JSON object with an action field");
    }
    const record = dropUndefined(args as Record<string, unknown>);
    const action = record.action;
    if (action === undefined) throw invalid("action", `action is required: one of ${actionNames.join(", ")}`);
    if (typeof action !== "string" || !Object.hasOwn(actions, action)) {
      throw invalid("action", `action must be one of ${actionNames.join(", ")}`);
    }
    const fields = actions[action];
    for (const key of Object.keys(record)) {
      if (key === "action" || fields.required.includes(key) || fields.optional.includes(key)) continue;
      const known = Object.hasOwn(schema.properties, key);
      throw invalid(key, known ? `${key} is not accepted by action ${action}` : `unknown field ${key}`);
    }
    structural ??= TypeCompiler.Compile(withoutMaxLength(schema));
    const error = structural.Errors(record).First();
    if (error) {
      const field = fieldOf(error.path);
      const allowed = (error.schema as { enum?: unknown }).enum;
      const message = Array.isArray(allowed) ? `must be one of ${allowed.join(", ")}` : error.message.toLowerCase();
      throw invalid(field, `${field} ${message}`);
    }
    checkLengths(schema, record, "");
    for (const key of fields.required) {
      if (record[key] === undefined) throw invalid(key, `${key} is required for action ${action}`);
    }
    return record as T;
  };
}

/**
 * An `input_validation` error naming `field`.
 *
 * @example
 * throw invalid("key", "key is reserved by the runtime");
 */
export function invalid(field: string, message: string, data?: Record<string, unknown>): SteamharnessError {
  return new SteamharnessError("input_validation", message, data === undefined ? { field } : { field, data });
}

function dropUndefined(record: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    // An own `__proto__` key (JSON.parse makes one) would replace the copy's prototype and let
    // fields arrive by inheritance, past the unknown-field check.
    if (key === "__proto__") throw invalid(key, "unknown field __proto__");
    if (value !== undefined) result[key] = value;
  }
  return result;
}

function fieldOf(path: string): string {
  const field = path.replace(/^\//, "").split("/").map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~")).join(".");
  return field === "" ? "arguments" : field;
}

/** Walks object properties of the published schema and enforces every `maxLength` in code points. */
function checkLengths(schema: TSchema, value: unknown, prefix: string): void {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return;
  const properties = (schema as TObject).properties;
  if (!properties) return;
  for (const [key, child] of Object.entries(properties)) {
    const item = (value as Record<string, unknown>)[key];
    const field = prefix === "" ? key : `${prefix}.${key}`;
    const maxLength = (child as { maxLength?: number }).maxLength;
    if (typeof item === "string" && typeof maxLength === "number") assertMaxCodePoints(field, item, maxLength);
    else if (typeof item === "object") checkLengths(child, item, field);
  }
}
