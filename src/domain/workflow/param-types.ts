import { Type, type Static, type TObject } from "@sinclair/typebox";
import type { JsonValue } from "../json.js";
import type { ManagedFile } from "../../ports/managed-file-store.js";

/**
 * DX-2: the declarations of entrypoint params and input-form fields, and the types of the
 * values a run receives for them, inferred from the declarations. The inferred types follow
 * what the runtime passes: arguments validated against the published schema (MCP-3), defaults
 * filled in by the worker, file params imported into the managed-file store (MCP-4), answers
 * checked against their fields and defaults filled in (MCP-6).
 */

const ParamOption = Type.Union([Type.String(), Type.Object({ value: Type.String(), label: Type.Optional(Type.String()) })]);

/** TypeBox schema of one static entrypoint param (WF-1). */
export const WorkflowParamSchema = Type.Object({
  name: Type.String({ pattern: "^[A-Za-z_][A-Za-z0-9_.-]{0,63}$" }),
  type: Type.Union(["string", "positional", "number", "integer", "boolean", "checkboxes", "file"].map((kind) => Type.Literal(kind))),
  title: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  required: Type.Optional(Type.Boolean()),
  multiple: Type.Optional(Type.Boolean()),
  options: Type.Optional(Type.Array(ParamOption)),
  default: Type.Optional(Type.Unknown()),
  format: Type.Optional(Type.Union([Type.Literal("date"), Type.Literal("date-time"), Type.Literal("time")])),
  /**
   * MCP-17: the name of the HTTP header that mirrors this param's value on 2026-07-28 requests
   * (`Mcp-Param-<header>`, the schema's `x-mcp-header`, SEP-2243), so a gateway can route on
   * it without reading the body; the server refuses a call whose header disagrees with the
   * argument. An RFC 9110 token; only for single string, positional, integer and boolean params.
   */
  header: Type.Optional(Type.String({ pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" })),
});

/** One static param of an entrypoint, as checked at load time and listed by the structure report. */
export type WorkflowParam = Omit<Static<typeof WorkflowParamSchema>, "type" | "default"> & {
  type: "string" | "positional" | "number" | "integer" | "boolean" | "checkboxes" | "file";
  default?: JsonValue;
};

/** The value a file param receives in `run(params)`: the imported managed file. */
export type WorkflowFileParamValue = ManagedFile;

/**
 * A static option: its value, or `{ value, label }`. The label is what a person is shown (an
 * MCP form publishes it as the option's `title`); the value is what the run receives.
 */
export type WorkflowParamOption = string | { readonly value: string; readonly label?: string };

/**
 * The values of static options, in order (`{ value, label }` options give their value); `[]`
 * without options.
 *
 * @example
 * optionValues([{ value: "s", label: "Small" }, "m"]) // ["s", "m"]
 */
export function optionValues(options: readonly WorkflowParamOption[] | undefined): string[] {
  return (options ?? []).map((option) => (typeof option === "string" ? option : option.value));
}

interface ParamDeclarationBase {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly required?: boolean;
  readonly multiple?: boolean;
  readonly options?: readonly WorkflowParamOption[];
  readonly format?: "date" | "date-time" | "time";
  readonly header?: string;
}

/**
 * One param as a workflow declares it (readonly, so `as const` and inferred literals fit). The
 * `default` has the param's value type (for a file param: the absolute path to import).
 */
export type WorkflowParamDeclaration =
  | (ParamDeclarationBase & { readonly type: "string" | "positional"; readonly default?: string | readonly string[] })
  | (ParamDeclarationBase & { readonly type: "number" | "integer"; readonly default?: number | readonly number[] })
  | (ParamDeclarationBase & { readonly type: "boolean"; readonly default?: boolean | readonly boolean[] })
  | (ParamDeclarationBase & { readonly type: "checkboxes"; readonly default?: readonly string[] })
  | (ParamDeclarationBase & { readonly type: "file"; readonly default?: string | readonly string[] });

// Declarations arrive intersected with their constraint (see defineWorkflow), so an option list
// reads as `["a"] & WorkflowParamOption[]`; the filters below drop the cross terms it produces.
type OptionValue<O> = O extends { readonly value: infer V } ? (O extends string ? never : V) : O extends string ? O : never;
type OptionValues<D> = D extends { readonly options: readonly unknown[] } ? OptionValue<D["options"][number]> : never;
type TextValue<D> = [OptionValues<D>] extends [never] ? string : OptionValues<D>;

type ItemValue<D, File> = D extends { readonly type: "number" | "integer" }
  ? number
  : D extends { readonly type: "boolean" }
    ? boolean
    : D extends { readonly type: "file" }
      ? File
      : TextValue<D>;

type FieldValue<D, File> = D extends { readonly type: "checkboxes" } | { readonly multiple: true } ? ItemValue<D, File>[] : ItemValue<D, File>;
// A default is filled in only when it fits (a param's is checked at load time; a form field's
// when the answer leaves it out), so only a fitting default makes the value always present.
type DefaultValue<D> = D extends { readonly type: "file" }
  ? D extends { readonly multiple: true } ? readonly string[] : string
  : D extends { readonly type: "checkboxes" } | { readonly multiple: true } ? readonly ItemValue<D, never>[] : ItemValue<D, never>;
type HasFittingDefault<D> = D extends { readonly default: infer V } ? ([V] extends [DefaultValue<D>] ? true : false) : false;
type IsPresent<D> = D extends { readonly required: true } ? true : HasFittingDefault<D>;
type Named<D, N> = D extends { readonly name: N } ? D : never;
type Simplify<T> = { [K in keyof T]: T[K] } & {};

type ValuesOf<D extends { readonly name: string }, File> = Simplify<
  { -readonly [N in D["name"] as IsPresent<Named<D, N>> extends true ? N : never]: FieldValue<Named<D, N>, File> } & {
    -readonly [N in D["name"] as IsPresent<Named<D, N>> extends true ? never : N]?: FieldValue<Named<D, N>, File>;
  }
>;

/**
 * The `params` object `run` receives for a list of param declarations: string and positional →
 * `string` (the union of the option values when `options` are literal), number and integer → `number`,
 * boolean → `boolean`, checkboxes → an array of its option values, file → the managed file;
 * `multiple: true` → an array. A param that is `required: true` or has a `default` is always
 * present; any other is optional. Declarations whose names are not literal give
 * `Record<string, unknown>`. Params declared as a TypeBox `Type.Object` give its `Static` type.
 *
 * @example
 * const params = [{ name: "topic", type: "string", required: true }, { name: "days", type: "number" }] as const;
 * type Params = InferWorkflowParams<typeof params>; // { topic: string; days?: number }
 */
export type InferWorkflowParams<Ps> = Ps extends TObject
  ? Static<Ps>
  : Ps extends readonly { readonly name: string }[]
  ? string extends Ps[number]["name"]
    ? Record<string, unknown>
    : ValuesOf<Ps[number], WorkflowFileParamValue>
  : {};

/**
 * One field of a `context.userInput.request` form, as a workflow declares it (readonly, so
 * inferred literals fit). The `default` has the field's value type. `options` may carry labels
 * (`{ value, label }`), which an MCP form shows as titled choices; `legacyEnumNames: true` sends
 * a single-select's labels as the deprecated `enumNames` beside `enum`, for clients that only
 * read the 2025-06-18 form schema.
 */
export type WorkflowInputField = {
  readonly name: string;
  readonly description?: string;
  readonly required?: boolean;
  readonly multiple?: boolean;
  readonly options?: readonly WorkflowParamOption[];
  readonly legacyEnumNames?: boolean;
  readonly format?: "date" | "date-time";
} & (
  | { readonly type: "string" | "file"; readonly default?: string | readonly string[] }
  | { readonly type: "number" | "integer"; readonly default?: number | readonly number[] }
  | { readonly type: "boolean"; readonly default?: boolean | readonly boolean[] }
);

/**
 * The answered values of an input request, inferred from its fields like
 * {@link InferWorkflowParams}: string → `string` (or the union of its literal options), number
 * and integer → `number`, boolean → `boolean`, file → `string` (the path as the person gave it; it is not
 * imported), `multiple: true` → an array. Required fields and fields with a `default` are always
 * present; others are optional. Fields whose names are not literal give `Record<string, JsonValue>`.
 *
 * @example
 * const fields = [{ name: "pace", type: "string", options: ["relaxed", "packed"], required: true }] as const;
 * type Answer = InferUserInput<typeof fields>; // { pace: "relaxed" | "packed" }
 */
export type InferUserInput<Fs> = Fs extends readonly { readonly name: string }[]
  ? string extends Fs[number]["name"]
    ? Record<string, JsonValue>
    : ValuesOf<Fs[number], string>
  : {};
