import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { createCodingTools } from "../../src/adapters/driven/coding-tools/index.js";
import { compileGlob } from "../../src/adapters/driven/coding-tools/glob.js";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";

/** The glob-to-RegExp translation the tools used before SEC-3 (the reference for the semantics). */
function referenceRegExp(pattern: string): RegExp {
  let source = "";
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === "*") {
      if (pattern[i + 1] === "*") {
        const slash = pattern[i + 2] === "/";
        source += slash ? "(?:.*/)?" : ".*";
        i += slash ? 2 : 1;
      } else source += "[^/]*";
    } else if (char === "?") source += "[^/]";
    else if (char === "{") {
      depth++;
      source += "(?:";
    } else if (char === "}" && depth > 0) {
      depth--;
      source += ")";
    } else if (char === "," && depth > 0) source += "|";
    else source += char.replace(/[.+^$()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

const balanced = (pattern: string) => {
  let depth = 0;
  for (const char of pattern) {
    if (char === "{") depth++;
    else if (char === "}" && depth > 0) depth--;
  }
  return depth === 0;
};

describe("SEC-3 globs match in linear time", () => {
  it("SEC-3 compileGlob agrees with the previous RegExp translation on random patterns and paths", () => {
    const patternChar = fc.constantFrom("a", "b", "/", ".", "*", "**", "**/", "?", "{", "}", ",", "(", "+", "\n");
    const subjectChar = fc.constantFrom("a", "b", "/", ".", "(", "+", ",", "\n");
    fc.assert(
      fc.property(fc.array(patternChar, { maxLength: 12 }).map((parts) => parts.join("")).filter(balanced), fc.array(subjectChar, { maxLength: 14 }).map((parts) => parts.join("")), (pattern, subject) => {
        expect([pattern, subject, compileGlob(pattern).test(subject)]).toEqual([pattern, subject, referenceRegExp(pattern).test(subject)]);
      }),
      { numRuns: 3000 },
    );
  });

  it("SEC-3 an unclosed brace is input_validation, not a raw SyntaxError", async () => {
    const workdir = tempDirRemovedAfterAll("glob-brace-");
    const find = createCodingTools({ workdir }).find((tool) => tool.name === "find")!;
    const error = await find.execute("c", { pattern: "{a,b" }).catch((e: unknown) => e);
    expect(isSteamharnessError(error, "input_validation")).toBe(true);
  });

  it("SEC-3 find with a backtracking glob (*a*a*a*a*c) over a long name returns while a 100 ms host timer keeps ticking", async () => {
    const workdir = tempDirRemovedAfterAll("glob-evil-");
    mkdirSync(path.join(workdir, "d"));
    writeFileSync(path.join(workdir, "d", "a".repeat(120)), "x");
    const tools = Object.fromEntries(createCodingTools({ workdir }).map((tool) => [tool.name, tool]));
    let last = Date.now();
    let maxGap = 0;
    const ticker = setInterval(() => {
      maxGap = Math.max(maxGap, Date.now() - last);
      last = Date.now();
    }, 100);
    try {
      expect((await tools.find!.execute("c", { pattern: "*a*a*a*a*c" })).content[0]!.text).toBe("No files found");
      expect((await tools.grep!.execute("c", { pattern: "x", glob: "*a*a*a*a*c" })).content[0]!.text).toBe("No matches found");
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(maxGap).toBeLessThan(600);
    } finally {
      clearInterval(ticker);
    }
  });
});
