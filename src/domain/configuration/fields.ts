/**
 * Typed configuration fields (CFG-1). A project declares its fields; every configuration's values
 * are checked against them on each write: a key must be a declared field, a value must have the
 * field's type, and required fields without a default must be present. `STEAMHARNESS_AGENT_MODELS`
 * is a built-in field (type `agent-models`) every project has; a project may declare it itself to
 * set a label, a default or `allowThirdParty: false`.
 */
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { isJsonValue, type JsonValue } from "../json.js";
import { AgentModelListSchema, STEAMHARNESS_AGENT_MODELS, parseAgentModelList } from "./agent-models.js";
import { checkSchema, cloneJson, configurationInvalid } from "./schema-check.js";

/** Limits of configuration documents, in UTF-16 units, items or UTF-8 bytes. */
export const CONFIGURATION_LIMITS = {
  configurationId: 200,
  name: 200,
  fields: 200,
  configurations: 1000,
  /** Largest `values` object of one configuration, serialised as JSON, in UTF-8 bytes. */
  valuesBytes: 1024 * 1024,
} as const;

const common = {
  key: Type.String({ pattern: "^[A-Za-z_][A-Za-z0-9_.-]{0,127}$", description: "The value key" }),
  label: Type.Optional(Type.String({ maxLength: 200 })),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  required: Type.Optional(Type.Boolean()),
};
const field = <K extends string, P extends Record<string, TSchema>>(type: K, extra: P) =>
  Type.Object({ ...common, type: Type.Literal(type), ...extra }, { additionalProperties: false });

/** TypeBox schemas of the field definitions, by `type`. */
export const CONFIGURATION_FIELD_SCHEMAS = {
  string: field("string", { default: Type.Optional(Type.String()), maxLength: Type.Optional(Type.Integer({ minimum: 1 })) }),
  number: field("number", { default: Type.Optional(Type.Number()), minimum: Type.Optional(Type.Number()), maximum: Type.Optional(Type.Number()) }),
  integer: field("integer", { default: Type.Optional(Type.Integer()), minimum: Type.Optional(Type.Integer()), maximum: Type.Optional(Type.Integer()) }),
  boolean: field("boolean", { default: Type.Optional(Type.Boolean()) }),
  select: field("select", { options: Type.Array(Type.String(), { minItems: 1, uniqueItems: true }), default: Type.Optional(Type.String()) }),
  json: field("json", { default: Type.Optional(Type.Unknown()) }),
  "agent-models": field("agent-models", { allowThirdParty: Type.Optional(Type.Boolean()), default: Type.Optional(AgentModelListSchema) }),
} as const;

/** A field type name. */
export type ConfigurationFieldType = keyof typeof CONFIGURATION_FIELD_SCHEMAS;

/** One declared field. */
export type ConfigurationField = {
  [K in ConfigurationFieldType]: Static<(typeof CONFIGURATION_FIELD_SCHEMAS)[K]>;
}[ConfigurationFieldType];

const FIELD_TYPES = Object.keys(CONFIGURATION_FIELD_SCHEMAS) as ConfigurationFieldType[];

/** The built-in agent model field every project has unless it declares its own. */
export const BUILT_IN_AGENT_MODELS_FIELD: ConfigurationField = {
  key: STEAMHARNESS_AGENT_MODELS,
  type: "agent-models",
  label: "Agent models",
  description: "Models the project's agents may use; the first is the default.",
};

/**
 * Validates a field list: each definition by its type's schema, unique keys, defaults that fit
 * the field, and `STEAMHARNESS_AGENT_MODELS` only as an `agent-models` field. Throws
 * `input_validation` with the path (`fields/1/options`).
 *
 * @example
 * parseConfigurationFields([{ key: "title", type: "string", required: true }]);
 */
export function parseConfigurationFields(value: unknown, path = "fields"): ConfigurationField[] {
  if (!Array.isArray(value)) throw configurationInvalid(path, `${path} must be a list of field definitions`);
  if (value.length > CONFIGURATION_LIMITS.fields) throw configurationInvalid(path, `at most ${CONFIGURATION_LIMITS.fields} fields`);
  const keys = new Set<string>();
  return value.map((raw, index) => {
    const at = `${path}/${index}`;
    const type = (raw as { type?: unknown } | null)?.type;
    if (typeof type !== "string" || !FIELD_TYPES.includes(type as ConfigurationFieldType)) {
      throw configurationInvalid(`${at}/type`, `${at}/type must be one of ${FIELD_TYPES.join(", ")} (found ${JSON.stringify(type) ?? "nothing"})`);
    }
    const definition = checkSchema(CONFIGURATION_FIELD_SCHEMAS[type as ConfigurationFieldType], raw, at) as ConfigurationField;
    if (keys.has(definition.key)) throw configurationInvalid(`${at}/key`, `field "${definition.key}" is declared twice`);
    keys.add(definition.key);
    if (definition.key === STEAMHARNESS_AGENT_MODELS && definition.type !== "agent-models") {
      throw configurationInvalid(`${at}/type`, `${STEAMHARNESS_AGENT_MODELS} is the agent model list; its type must be agent-models`);
    }
    if (definition.type === "select" && definition.default !== undefined && !definition.options.includes(definition.default)) {
      throw configurationInvalid(`${at}/default`, `the default of "${definition.key}" is not one of its options`);
    }
    if (definition.default !== undefined) checkFieldValue(definition, definition.default, `${at}/default`);
    return cloneJson(definition);
  });
}

