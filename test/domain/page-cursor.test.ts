import fc from "fast-check";
import { decodeCursor, encodeCursor, listingId } from "../../src/domain/page-cursor.js";
import { isSteamharnessError } from "../../src/domain/errors.js";

describe("keyset cursors", () => {
  const listing = listingId({ kind: "kv", projectId: "p", prefix: "a/" });

  it("round-trips any position of its own listing", () => {
    fc.assert(
      // JSON has no -0; a rank cursor decoding -0 as 0 seeks to the same place (-0 === 0).
      fc.property(fc.oneof(fc.string({ unit: "grapheme", maxLength: 40 }), fc.tuple(fc.double({ noNaN: true, noDefaultInfinity: true }).map((score) => (Object.is(score, -0) ? 0 : score)), fc.string())), (position) => {
        expect(decodeCursor(listing, encodeCursor(listing, position))).toEqual(position);
      }),
    );
  });

  it("refuses every single-character edit of a cursor", () => {
    const cursor = encodeCursor(listing, "a/key-0042");
    fc.assert(
      fc.property(fc.nat(cursor.length - 1), fc.constantFrom(..."ABCxyz019-_."), (at, replacement) => {
        fc.pre(cursor[at] !== replacement);
        const edited = `${cursor.slice(0, at)}${replacement}${cursor.slice(at + 1)}`;
        let error: unknown;
        try {
          decodeCursor(listing, edited);
        } catch (caught) {
          error = caught;
        }
        expect(isSteamharnessError(error, "input_validation")).toBe(true);
      }),
    );
  });

  it("names a cursor of another listing cursor_mismatch", () => {
    const other = listingId({ kind: "kv", projectId: "p", prefix: "b/" });
    expect(() => decodeCursor(other, encodeCursor(listing, "a/1"))).toThrow(expect.objectContaining({ code: "cursor_mismatch" }));
    expect(decodeCursor(listing, null)).toBeUndefined();
  });
});
