// DX-16 no dependency declares a Node newer than the README's minimum (as content-type 3 did,
// `>=22`, which made `npm ci` warn EBADENGINE on Node 20): every package the lock file installs
// admits some release of that major, or the README's Node paragraph names it (in backticks).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "@jest/globals";

// semver is npm's own range logic (here through the dev dependencies), without type declarations.
const semver = createRequire(import.meta.url)("semver") as { intersects(a: string, b: string): boolean };

const readme = readFileSync("README.md", "utf8");
const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as { packages: Record<string, { version?: string; engines?: { node?: string } }> };
// The paragraph that starts with the requirement.
const nodeLine = (readme.split("\n\n").find((paragraph) => paragraph.startsWith("Node.js ≥ ")) ?? "").replace(/\s+/g, " ");

describe("DX-16 Node versions the dependencies declare", () => {
  it("DX-16 every installed package admits a release of the README's minimum Node major, or the README's Node paragraph names it", () => {
    const minimum = /^Node\.js ≥ (\d+)\b/.exec(nodeLine)?.[1];
    expect(minimum).toBe((JSON.parse(readFileSync("package.json", "utf8")) as { engines: { node: string } }).engines.node.replace(/^>=(\d+).*$/, "$1"));
    const unnoted = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== "" && entry.engines?.node && !semver.intersects(entry.engines.node, `${minimum}.x`))
      .map(([path, entry]) => ({ name: path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length), version: entry.version, node: entry.engines!.node! }))
      .filter(({ name }) => !nodeLine.includes(`\`${name}\``));
    expect(unnoted).toEqual([]);
  });
});
