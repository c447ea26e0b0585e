// ARCH-12: the test run loads TypeBox, zod, the provider SDKs and drizzle from bundles of a few
// files (test/jest-modules.mjs, mapped in jest.config.js), and a package's entries share one copy
// of its state as the package's own files do.
import { existsSync, readdirSync } from "node:fs";
import { dirname } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { Kind, TypeRegistry, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import * as z from "zod/v4";
import { globalRegistry } from "zod/v4/core";
import { packageRequire } from "../../src/adapters/driven/sqlite/shared/drizzle-modules.js";
// @ts-expect-error: a JavaScript module of the jest tooling, without declarations
import { bundledModuleMap } from "../jest-modules.mjs";

const stackOf = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    return (error as Error).stack ?? "";
  }
  return "";
};

describe("ARCH-12 packages of many modules as bundles in the test run", () => {
  it("ARCH-12 the map sends each package's entries to a bundle of a few files, not the package's hundreds", async () => {
    const map = (await (bundledModuleMap as () => Promise<Record<string, string>>)()) as Record<string, string>;
    const keys = ["^@sinclair\\/typebox$", "^@sinclair\\/typebox\\/value$", "^zod\\/v3$", "^zod\\/v4$", "^openai$", "^@anthropic-ai\\/sdk$", "^drizzle-orm$", "^drizzle-orm\\/pg-core$", "^\\./drizzle-sqlite\\.cjs$"];
    for (const key of keys) {
      expect(map[key]).toContain("steamharness-modules");
      expect(existsSync(map[key]!)).toBe(true);
      expect(readdirSync(dirname(map[key]!)).length).toBeLessThan(20);
    }
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
    expect(stackOf(() => Value.Check({ [Kind]: `${kind}Unknown` } as TSchema, 1))).toContain("steamharness-modules");
  });

  it("ARCH-12 zod's v4 and v4/core are the bundle and share one global registry", () => {
    expect(z.globalRegistry).toBe(globalRegistry);
    // A refinement that throws: its stack runs through zod's parse.
    const refined = z.string().refine(() => {
      throw new Error("refinement");
    });
    expect(stackOf(() => refined.parse("a"))).toContain("steamharness-modules");
  });

  it("ARCH-12 the SQLite adapters' drizzle is the one-file bundle, found where the build puts it", () => {
    const bundle = packageRequire.resolve("./drizzle-sqlite.cjs");
    expect(bundle).toContain("steamharness-modules");
    expect(bundle.endsWith("drizzle-sqlite.cjs")).toBe(true);
  });
});
