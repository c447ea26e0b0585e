import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { Type } from "@sinclair/typebox";
import { textToolResult, type AgentTool } from "../../../domain/agent-tool.js";
import { SteamharnessError } from "../../../domain/errors.js";
import { readWholeBounded } from "./bounded-read.js";
import { assertRegular, openChildDir, openConfinedDir, openRegularFile, type ConfinedDir } from "./confined-fs.js";
import { compileGlob, matchesGlob } from "./glob.js";
import type { PathGuard } from "./path-guard.js";
import { startLineMatcher } from "./regex-worker.js";

const SKIPPED_DIRS = new Set([".git", "node_modules"]);
const MAX_FILE_BYTES = 1024 * 1024;
const GREP_TIMEOUT_MS = 30_000;

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

/** A regular file met by {@link walk}: its name in an open, confined directory. */
interface WalkEntry {
  dir: ConfinedDir;
  name: string;
  relative: string;
}

/**
 * Walks a tree in name order without following symlinks: each subdirectory is opened through its
 * parent's descriptor with O_NOFOLLOW, so a directory swapped for a link mid-walk is skipped, not
 * entered (SEC-1).
 */
async function* walk(guard: PathGuard, dir: ConfinedDir, relative = ""): AsyncGenerator<WalkEntry> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir.self, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const rel = relative === "" ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory()) {
      if (SKIPPED_DIRS.has(entry.name)) continue;
      const sub = await openChildDir(guard, dir, entry.name, rel).catch(() => null);
      if (!sub) continue;
      try {
        yield* walk(guard, sub, rel);
      } finally {
        await sub.close();
      }
    } else if (entry.isFile()) yield { dir, name: entry.name, relative: rel };
  }
}

/** A file's bytes for grep, or `null` when it is not a regular file any more, or above 1 MB. */
async function smallFile(guard: PathGuard, entry: WalkEntry): Promise<Uint8Array | null> {
  const opened = await openRegularFile(guard, entry.dir, entry.name, entry.relative).catch(() => null);
  if (!opened) return null;
  return readWholeBounded(opened.handle, opened.info.size, MAX_FILE_BYTES, entry.relative)
    .catch(() => null)
    .finally(() => opened.handle.close());
}

/** The directory to walk (or the single file to search) at a guarded path. */
async function searchRoot(guard: PathGuard, target: string): Promise<{ dir: ConfinedDir; file?: WalkEntry }> {
  const real = await guard.resolve(target);
  const shown = guard.display(real);
  const info = await stat(real).catch(() => null);
  if (!info) throw new SteamharnessError("not_found", `[steamharness] [coding-tools] not found: ${target}`, { field: "path" });
  if (info.isDirectory()) return { dir: await openConfinedDir(guard, real, shown) };
  assertRegular(info, shown);
  const dir = await openConfinedDir(guard, path.dirname(real), shown);
  return { dir, file: { dir, name: path.basename(real), relative: path.basename(real) } };
}

async function* filesOf(guard: PathGuard, root: { dir: ConfinedDir; file?: WalkEntry }): AsyncGenerator<WalkEntry> {
  if (root.file) yield root.file;
  else yield* walk(guard, root.dir);
}

/**
 * The find and grep tools, implemented in Node (no ripgrep or fd download): they walk the tree
 * under a guarded directory, skipping `.git` and `node_modules` and never following symlinks.
 * grep's regex runs in a worker thread stopped at `grepTimeoutMs` (default 30 s) or on abort, so a
 * backtracking pattern never blocks the host (SEC-3).
 *
 * @example
 * const [find, grep] = createSearchTools(createPathGuard({ workdir }));
 */
export function createSearchTools(guard: PathGuard, options: { grepTimeoutMs?: number } = {}): AgentTool[] {
  const find: AgentTool<typeof FindParams> = {
    name: "find",
    label: "Find files",
    description: "Find files by glob pattern. Paths are relative to the searched directory.",
    parameters: FindParams,
    replay: "safe",
    async execute(_id, params) {
      const { pattern, path: dir = ".", limit = 1000 } = params as { pattern: string; path?: string; limit?: number };
      const compiled = compileGlob(pattern);
      const real = await guard.resolve(dir);
      const root = await openConfinedDir(guard, real, guard.display(real));
      const found: string[] = [];
      try {
        for await (const file of walk(guard, root)) {
          if (matchesGlob(pattern, file.relative, compiled)) found.push(file.relative);
          if (found.length >= limit) break;
        }
      } finally {
        await root.close();
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
      const globRegex = p.glob ? compileGlob(p.glob) : null;
      const root = await searchRoot(guard, p.path ?? ".");
      const limit = p.limit ?? 100;
      const hits: string[] = [];
      const matcher = startLineMatcher(regex.source, regex.flags, { timeoutMs: options.grepTimeoutMs ?? GREP_TIMEOUT_MS, ...(signal ? { signal } : {}) });
      try {
        for await (const file of filesOf(guard, root)) {
          if (signal?.aborted) throw new SteamharnessError("cancelled", "[steamharness] [coding-tools] grep: cancelled");
          if (globRegex && p.glob && !matchesGlob(p.glob, file.relative, globRegex)) continue;
          const bytes = await smallFile(guard, file);
          if (bytes) hits.push(...(await matcher.match(file.relative, bytes, limit - hits.length)));
          if (hits.length >= limit) break;
        }
      } finally {
        matcher.close();
        await root.dir.close();
      }
      return textToolResult(hits.length === 0 ? "No matches found" : hits.join("\n"));
    },
  };
  return [find, grep] as AgentTool[];
}