/**
 * The declared fields plus the built-in `STEAMHARNESS_AGENT_MODELS` field when not declared.
 *
 * @example
 * effectiveFields([]).map((f) => f.key) // ["STEAMHARNESS_AGENT_MODELS"]
 */
export function effectiveFields(fields: readonly ConfigurationField[]): ConfigurationField[] {
  if (fields.some((f) => f.key === STEAMHARNESS_AGENT_MODELS)) return [...fields];
  return [...fields, BUILT_IN_AGENT_MODELS_FIELD];
}

/**
 * Validates configuration values against the fields and returns a copy. Throws
 * `input_validation` naming `values/<key>` for an undeclared key, a wrong type, a missing
 * required field or values larger than {@link CONFIGURATION_LIMITS.valuesBytes}.
 *
 * @example
 * checkConfigurationValues([{ key: "title", type: "string" }], { title: "Roadmap" });
 */
export function checkConfigurationValues(fields: readonly ConfigurationField[], values: unknown): Record<string, JsonValue> {
  if (values === null || typeof values !== "object" || Array.isArray(values) || !isJsonValue(values)) {
    throw configurationInvalid("values", "values must be a JSON object of field values");
  }
  const bytes = new TextEncoder().encode(JSON.stringify(values)).length;
  if (bytes > CONFIGURATION_LIMITS.valuesBytes) {
    throw configurationInvalid("values", `values are ${bytes} bytes; the limit is ${CONFIGURATION_LIMITS.valuesBytes}`);
  }
  const byKey = new Map(effectiveFields(fields).map((f) => [f.key, f]));
  const record = values as Record<string, JsonValue>;
  for (const [key, value] of Object.entries(record)) {
    const definition = byKey.get(key);
    if (!definition) throw configurationInvalid(`values/${key}`, `"${key}" is not a declared field (declared: ${[...byKey.keys()].join(", ")})`);
    checkFieldValue(definition, value, `values/${key}`);
  }
  for (const definition of byKey.values()) {
    if (definition.required && definition.default === undefined && !Object.hasOwn(record, definition.key)) {
      throw configurationInvalid(`values/${definition.key}`, `"${definition.key}" is required`);
    }
  }
  return cloneJson(record);
}

/**
 * The values a run sees: field defaults, overridden by the configuration's own values.
 *
 * @example
 * resolveConfigurationValues([{ key: "n", type: "integer", default: 3 }], {}) // { n: 3 }
 */
export function resolveConfigurationValues(fields: readonly ConfigurationField[], values: Record<string, JsonValue>): Record<string, JsonValue> {
  const resolved: Record<string, JsonValue> = {};
  for (const definition of effectiveFields(fields)) {
    if (definition.default !== undefined) resolved[definition.key] = cloneJson(definition.default as JsonValue);
  }
  return { ...resolved, ...cloneJson(values) };
}

function checkFieldValue(definition: ConfigurationField, value: unknown, path: string): void {
  switch (definition.type) {
    case "string":
      if (typeof value !== "string") throw configurationInvalid(path, `${path} must be a string`);
      if (definition.maxLength !== undefined && value.length > definition.maxLength) {
        throw configurationInvalid(path, `${path} is longer than ${definition.maxLength} characters`);
      }
      return;
    case "number":
    case "integer":
      if (typeof value !== "number" || !Number.isFinite(value)) throw configurationInvalid(path, `${path} must be a number`);
      if (definition.type === "integer" && !Number.isInteger(value)) throw configurationInvalid(path, `${path} must be an integer`);
      if (definition.minimum !== undefined && value < definition.minimum) throw configurationInvalid(path, `${path} must be at least ${definition.minimum}`);
      if (definition.maximum !== undefined && value > definition.maximum) throw configurationInvalid(path, `${path} must be at most ${definition.maximum}`);
      return;
    case "boolean":
      if (typeof value !== "boolean") throw configurationInvalid(path, `${path} must be true or false`);
      return;
    case "select":
      if (typeof value !== "string" || !definition.options.includes(value)) {
        throw configurationInvalid(path, `${path} must be one of ${definition.options.join(", ")}`);
      }
      return;
    case "json":
      if (!isJsonValue(value)) throw configurationInvalid(path, `${path} must be JSON`);
      return;
    case "agent-models":
      parseAgentModelList(value, path);
      return;
  }
}
