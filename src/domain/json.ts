/** A JSON value, as stored by the KV and persistent-value ports. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * True when `value` survives a JSON round trip unchanged: finite numbers, plain objects and
 * arrays, no `undefined`, functions, symbols, bigints, cycles or class instances.
 *
 * @example
 * isJsonValue({ a: [1, "x", null] }) // true
 * isJsonValue({ a: undefined })      // false
 */
export function isJsonValue(value: unknown, seen: Set<object> = new Set()): value is JsonValue {
  if (value === null) return true;
  switch (typeof value) {
    case "boolean":
    case "string":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object": {
      if (seen.has(value)) return false;
      seen.add(value);
      try {
        if (Array.isArray(value)) return value.every((item) => isJsonValue(item, seen));
        const proto = Object.getPrototypeOf(value);
        if (proto !== Object.prototype && proto !== null) return false;
        return Object.values(value).every((item) => isJsonValue(item, seen));
      } finally {
        seen.delete(value);
      }
    }
    default:
      return false;
  }
}
