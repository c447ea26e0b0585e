import type { TObject, TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { ValueErrorType } from "@sinclair/typebox/errors";
import { describeSchemaError } from "../schema-errors.js";

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

/**
 * `schema`'s check, compiled at its first use and kept as long as the schema is (an interpreted
 * check walks the schema on every call).
 *
 * @example
 * compiledCheck(Type.Object({ id: Type.String() })).Check({ id: "a" }) // true
 */
export function compiledCheck<S extends TSchema>(schema: S): TypeCheck<S> {
  let checker = compiled.get(schema);
  if (!checker) compiled.set(schema, (checker = TypeCompiler.Compile(schema)));
  return checker as TypeCheck<S>;
}

function describePath(path: string): string {
  return path === "" ? "arguments" : `arguments${path.replace(/\//g, ".")}`;
}

/**
 * Validates tool or CLI arguments against an entrypoint's input schema (the same TypeBox schema
 * that is published). Resolves a list of readable problems, empty when the arguments are valid:
 * wrong types, values outside the static options, unknown properties, missing required ones.
 *
 * @example
 * validateArguments(entrypointInputSchema(params), { extra: 1 })
 * // ["arguments.extra: unknown property (allowed: document, style)"]
 */
export function validateArguments(schema: TObject, args: unknown): string[] {
  const checker = compiledCheck(schema);
  if (checker.Check(args)) return [];
  const problems: string[] = [];
  const missing = new Set<string>();
  const allowed = Object.keys(schema.properties).join(", ") || "none";
  for (const error of checker.Errors(args)) {
    if (missing.has(error.path)) continue;
    const where = describePath(error.path);
    const values = (error.schema as { enum?: unknown[] }).enum;
    let message = describeSchemaError(error);
    if (error.type === ValueErrorType.ObjectAdditionalProperties) {
      message = `unknown property (allowed: ${allowed})`;
    } else if (error.type === ValueErrorType.ObjectRequiredProperty) {
      message = "required property is missing";
      missing.add(error.path);
    } else if (error.type === ValueErrorType.Kind && Array.isArray(values)) {
      message = `must be one of ${values.map((value) => JSON.stringify(value)).join(", ")}`;
    }
    const line = `${where}: ${message}`;
    if (!problems.includes(line)) problems.push(line);
    if (problems.length >= 10) break;
  }
  return problems;
}
