import { dereference, validate, type OutputUnit, type Schema } from "@cfworker/json-schema";
import { SteamharnessError } from "../../domain/errors.js";
import type { StructureEntrypoint } from "../../domain/workflow/workflow-definition.js";
import type { ArgumentsCheck } from "./argument-checks.js";

/**
 * MCP-3: the check of arguments against an entrypoint's declared JSON Schema 2020-12 input, with
 * `@cfworker/json-schema` (the domain holds TypeBox only). Loaded only by a runner whose project
 * declares such an input, as its structure loads.
 */

const MAX_PROBLEMS = 10;

function argumentsPath(instanceLocation: string): string {
  return `arguments${instanceLocation.slice(1).replace(/\//g, ".")}`;
}

// The validator's units name the failing keyword's place; the "a subschema had errors" units
// that only lead to a deeper one are left out.
function describeUnit(unit: OutputUnit): string {
  return `${argumentsPath(unit.instanceLocation)}: ${unit.error} (${unit.keyword} at ${unit.keywordLocation})`;
}

/**
 * The check of arguments against an entrypoint's `inputSchema`, compiled once (keep it per
 * entrypoint). Throws `input_validation` naming the entrypoint when the schema does not compile:
 * a `$ref` that does not resolve within it, or a schema URI declared twice.
 *
 * @example
 * const check = inputSchemaCheck(entrypoint);
 * check({ name: 5 }) // ['arguments.name: Instance type "number" is invalid. Expected "string". (type at #/properties/name/type)']
 */
export function inputSchemaCheck(entrypoint: StructureEntrypoint): ArgumentsCheck {
  const declared = entrypoint.inputSchema as Schema;
  const at = `entrypoint ${JSON.stringify(entrypoint.id)} inputSchema`;
  // Dereferencing (the compiling) marks the schema with hidden URIs: a copy, so the published one stays as declared.
  const schema = JSON.parse(JSON.stringify(declared)) as Schema;
  let lookup: Record<string, Schema | boolean>;
  try {
    lookup = dereference(schema);
  } catch (error) {
    throw new SteamharnessError("input_validation", `${at}: ${(error as Error).message}`, { field: "inputSchema" });
  }
  // A `$ref` the document does not hold would throw mid-call: refused at load instead.
  for (const sub of Object.values(lookup)) {
    const ref = typeof sub === "object" ? sub.__absolute_ref__ : undefined;
    if (ref !== undefined && lookup[ref] === undefined) {
      throw new SteamharnessError("input_validation", `${at}: $ref ${JSON.stringify((sub as Schema).$ref)} does not resolve within the schema`, { field: "inputSchema" });
    }
  }
  return (args) => {
    const result = validate(args, schema, "2020-12", lookup);
    if (result.valid) return [];
    return result.errors.filter((unit) => unit.error !== "A subschema had errors.").slice(0, MAX_PROBLEMS).map(describeUnit);
  };
}
