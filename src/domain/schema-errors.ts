/**
 * What a TypeBox validation error says to a person (DX-8). TypeBox's own message for a union is
 * "Expected union value", which names nothing a person can type; here a union lists what it
 * accepts: its literal values (`Expected one of "low", "medium", "high"`), the values of the
 * property that tells its object members apart (`Expected an object whose type is one of
 * "submit", "cancel"`), or the kinds of its other members (`a string`, `an array`, …).
 * Every other error keeps TypeBox's message.
 */
import { Kind, type TSchema } from "@sinclair/typebox";
import { ValueErrorType, type ValueError } from "@sinclair/typebox/errors";

type Member = TSchema & { const?: unknown; type?: unknown; properties?: Record<string, TSchema & { const?: unknown }>; anyOf?: TSchema[] };

const KINDS: Record<string, string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "a boolean",
  array: "an array",
  object: "an object",
  null: "null",
};

/** A union's members, nested unions flattened (`Type.Union([Type.Union([...]), ...])`). */
function membersOf(schema: Member): Member[] {
  return (schema.anyOf ?? []).flatMap((member) => ((member as Member).anyOf ? membersOf(member as Member) : [member as Member]));
}

/** The property whose literal value tells every object member apart, with those values. */
function discriminatorOf(objects: readonly Member[]): { key: string; values: unknown[] } | null {
  if (objects.length < 2) return null;
  const first = objects[0]!.properties ?? {};
  for (const key of Object.keys(first)) {
    const values = objects.map((member) => member.properties?.[key]?.const);
    if (values.every((value) => value !== undefined)) return { key, values };
  }
  return null;
}

/**
 * The allowed values or kinds of a union schema, as a phrase: `one of "a", "b"`, `an object
 * whose kind is one of "x", "y"`, `a string or an array`. `null` for a schema that is not a union.
 *
 * @example
 * describeUnion(Type.Union([Type.Literal("low"), Type.Literal("high")])) // 'one of "low", "high"'
 */
export function describeUnion(schema: TSchema): string | null {
  const members = membersOf(schema as Member);
  if (members.length === 0) return null;
  const literals = members.filter((member) => member.const !== undefined).map((member) => JSON.stringify(member.const));
  const objects = members.filter((member) => member.const === undefined && member.type === "object");
  const others = members.filter((member) => member.const === undefined && member.type !== "object");
  const parts: string[] = [];
  if (literals.length > 0) parts.push(literals.length === 1 ? literals[0]! : `one of ${literals.join(", ")}`);
  const discriminator = discriminatorOf(objects);
  if (discriminator) parts.push(`an object whose ${discriminator.key} is one of ${discriminator.values.map((value) => JSON.stringify(value)).join(", ")}`);
  else if (objects.length > 0) parts.push("an object");
  for (const member of others) {
    const kind = typeof member.type === "string" ? KINDS[member.type] : undefined;
    parts.push(kind ?? `a ${String((member as unknown as Record<symbol, unknown>)[Kind] ?? "value").toLowerCase()}`);
  }
  return [...new Set(parts)].join(" or ");
}

/**
 * The message of a TypeBox `ValueError` for a person: a union error lists what the union accepts
 * (see {@link describeUnion}); any other error keeps TypeBox's message.
 *
 * @example
 * const first = Value.Errors(schema, value).First();
 * if (first) throw new SteamharnessError("input_validation", `${first.path}: ${describeSchemaError(first)}`);
 */
export function describeSchemaError(error: Pick<ValueError, "type" | "schema" | "message">): string {
  if (error.type !== ValueErrorType.Union) return error.message;
  const allowed = describeUnion(error.schema);
  return allowed ? `Expected ${allowed}` : error.message;
}
