import { validateArguments } from "../../domain/workflow/argument-validation.js";
import { entrypointInputSchema } from "../../domain/workflow/param-schema.js";
import type { StructureEntrypoint } from "../../domain/workflow/workflow-definition.js";

/**
 * MCP-3, MCP-7: the check of an entrypoint's arguments, compiled once per entrypoint by the
 * runner's `prepare` (the one place arguments are checked): static params through the TypeBox
 * schema built from them (here), a declared `inputSchema` through a JSON Schema 2020-12
 * validator (input-schema-check.ts, loaded only for a project that declares one).
 */

/** The readable problems of `args` (each naming the argument's path), empty when they fit. */
export type ArgumentsCheck = (args: unknown) => string[];

/**
 * The check of an entrypoint's arguments against its static params (MCP-3).
 *
 * @example
 * paramsCheck(entrypoint)({ extra: 1 }) // ["arguments.extra: unknown property (allowed: document, style)"]
 */
export function paramsCheck(entrypoint: StructureEntrypoint): ArgumentsCheck {
  const schema = entrypointInputSchema(entrypoint.params);
  return (args) => validateArguments(schema, args);
}
