// The notices of the code the build copies into dist/ (scripts/third-party-notices.ts), on a
// made-up dist/ and node_modules: which packages it finds (esbuild's path comments, the viewer's
// list), what it writes for each (license files, NOTICE, the SPDX text when none ships).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { bundledPackageDirs, packageDirOf, thirdPartyNotices, VIEWER_PACKAGES_FILE } from "../../scripts/third-party-notices.js";

let root = "";
const write = (path: string, text: string) => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};
const manifest = (name: string, version: string, extra: Record<string, unknown>) => JSON.stringify({ name, version, ...extra });

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "sh-notices-"));
  write("dist/cli.js", ["// node_modules/foo/index.js", "var foo = 1;", "// node_modules/bar/node_modules/@s/baz/lib/x.js", "var baz = 2;", "// node_modules/gone/index.js", "  // node_modules/indented/index.js"].join("\n"));
  write("dist/chunk-A.cjs", "// node_modules/foo/other.js\nvar again = 1;\n");
  write(`dist/${VIEWER_PACKAGES_FILE}`, JSON.stringify(["node_modules/qux"]));
  write("node_modules/foo/package.json", manifest("foo", "1.2.3", { license: "MIT", homepage: "https://foo.example" }));
  write("node_modules/foo/LICENSE", "MIT License\r\n\r\nCopyright (c) Foo Authors\r\n");
  write("node_modules/bar/package.json", manifest("bar", "9.9.9", { license: "MIT" }));
  write("node_modules/bar/LICENSE", "bar's license, not bundled\n");
  write("node_modules/bar/node_modules/@s/baz/package.json", manifest("@s/baz", "0.1.0", { licenses: [{ type: "ISC" }] }));
  write("node_modules/bar/node_modules/@s/baz/LICENSE.md", "ISC License\n```\nCopyright Baz\n");
  write("node_modules/bar/node_modules/@s/baz/NOTICE", "Baz includes software by Others.\n");
  write("node_modules/qux/package.json", manifest("qux", "4.0.0", { license: "Apache-2.0", author: { name: "Qux Team" } }));
  write("node_modules/indented/package.json", manifest("indented", "1.0.0", { license: "MIT" }));
});
afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("third-party notices of dist/", () => {
  it("finds the package folder of a module path: the deepest node_modules/<name>, scoped names whole", () => {
    expect(packageDirOf("node_modules/express/node_modules/debug/src/index.js")).toBe("node_modules/express/node_modules/debug");
    expect(packageDirOf("node_modules/@hono/node-server/dist/index.mjs")).toBe("node_modules/@hono/node-server");
    expect(packageDirOf("src/index.ts")).toBeUndefined();
    expect(packageDirOf("node_modules/@scope")).toBeUndefined();
  });

  it("lists each package whose code the bundles inline (path comments, indented or not) or the viewer lists, once, and none that is not installed", () => {
    expect(bundledPackageDirs(join(root, "dist"), root)).toEqual(["node_modules/bar/node_modules/@s/baz", "node_modules/foo", "node_modules/indented", "node_modules/qux"]);
  });

  it("writes, per package in name order, its version, license, license and NOTICE files — and the SPDX text of its license when it ships no file", () => {
    const notices = thirdPartyNotices(join(root, "dist"), root);
    const headings = notices.split("\n").filter((line) => line.startsWith("## "));
    expect(headings).toEqual(["## @s/baz 0.1.0", "## foo 1.2.3", "## indented 1.0.0", "## qux 4.0.0"]);
    const sectionOf = (name: string) => notices.slice(notices.indexOf(`## ${name}`)).split("\n## ")[0]!;
    expect(sectionOf("foo")).toContain("License: MIT · https://foo.example");
    expect(sectionOf("foo")).toContain("LICENSE:\n\n```text\nMIT License\n\nCopyright (c) Foo Authors\n```");
    // A fence longer than any the text holds; the NOTICE file beside the license.
    expect(sectionOf("@s/baz")).toContain("License: ISC");
    expect(sectionOf("@s/baz")).toContain("LICENSE.md:\n\n````text\nISC License\n```\nCopyright Baz\n````");
    expect(sectionOf("@s/baz")).toContain("NOTICE:\n\n```text\nBaz includes software by Others.\n```");
    expect(sectionOf("qux")).toContain("The package ships no license file; its author: Qux Team.");
    expect(sectionOf("indented")).toContain("The text of MIT License (MIT), from the SPDX license list:");
    expect(sectionOf("qux")).toMatch(/The text of Apache License 2\.0 \(Apache-2\.0\), from the SPDX license list:\n\n```text\nApache License\nVersion 2\.0, January 2004/);
    expect(notices).not.toContain("bar's license");
  });
});
