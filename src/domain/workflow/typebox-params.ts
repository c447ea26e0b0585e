import { Kind, OptionalKind, type TObject, type TSchema } from "@sinclair/typebox";
import type { JsonValue } from "../json.js";
import type { WorkflowParam } from "./param-types.js";

/**
 * DX-2: params declared as a TypeBox `Type.Object` instead of a list. Each property becomes a
 * static param, so the structure report, the published MCP schema and argument validation work
 * as for listed params. Only what a param can say is accepted (strings with an optional date
 * format, string literals and unions of them as options, numbers, integers, booleans, arrays of those);
 * anything else is refused rather than silently not enforced.
 */

const ANNOTATIONS = new Set(["title", "description", "default", "type", "format", "const", "anyOf", "items", "uniqueItems", "enum"]);
const FORMATS = new Set(["date", "date-time", "time"]);

/** True for a TypeBox object schema (TypeBox's kind symbol is global, so any copy of TypeBox fits). */
export function isTypeBoxObject(value: unknown): value is TObject {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[Kind] === "Object";
}

type Item = Pick<WorkflowParam, "type" | "options" | "format">;

function literalValues(schema: TSchema): string[] | null {
  if (schema[Kind] === "Literal" && typeof schema.const === "string") return [schema.const];
  if (schema[Kind] === "Union" && Array.isArray(schema.anyOf)) {
    const values = (schema.anyOf as TSchema[]).map((member) => (member[Kind] === "Literal" && typeof member.const === "string" ? member.const : null));
    return values.every((value): value is string => value !== null) ? values : null;
  }
  if (schema[Kind] === "SteamharnessStringEnum" && Array.isArray(schema.enum)) return schema.enum as string[];
  return null;
}

function shapeOf(schema: TSchema, where: string): Item {
  const values = literalValues(schema);
  if (values) return { type: "string", options: values };
  switch (schema[Kind]) {
    case "String":
      if (schema.format !== undefined && !FORMATS.has(schema.format)) throw new Error(`${where}: format ${JSON.stringify(schema.format)} is not one of date, date-time, time`);
      return schema.format === undefined ? { type: "string" } : { type: "string", format: schema.format };
    case "Number":
      return { type: "number" };
    case "Integer":
      return { type: "integer" };
    case "Boolean":
      return { type: "boolean" };
    default:
      throw new Error(`${where}: a ${String(schema[Kind])} schema cannot be a workflow param (use a string, string literals, a number, an integer, a boolean or an array of those)`);
  }
}

// A constraint the published schema would drop (minimum, pattern, minItems …) is refused.
function checkAnnotations(schema: TSchema, where: string): void {
  const extra = Object.keys(schema).filter((key) => !ANNOTATIONS.has(key));
  if (extra.length > 0) throw new Error(`${where}: ${extra.join(", ")} cannot be declared on a workflow param (check it in run instead)`);
}

function item(schema: TSchema, where: string): Item {
  const shape = shapeOf(schema, where);
  checkAnnotations(schema, where);
  return shape;
}

/**
 * The static params of a TypeBox object schema, in property order: required unless
 * `Type.Optional` or given a `default`; title, description and default carried over; an array is `multiple`, or
 * `checkboxes` when its items are string literals and `uniqueItems` is set. Throws an `Error`
 * naming the property for what a param cannot express.
 *
 * @example
 * paramsFromTypeBox(Type.Object({ name: Type.String(), days: Type.Optional(Type.Number()) }))
 * // [{ name: "name", type: "string", required: true }, { name: "days", type: "number" }]
 */
export function paramsFromTypeBox(schema: TObject): WorkflowParam[] {
  return Object.entries(schema.properties).map(([name, property]) => {
    const where = `property ${JSON.stringify(name)}`;
    const isArray = property[Kind] === "Array";
    const shape = isArray ? item(property.items as TSchema, `${where} items`) : item(property, where);
    if (isArray) checkAnnotations(property, where);
    const param: WorkflowParam = { name, ...shape };
    if (isArray) {
      if (property.uniqueItems === true && shape.options) param.type = "checkboxes";
      else param.multiple = true;
    }
    // A property with a default may be left out: the default is filled in, so `Static` (which
    // makes it present) stays true.
    if (property[OptionalKind] !== "Optional" && property.default === undefined) param.required = true;
    if (typeof property.title === "string") param.title = property.title;
    if (typeof property.description === "string") param.description = property.description;
    if (property.default !== undefined) param.default = property.default as JsonValue;
    return param;
  });
}
