import { describe, expect, it } from "@jest/globals";
import { readFileSync } from "node:fs";
import { readPackageManifest } from "../../src/adapters/driven/system/package-manifest.js";

describe("package manifest (DX-8)", () => {
  it("DX-8 the CLI run from the sources finds steamharness's own package.json (--version is not 0.0.0)", () => {
    const expected = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
    expect(readPackageManifest()).toMatchObject({ name: "steamharness", version: expected.version });
  });
});
