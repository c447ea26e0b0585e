import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "@jest/globals";

const SRC = join(process.cwd(), "src");
const LOADER = "adapters/driven/providers/pi-ai-loader.ts";

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The provider library and the two SDKs it brings, which the adapter also uses directly (SEC-6). */
const PROVIDER_PACKAGES = String.raw`@mariozechner\/pi-ai[^"']*|openai|@anthropic-ai\/sdk`;

/** Runtime (non-type) references to the provider library or its SDKs in one file's text. */
function runtimePiAiImports(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(new RegExp(String.raw`^\s*(import|export)\s+(type\s+)?[^;]*?from\s+["'](${PROVIDER_PACKAGES})["']`, "gms"))) {
    if (!match[2]) found.push(`static ${match[3]}`);
  }
  for (const match of text.matchAll(new RegExp(String.raw`import\(\s*["'](${PROVIDER_PACKAGES})["']\s*\)`, "g"))) found.push(`dynamic ${match[1]}`);
  return found;
}

describe("PORT the provider library stays behind the provider adapter", () => {
  it("only pi-ai-loader.ts loads @mariozechner/pi-ai or its SDKs (openai, @anthropic-ai/sdk), and only with dynamic import()", () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const name = relative(SRC, file).split("\\").join("/");
      const imports = runtimePiAiImports(readFileSync(file, "utf8"));
      const allowed = name === LOADER ? imports.filter((entry) => entry.startsWith("dynamic ")) : [];
      for (const entry of imports) if (!allowed.includes(entry)) offenders.push(`${name}: ${entry}`);
    }
    expect(offenders).toEqual([]);
    expect(runtimePiAiImports(readFileSync(join(SRC, LOADER), "utf8")).sort()).toEqual([
      "dynamic @anthropic-ai/sdk",
      // BUD-2: the library's model catalog (prices), loaded only when a money budget has no configured price.
      "dynamic @mariozechner/pi-ai",
      "dynamic @mariozechner/pi-ai/anthropic",
      "dynamic @mariozechner/pi-ai/openai-completions",
      "dynamic openai",
    ]);
  });

  it("the check catches a static import and passes a type-only one", () => {
    expect(runtimePiAiImports('import { stream } from "@mariozechner/pi-ai";')).toEqual(["static @mariozechner/pi-ai"]);
    expect(runtimePiAiImports('import type { Model } from "@mariozechner/pi-ai";')).toEqual([]);
    expect(runtimePiAiImports('const m = await import("@mariozechner/pi-ai/anthropic");')).toEqual(["dynamic @mariozechner/pi-ai/anthropic"]);
    expect(runtimePiAiImports('import OpenAI from "openai";')).toEqual(["static openai"]);
    expect(runtimePiAiImports('import type Anthropic from "@anthropic-ai/sdk";')).toEqual([]);
  });
});
