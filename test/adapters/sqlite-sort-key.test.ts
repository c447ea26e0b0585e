import fc from "fast-check";
import { fromSortKey, prefixRange, sortKey } from "../../src/adapters/driven/kernel/sort-key.js";
import { compareUtf16 } from "../../src/domain/store-input.js";

// SQLite compares BLOBs with memcmp; these properties are why BLOB keys list in UTF-16 order.
describe("PORT-2 SQLite sort keys", () => {
  const text = fc.string({ unit: "binary", maxLength: 12 });

  it("memcmp order of sort keys equals UTF-16 code-unit order", () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(Math.sign(Buffer.compare(sortKey(a), sortKey(b)))).toBe(Math.sign(compareUtf16(a, b)));
        expect(fromSortKey(sortKey(a))).toBe(a);
      }),
    );
  });

  it("a prefix range holds exactly the keys starting with the prefix", () => {
    fc.assert(
      fc.property(text, text, (prefix, key) => {
        const { low, high } = prefixRange(prefix);
        const k = sortKey(key);
        const inRange = Buffer.compare(k, low) >= 0 && (high === null || Buffer.compare(k, high) < 0);
        expect(inRange).toBe(key.startsWith(prefix));
      }),
    );
    expect(prefixRange("").high).toBeNull();
    expect(prefixRange("\uFFFF").high).toBeNull();
  });
});
