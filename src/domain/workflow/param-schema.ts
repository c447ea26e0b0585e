import { FormatRegistry, Kind, Type, TypeRegistry, type TObject, type TSchema, type TUnsafe } from "@sinclair/typebox";
import { optionValues, type WorkflowParam } from "./param-types.js";

/**
 * MCP-3: the JSON Schema of an entrypoint's arguments, built from its static params with
 * TypeBox. The schema published in `tools/list` and the one arguments are validated against are
 * the same object, so they cannot drift.
 */

const STRING_ENUM = "SteamharnessStringEnum";
const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const DATE_TIME = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt ]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d(:([0-5]\d|60)(\.\d+)?)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)?$/;

// TypeBox checks `format` only through its registry (unknown formats fail every value), and it
// has no plain `{ type: "string", enum: [...] }` kind; the registries below are the documented
// extension points. Registration is idempotent so two copies of this module agree.
if (!FormatRegistry.Has("date")) FormatRegistry.Set("date", (value) => DATE.test(value));
if (!FormatRegistry.Has("date-time")) FormatRegistry.Set("date-time", (value) => DATE_TIME.test(value));
if (!FormatRegistry.Has("time")) FormatRegistry.Set("time", (value) => TIME.test(value));
if (!TypeRegistry.Has(STRING_ENUM)) {
  TypeRegistry.Set<{ enum: string[] }>(STRING_ENUM, (schema, value) => typeof value === "string" && schema.enum.includes(value));
}

/** Extra text appended to a file param's description so a model knows what to send. */
export const FILE_PARAM_HINT = "absolute path of a local regular file, at most 50 MB";

/**
 * A string schema restricted to `values`, published as `{ type: "string", enum: [...] }`.
 *
 * @example
 * StringEnum(["short", "long"], { default: "short" })
 */
export function StringEnum(values: readonly string[], options: Record<string, unknown> = {}): TUnsafe<string> {
  return Type.Unsafe<string>({ ...options, [Kind]: STRING_ENUM, type: "string", enum: [...values] });
}

function annotations(param: WorkflowParam, description: string | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (param.title !== undefined) out.title = param.title;
  if (description !== undefined) out.description = description;
  if (param.default !== undefined) out.default = param.default;
  if (param.header !== undefined) out["x-mcp-header"] = param.header;
  return out;
}

function scalarSchema(param: WorkflowParam, options: Record<string, unknown>): TSchema {
  const values = param.options && param.options.length > 0 ? optionValues(param.options) : undefined;
  switch (param.type) {
    case "number":
      return Type.Number(options);
    case "integer":
      return Type.Integer(options);
    case "boolean":
      return Type.Boolean(options);
    case "file":
      return Type.String({ ...options, minLength: 1 });
    default: {
      // string, positional, checkboxes: strings, optionally from static options and with a date format.
      const format = param.format === undefined ? {} : { format: param.format };
      return values ? StringEnum(values, { ...options, ...format }) : Type.String({ ...options, ...format });
    }
  }
}

function describe(param: WorkflowParam): string | undefined {
  if (param.type !== "file") return param.description;
  return param.description ? `${param.description} (${FILE_PARAM_HINT})` : `The ${FILE_PARAM_HINT}`;
}

/**
 * The schema of one param: string/positional → string, number → number, integer → integer
 * (whole numbers only), boolean → boolean,
 * `multiple: true` or checkboxes → array of the item type (checkbox items unique), file →
 * absolute path string (multiple → array of paths). Title, description, default, static
 * options (enum) and date formats are carried over.
 *
 * @example
 * paramSchema({ name: "tags", type: "string", multiple: true })
 * // { type: "array", items: { type: "string" } }
 */
export function paramSchema(param: WorkflowParam): TSchema {
  const isArray = param.multiple === true || param.type === "checkboxes";
  const extra = annotations(param, describe(param));
  if (!isArray) return scalarSchema(param, extra);
  return Type.Array(scalarSchema(param, {}), { ...extra, ...(param.type === "checkboxes" ? { uniqueItems: true } : {}) });
}

/**
 * MCP-3: the input schema of an entrypoint, an object with one property per static param,
 * `required` for required params and `additionalProperties: false`.
 *
 * @example
 * const schema = entrypointInputSchema([{ name: "document", type: "file", required: true }]);
 * schema.required // ["document"]
 */
export function entrypointInputSchema(params: readonly WorkflowParam[]): TObject {
  const properties: Record<string, TSchema> = {};
  for (const param of params) {
    properties[param.name] = param.required === true ? paramSchema(param) : Type.Optional(paramSchema(param));
  }
  return Type.Object(properties, { additionalProperties: false });
}

/**
 * The plain JSON of a TypeBox schema (TypeBox's symbol keys dropped), as published over MCP.
 *
 * @example
 * toJsonSchema(entrypointInputSchema(params)) // { type: "object", properties: {...}, ... }
 */
export function toJsonSchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}
