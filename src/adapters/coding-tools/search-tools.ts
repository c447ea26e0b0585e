import type { Dirent } from "node:fs";
import { readFile, readdir, stat } from "node:fs/promises";
import path from "node:path";
import { Type } from "@sinclair/typebox";
import { textToolResult, type AgentTool } from "../../domain/agent-tool.js";
import { SteamharnessError } from "../../domain/errors.js";
import { globToRegExp, matchesGlob } from "./glob.js";
import type { PathGuard } from "./path-guard.js";

const SKIPPED_DIRS = new Set([".git", "node_modules"]);
const MAX_FILE_BYTES = 1024 * 1024;

const FindParams = Type.Object({
  pattern: Type.String({ description: "Glob, e.g. **/*.ts or *.md" }),
  path: Type.Optional(Type.String({ description: "Directory to search (default: the workdir)" })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000 })),
});
const GrepParams = Type.Object({
  pattern: Type.String({ description: "Regular expression (or literal text with literal: true)" }),
  path: Type.Optional(Type.String({ description: "File or directory to search (default: the workdir)" })),
  glob: Type.Optional(Type.String({ description: "Only files matching this glob" })),
  ignoreCase: Type.Optional(Type.Boolean()),
  literal: Type.Optional(Type.Boolean()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
});

/** Walks a tree in name order without following symlinks (so nothing outside the roots is read). */
async function* walk(root: string, relative = ""): AsyncGenerator<{ absolute: string; relative: string }> {
  let entries: Dirent[];
  try {
    entries = await readdir(path.join(root, relative), { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const rel = relative === "" ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) yield* walk(root, rel);
    } else if (entry.isFile()) yield { absolute: path.join(root, rel), relative: rel };
  }
}

/**
 * The find and grep tools, implemented in Node (no ripgrep or fd download): they walk the tree
 * under a guarded directory, skipping `.git` and `node_modules` and never following symlinks.
 *
 * @example
 * const [find, grep] = createSearchTools(createPathGuard({ workdir }));
 */
export function createSearchTools(guard: PathGuard): AgentTool[] {
  const find: AgentTool<typeof FindParams> = {
    name: "find",
    label: "Find files",
    description: "Find files by glob pattern. Paths are relative to the searched directory.",
    parameters: FindParams,
    replay: "safe",
    async execute(_id, params) {
      const { pattern, path: dir = ".", limit = 1000 } = params as { pattern: string; path?: string; limit?: number };
      const root = await guard.resolve(dir);
      const compiled = globToRegExp(pattern);
      const found: string[] = [];
      for await (const file of walk(root)) {
        if (matchesGlob(pattern, file.relative, compiled)) found.push(file.relative);
        if (found.length >= limit) break;
      }
      return textToolResult(found.length === 0 ? "No files found" : found.join("\n"));
    },
  };
  const grep: AgentTool<typeof GrepParams> = {
    name: "grep",
    label: "Search file contents",
    description: "Search file contents for a regular expression; prints file:line: text.",
    parameters: GrepParams,
    replay: "safe",
    async execute(_id, params, signal) {
      const p = params as { pattern: string; path?: string; glob?: string; ignoreCase?: boolean; literal?: boolean; limit?: number };
      const source = p.literal ? p.pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : p.pattern;
      let regex: RegExp;
      try {
        regex = new RegExp(source, p.ignoreCase ? "i" : "");
      } catch (cause) {
        throw new SteamharnessError("input_validation", `invalid regular expression: ${(cause as Error).message}`, { field: "pattern" });
      }
      const target = await guard.resolve(p.path ?? ".");
      const info = await stat(target).catch(() => null);
      if (!info) throw new SteamharnessError("not_found", `not found: ${p.path ?? "."}`, { field: "path" });
      const files = info.isFile() ? [{ absolute: target, relative: path.basename(target) }] : walk(target);
      const globRegex = p.glob ? globToRegExp(p.glob) : null;
      const limit = p.limit ?? 100;
      const hits: string[] = [];
      for await (const file of files) {
        signal?.throwIfAborted();
        if (globRegex && p.glob && !matchesGlob(p.glob, file.relative, globRegex)) continue;
        const size = (await stat(file.absolute)).size;
        if (size > MAX_FILE_BYTES) continue;
        const text = await readFile(file.absolute, "utf8");
        if (text.includes("\u0000")) continue;
        const lines = text.split("\n");
        for (let i = 0; i < lines.length && hits.length < limit; i++) {
          if (regex.test(lines[i]!)) hits.push(`${file.relative}:${i + 1}: ${lines[i]!.slice(0, 500)}`);
        }
        if (hits.length >= limit) break;
      }
      return textToolResult(hits.length === 0 ? "No matches found" : hits.join("\n"));
    },
  };
  return [find, grep] as AgentTool[];
}
