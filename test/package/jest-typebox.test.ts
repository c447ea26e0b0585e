// ARCH-12: the test run loads TypeBox from one code-split bundle (test/jest-typebox.mjs, mapped in
// jest.config.js), and its entries share one copy of TypeBox's state as the package's own files do.
import { existsSync, readdirSync } from "node:fs";
import { dirname } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { Kind, TypeRegistry, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
// @ts-expect-error: a JavaScript module of the jest tooling, without declarations
import { typeboxModuleMap } from "../jest-typebox.mjs";

describe("ARCH-12 TypeBox as one bundle in the test run", () => {
  it("ARCH-12 the map sends the root and /value, /compiler, /errors to a bundle of a few files, not the package's ~200", async () => {
    const map = (await (typeboxModuleMap as () => Promise<Record<string, string>>)()) as Record<string, string>;
    const root = map["^@sinclair/typebox$"]!;
    const subpaths = map["^@sinclair/typebox/(value|compiler|errors)$"]!;
    expect(root).toContain("steamharness-typebox");
    for (const name of ["value", "compiler", "errors"]) expect(existsSync(subpaths.replace("$1", name))).toBe(true);
    expect(readdirSync(dirname(root)).length).toBeLessThan(20);
  });

  it("ARCH-12 this file's TypeBox is the bundle, and /value reads the root's TypeRegistry (one copy of its state)", () => {
    const kind = `ArchTwelve${Date.now()}`;
    TypeRegistry.Set(kind, (_schema, value) => value === "yes");
    try {
      const schema = { [Kind]: kind } as TSchema;
      expect(Value.Check(schema, "yes")).toBe(true);
      expect(Value.Check(schema, "no")).toBe(false);
    } finally {
      TypeRegistry.Delete(kind);
    }
    let stack = "";
    try {
      Value.Check({ [Kind]: `${kind}Unknown` } as TSchema, 1);
    } catch (error) {
      stack = (error as Error).stack ?? "";
    }
    expect(stack).toContain("steamharness-typebox");
  });
});
