// `fs` as @modelcontextprotocol/conformance 0.1.16 sees it on Node 20, which has no fs.globSync
// (Node 22 does): every export of node:fs, plus a globSync for the only patterns the package
// uses (`**/<name>` and `<dir>/**/<name>` relative to `cwd`). Loaded only by the hook in
// node20-fs-glob.mjs, only for that package, only when node:fs lacks globSync.
import * as fs from "node:fs";
import { join, relative, sep } from "node:path";

export * from "node:fs";
export default fs.default ?? fs;

/** The files under `cwd` matching `pattern` (forward slashes only, as in the package). */
export function globSync(pattern, options = {}) {
  const cwd = typeof options.cwd === "string" ? options.cwd : process.cwd();
  const match = /^(?:(.+)\/)?\*\*\/([^*?[\]{}/]+)$/.exec(pattern);
  if (!match) throw new Error(`[steamharness] [conformance] the Node 20 globSync shim supports only "**/<name>" patterns, got ${JSON.stringify(pattern)}`);
  const [, prefix, name] = match;
  const root = prefix ? join(cwd, prefix) : cwd;
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name === name)
    .map((entry) => relative(cwd, join(entry.parentPath ?? entry.path, entry.name)).split(sep).join("/"))
    .sort();
}
