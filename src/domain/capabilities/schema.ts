/**
 * Schema helpers shared by the capability specs. The published schema is plain JSON Schema built
 * with TypeBox; enums are `{ type: "string", enum }` (what every model provider accepts) checked
 * through a registered TypeBox kind, and object keys are ordered `type, properties, required, …`
 * so the bytes a native tool publishes equal the bytes an MCP client re-serialises.
 */
import { Kind, Type, TypeRegistry, type TObject, type TOptional, type TProperties, type TSchema, type TUnsafe } from "@sinclair/typebox";

const STRING_ENUM = "SteamharnessStringEnum";

if (!TypeRegistry.Has(STRING_ENUM)) {
  TypeRegistry.Set<{ enum: readonly string[] }>(STRING_ENUM, (schema, value) => typeof value === "string" && schema.enum.includes(value));
}

/**
 * A string enum published as `{ type: "string", enum: [...] }` and checked by TypeBox.
 *
 * @example
 * const Scope = StringEnum(["project", "conversation"], { description: "KV scope" });
 */
export function StringEnum<T extends string>(values: readonly T[], options: { description?: string; default?: T } = {}): TUnsafe<T> {
  return Type.Unsafe<T>({ [Kind]: STRING_ENUM, type: "string", enum: [...values], ...options });
}

/**
 * Reorders an object schema's keys to `type, properties, required, …rest`, keeping TypeBox's
 * symbol keys, recursively for nested object properties.
 *
 * @example
 * const parameters = publishedObject(Type.Object({ action: StringEnum(["get"]) }, { additionalProperties: false }));
 */
export function publishedObject<T extends TObject>(schema: T): T {
  const { type, properties, required, ...rest } = schema as TObject & Record<string, unknown>;
  const ordered: Record<string | symbol, unknown> = { type, properties: orderProperties(properties) };
  if (required !== undefined) ordered.required = required;
  Object.assign(ordered, rest);
  for (const symbol of Object.getOwnPropertySymbols(schema)) ordered[symbol] = (schema as Record<symbol, unknown>)[symbol];
  return ordered as unknown as T;
}

function orderProperties(properties: TProperties): TProperties {
  const result: TProperties = {};
  for (const [key, value] of Object.entries(properties)) {
    result[key] = (value as TSchema).type === "object" && (value as TObject).properties ? publishedObject(value as TObject) : value;
  }
  return result;
}

/**
 * A deep copy of `schema` without `maxLength`, for the structural TypeBox check: TypeBox counts
 * UTF-16 units while CAP-4 limits count code points, so lengths are checked separately.
 *
 * @example
 * const structural = withoutMaxLength(parameters);
 */
export function withoutMaxLength<T extends TSchema>(schema: T): T {
  return strip(schema) as T;
}

function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip);
  if (value === null || typeof value !== "object") return value;
  const copy: Record<string | symbol, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (key !== "maxLength") copy[key] = strip(item);
  for (const symbol of Object.getOwnPropertySymbols(value)) copy[symbol] = (value as Record<symbol, unknown>)[symbol];
  return copy;
}

/** Properties all made optional except `action`. */
type ActionParameters<P extends TProperties> = { [K in keyof P]: K extends "action" ? P[K] : TOptional<P[K]> };

/**
 * The parameters object of a capability: `action` required, every other field optional (which
 * fields an action needs is enforced by the validator and stated in the description), no
 * unknown fields, keys in published order.
 *
 * @example
 * const parameters = capabilityParameters({ action: StringEnum(["get"]), key: Type.String() });
 */
export function capabilityParameters<P extends TProperties>(properties: P): TObject<ActionParameters<P>> {
  const wrapped: TProperties = {};
  for (const [key, value] of Object.entries(properties)) wrapped[key] = key === "action" ? value : Type.Optional(value);
  return publishedObject(Type.Object(wrapped, { additionalProperties: false })) as unknown as TObject<ActionParameters<P>>;
}

/**
 * A free-form JSON object published as `{ type: "object", properties: {}, additionalProperties: true }`
 * (providers that refuse `patternProperties` accept it).
 *
 * @example
 * const values = JsonObjectField("Configuration values");
 */
export function JsonObjectField(description: string): TObject {
  return Type.Object({}, { additionalProperties: true, description });
}
