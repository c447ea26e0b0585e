/**
 * Canonical JSON: object keys sorted, no whitespace. Two structurally equal values give the same
 * string, so ids derived from it are stable across processes.
 *
 * @example
 * canonicalJson({ b: 1, a: [2] }) // '{"a":[2],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  // Concatenated in place, without the entry arrays of map/filter/join: a gated call (issue 47)
  // writes two per call (its arguments' hash, its audit entry's), ~25 % less CPU each.
  let text = "";
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) text += `${i === 0 ? "" : ","}${canonicalJson(value[i])}`;
    return `[${text}]`;
  }
  // The default sort compares UTF-16 code units, as `<` does.
  for (const key of Object.keys(value).sort()) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== undefined) text += `${text === "" ? "" : ","}${JSON.stringify(key)}:${canonicalJson(item)}`;
  }
  return `{${text}}`;
}

/**
 * A short stable hash (FNV-1a, 64 bits, hex) of a string. Not cryptographic: it names things
 * (request ids, ring ids) deterministically; it never protects anything.
 *
 * @example
 * stableHash("session 会话") // 16 hex characters, the same in every process
 */
export function stableHash(text: string): string {
  // The 64-bit state in four 16-bit limbs (low first): no BigInt per character. The prime is
  // 2^40 + 0x1b3, so a product is the state times 0x1b3 plus the state shifted up 40 bits.
  let [h0, h1, h2, h3] = [0x2325, 0x8422, 0x9ce4, 0xcbf2];
  for (let i = 0; i < text.length; i++) {
    h0 ^= text.charCodeAt(i);
    const t0 = h0 * 0x1b3;
    const t1 = h1 * 0x1b3 + (t0 >>> 16);
    const t2 = h2 * 0x1b3 + (h0 << 8) + (t1 >>> 16);
    h3 = (h3 * 0x1b3 + (h1 << 8) + (t2 >>> 16)) & 0xffff;
    h2 = t2 & 0xffff;
    h1 = t1 & 0xffff;
    h0 = t0 & 0xffff;
  }
  return [h3, h2, h1, h0].map((limb) => limb.toString(16).padStart(4, "0")).join("");
}
