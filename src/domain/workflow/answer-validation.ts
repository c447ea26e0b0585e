import type { JsonValue } from "../json.js";
import type { UserInputField } from "../../ports/user-input.js";
import { optionValues } from "./param-types.js";

/**
 * Checks answers to a run's input request against the fields it declared (required, options,
 * type, date formats), wherever they come from: a line typed at the terminal or an MCP form.
 * Problems read `<field> …` so a person knows what to fix.
 */

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const YES = /^(y|yes|true|1)$/i;
const NO = /^(n|no|false|0)$/i;

const quoted = (values: readonly string[]) => values.map((value) => JSON.stringify(value)).join(", ");
const shown = (value: unknown) => (typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value) ?? String(value));

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === "" || (Array.isArray(value) && value.length === 0);
}

function checkOne(field: UserInputField, value: unknown): string | null {
  if (field.type === "number") return typeof value === "number" && Number.isFinite(value) ? null : `${field.name} must be a number (got ${shown(value)})`;
  if (field.type === "integer") return Number.isInteger(value) ? null : `${field.name} must be a whole number (got ${shown(value)})`;
  if (field.type === "boolean") return typeof value === "boolean" ? null : `${field.name} must be yes or no (got ${shown(value)})`;
  if (typeof value !== "string") return `${field.name} must be text (got ${shown(value)})`;
  const values = optionValues(field.options);
  if (values.length > 0 && !values.includes(value)) {
    return `${field.name} must be one of ${quoted(values)} (got ${shown(value)})`;
  }
  if (field.format === "date" && !(DATE.test(value) && !Number.isNaN(Date.parse(value)))) return `${field.name} must be a date YYYY-MM-DD (got ${shown(value)})`;
  if (field.format === "date-time" && Number.isNaN(Date.parse(value))) return `${field.name} must be a date and time (got ${shown(value)})`;
  return null;
}

/**
 * The problem with one field's value, or `null` when it fits the declaration: a required field
 * must have a value; an optional one may be absent; `multiple` takes an array whose items each
 * fit; a field with `options` takes only their values; `integer` takes whole numbers only.
 *
 * @example
 * checkFieldValue({ name: "size", type: "string", options: ["s", "m"] }, "xl") // 'size must be one of "s", "m" (got "xl")'
 */
export function checkFieldValue(field: UserInputField, value: unknown): string | null {
  if (isEmpty(value)) return field.required ? `${field.name} is required` : null;
  if (field.type === "file") return null;
  if (field.multiple) {
    if (!Array.isArray(value)) return `${field.name} takes a list of values (got ${shown(value)})`;
    for (const item of value) {
      const problem = checkOne(field, item);
      if (problem) return problem;
    }
    return null;
  }
  return checkOne(field, value);
}

/**
 * Every problem of a set of answers, one per field, in field order; empty when all fit.
 *
 * @example
 * checkAnswers([{ name: "name", type: "string", required: true }], {}) // [{ field: "name", problem: "name is required" }]
 */
export function checkAnswers(fields: readonly UserInputField[], values: Readonly<Record<string, unknown>>): Array<{ field: string; problem: string }> {
  const problems: Array<{ field: string; problem: string }> = [];
  for (const field of fields) {
    const problem = checkFieldValue(field, values[field.name]);
    if (problem) problems.push({ field: field.name, problem });
  }
  return problems;
}

/**
 * The answered values with each field that was left out but has a `default` given that default
 * (when it fits the field), so a run sees the same values whichever way the form was answered
 * (a terminal fills defaults itself; an MCP client may leave the field out).
 *
 * @example
 * withFieldDefaults([{ name: "pace", type: "string", default: "relaxed" }], {}) // { pace: "relaxed" }
 */
export function withFieldDefaults(fields: readonly UserInputField[], values: Readonly<Record<string, JsonValue>>): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = { ...values };
  for (const field of fields) {
    if (out[field.name] === undefined && field.default !== undefined && checkFieldValue(field, field.default) === null) out[field.name] = field.default;
  }
  return out;
}

/**
 * Reads one line typed for a field: numbers and yes/no are converted, `multiple` takes
 * comma-separated values, an empty line takes the default (or leaves an optional field out).
 * The result is checked with {@link checkFieldValue}: `{ value }` (undefined = left out) or the
 * `problem` to show before asking again.
 *
 * @example
 * parseTypedAnswer({ name: "count", type: "number" }, "three") // { problem: 'count must be a number (got "three")' }
 */
export function parseTypedAnswer(field: UserInputField, text: string): { value: JsonValue | undefined } | { problem: string } {
  const raw = text.trim();
  let value: JsonValue | undefined;
  if (raw === "") value = field.default ?? undefined;
  else if (field.multiple) value = raw.split(",").map((part) => part.trim()).filter(Boolean).map((part) => convert(field, part));
  else value = convert(field, raw);
  const problem = checkFieldValue(field, value);
  return problem === null ? { value } : { problem };
}

// A line that does not convert stays text, so the problem names what was typed.
function convert(field: UserInputField, raw: string): JsonValue {
  if (field.type === "number" || field.type === "integer") return raw !== "" && Number.isFinite(Number(raw)) ? Number(raw) : raw;
  if (field.type === "boolean") return YES.test(raw) ? true : NO.test(raw) ? false : raw;
  return raw;
}
