import { describe, expect, it } from "@jest/globals";
import { checkAnswers, checkFieldValue, parseTypedAnswer, withFieldDefaults } from "../../src/domain/workflow/answer-validation.js";

describe("DX-4 answers checked against their fields", () => {
  it("DX-4 required, options, types, multiple and date formats", () => {
    expect(checkFieldValue({ name: "who", type: "string", required: true }, "")).toBe("who is required");
    expect(checkFieldValue({ name: "who", type: "string" }, undefined)).toBeNull();
    expect(checkFieldValue({ name: "colour", type: "string", options: ["red", "blue"] }, "mauve")).toBe('colour must be one of "red", "blue" (got "mauve")');
    expect(checkFieldValue({ name: "n", type: "number" }, "3")).toBe('n must be a number (got "3")');
    expect(checkFieldValue({ name: "tags", type: "string", multiple: true, options: ["a"] }, "a")).toBe('tags takes a list of values (got "a")');
    expect(checkFieldValue({ name: "day", type: "string", format: "date" }, "2026-02-30x")).toBe('day must be a date YYYY-MM-DD (got "2026-02-30x")');
    expect(checkFieldValue({ name: "day", type: "string", format: "date" }, "2026-01-31")).toBeNull();
    expect(checkAnswers([{ name: "a", type: "string", required: true }, { name: "b", type: "boolean" }], { b: "yes" })).toEqual([
      { field: "a", problem: "a is required" },
      { field: "b", problem: 'b must be yes or no (got "yes")' },
    ]);
  });

  it("DX-4 typed lines convert before the check; an empty line takes the default", () => {
    expect(parseTypedAnswer({ name: "n", type: "number" }, " 4 ")).toEqual({ value: 4 });
    expect(parseTypedAnswer({ name: "ok", type: "boolean" }, "No")).toEqual({ value: false });
    expect(parseTypedAnswer({ name: "size", type: "string", options: ["s", "m"], default: "m" }, "")).toEqual({ value: "m" });
    expect(parseTypedAnswer({ name: "ns", type: "number", multiple: true }, "1, x")).toEqual({ problem: 'ns must be a number (got "x")' });
  });
});

describe("DX-4 integer fields and labelled options", () => {
  it("DX-4 an integer field takes whole numbers only, typed or answered", () => {
    expect(checkFieldValue({ name: "age", type: "integer" }, 30)).toBeNull();
    expect(checkFieldValue({ name: "age", type: "integer" }, 30.5)).toBe("age must be a whole number (got 30.5)");
    expect(checkFieldValue({ name: "age", type: "integer" }, "30")).toBe('age must be a whole number (got "30")');
    expect(parseTypedAnswer({ name: "age", type: "integer" }, " 42 ")).toEqual({ value: 42 });
    expect(parseTypedAnswer({ name: "age", type: "integer" }, "4.2")).toEqual({ problem: "age must be a whole number (got 4.2)" });
    expect(parseTypedAnswer({ name: "age", type: "integer", default: 30 }, "")).toEqual({ value: 30 });
    expect(withFieldDefaults([{ name: "age", type: "integer", default: 2.5 }, { name: "n", type: "integer", default: 3 }], {})).toEqual({ n: 3 });
  });

  it("DX-4 a field with labelled options takes their values, not their labels", () => {
    const field = { name: "size", type: "string", options: [{ value: "s", label: "Small" }, "m"] } as const;
    expect(checkFieldValue(field as never, "s")).toBeNull();
    expect(checkFieldValue(field as never, "m")).toBeNull();
    expect(checkFieldValue(field as never, "Small")).toBe('size must be one of "s", "m" (got "Small")');
    expect(parseTypedAnswer({ name: "sizes", type: "string", multiple: true, options: [{ value: "s", label: "Small" }, { value: "m", label: "Medium" }] }, "s, Medium")).toEqual({ problem: 'sizes must be one of "s", "m" (got "Medium")' });
  });
});

describe("DX-2 defaults of left-out fields", () => {
  it("DX-2 a left-out field with a default that fits gets it; answered and default-less fields are kept as they are", () => {
    const fields = [
      { name: "pace", type: "string", options: ["relaxed", "packed"], default: "relaxed" },
      { name: "nights", type: "number", default: 2 },
      { name: "note", type: "string" },
      { name: "bad", type: "number", default: "two" },
    ] as const;
    expect(withFieldDefaults(fields as never, { nights: 5 })).toEqual({ pace: "relaxed", nights: 5 });
  });
});
