import type { JsonValue } from "../json.js";
import type { UserInputField } from "../../ports/user-input.js";
import { checkFieldValue } from "./answer-validation.js";
import { optionValues } from "./param-types.js";

/**
 * MCP-6: what can be asked through a standard MCP form. A form holds flat primitive fields
 * only: text (optionally with a static enum or a date format), numbers, integers, booleans and
 * multi-selects with static options. Labelled options are titled choices (spec 2025-11-25:
 * `oneOf` of `{ const, title }` for one choice, `items.anyOf` for several; or the deprecated
 * `enum` + `enumNames` when the field asks for `legacyEnumNames`). File fields and free arrays
 * cannot be asked.
 */

/** The `requestedSchema` of an `elicitation/create` form request. */
export interface ElicitationFormSchema {
  type: "object";
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
}

/** Either a form to send, or why the request must be returned as `interaction_required`. */
export type ElicitationPlan =
  | { elicitable: true; requestedSchema: ElicitationFormSchema }
  | { elicitable: false; reason: string };

/**
 * One line per field: `name (type[, multiple][, options: a|b][, required])`.
 *
 * @example
 * summarizeFields([{ name: "note", type: "string", required: true }]) // ["note (string, required)"]
 */
export function summarizeFields(fields: readonly UserInputField[]): string[] {
  return fields.map((field) => {
    const parts: string[] = [field.type];
    if (field.multiple) parts.push("multiple");
    if (field.options && field.options.length > 0) parts.push(`options: ${optionValues(field.options).join("|")}`);
    if (field.format) parts.push(`format: ${field.format}`);
    if (field.required) parts.push("required");
    return `${field.name} (${parts.join(", ")})`;
  });
}

// The options as `{ const, title }` choices when any has a label (the others are titled by
// their value), else null: plain options stay a plain `enum`.
function titledChoices(field: UserInputField): Array<{ const: string; title: string }> | null {
  const options = field.options ?? [];
  if (!options.some((option) => typeof option !== "string" && option.label !== undefined)) return null;
  return options.map((option) => (typeof option === "string" ? { const: option, title: option } : { const: option.value, title: option.label ?? option.value }));
}

function choiceSchema(field: UserInputField): Record<string, unknown> {
  const values = optionValues(field.options);
  const titled = titledChoices(field);
  if (field.multiple) return { type: "array", items: titled ? { anyOf: titled } : { type: "string", enum: values } };
  if (!titled) return { type: "string", enum: values };
  if (field.legacyEnumNames) return { type: "string", enum: values, enumNames: titled.map((choice) => choice.title) };
  return { type: "string", oneOf: titled };
}

function fieldSchema(field: UserInputField): Record<string, unknown> {
  const out: Record<string, unknown> = { title: field.name };
  if (field.description !== undefined) out.description = field.description;
  const hasOptions = field.options !== undefined && field.options.length > 0;
  if (field.multiple) Object.assign(out, choiceSchema(field));
  else if (field.type === "number" || field.type === "integer" || field.type === "boolean") out.type = field.type;
  else if (hasOptions) Object.assign(out, choiceSchema(field));
  else {
    out.type = "string";
    if (field.format !== undefined) out.format = field.format;
  }
  // A default that does not fit its field is left out, as the run's defaults leave it out.
  if (field.default !== undefined && checkFieldValue(field, field.default) === null) out.default = field.default;
  return out;
}

/**
 * Decides whether a pending input request can be asked as an MCP form and builds the form.
 * Not elicitable: a `file` field, or a `multiple` field without static options.
 *
 * @example
 * planInputElicitation([{ name: "note", type: "string" }])
 * // { elicitable: true, requestedSchema: { type: "object", properties: { note: { title: "note", type: "string" } } } }
 */
export function planInputElicitation(fields: readonly UserInputField[]): ElicitationPlan {
  const properties: Record<string, Record<string, unknown>> = {};
  const required: string[] = [];
  for (const field of fields) {
    if (field.type === "file") return { elicitable: false, reason: `field ${field.name} is a file field, which an MCP form cannot carry` };
    if (field.multiple && !(field.options && field.options.length > 0)) {
      return { elicitable: false, reason: `field ${field.name} is an array without static options, which an MCP form cannot carry` };
    }
    properties[field.name] = fieldSchema(field);
    if (field.required) required.push(field.name);
  }
  return { elicitable: true, requestedSchema: required.length > 0 ? { type: "object", properties, required } : { type: "object", properties } };
}

/** The single field of a tool-approval form. */
export const APPROVAL_FIELD = "decision";

/**
 * The form that asks a person to approve or deny one tool call. There is no default: the person
 * must choose, so nothing is ever approved implicitly.
 *
 * @example
 * approvalForm("send_mail", { to: "a@b.c" }).requestedSchema.properties.decision.enum // ["approve", "deny"]
 */
export function approvalForm(toolId: string, args: JsonValue): { message: string; requestedSchema: ElicitationFormSchema } {
  const shown = JSON.stringify(args);
  const clipped = shown.length > 500 ? `${shown.slice(0, 500)}…` : shown;
  return {
    message: `Allow the workflow to run tool ${toolId} with arguments ${clipped}?`,
    requestedSchema: {
      type: "object",
      properties: { [APPROVAL_FIELD]: { type: "string", title: "Decision", enum: ["approve", "deny"], description: "approve runs the tool once; deny refuses it" } },
      required: [APPROVAL_FIELD],
    },
  };
}

/**
 * Keeps only the answered values of the requested fields (a client may send extra keys).
 *
 * @example
 * pickAnsweredValues([{ name: "note", type: "string" }], { note: "hi", other: 1 }) // { note: "hi" }
 */
export function pickAnsweredValues(fields: readonly UserInputField[], content: Record<string, unknown> | undefined): Record<string, JsonValue> {
  const values: Record<string, JsonValue> = {};
  for (const field of fields) {
    const value = content?.[field.name];
    if (value !== undefined) values[field.name] = value as JsonValue;
  }
  return values;
}
