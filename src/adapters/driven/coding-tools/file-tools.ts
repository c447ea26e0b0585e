import { readdir } from "node:fs/promises";
import path from "node:path";
import { Type } from "@sinclair/typebox";
import { textToolResult, type AgentTool } from "../../../domain/agent-tool.js";
import { SteamharnessError } from "../../../domain/errors.js";
import { unifiedDiff } from "../../../domain/unified-diff.js";
import { readLinePage, readWholeBounded } from "./bounded-read.js";
import { assertRegular, ensureConfinedDir, entryAt, openConfinedDir, openRegularFile, openVerifiedFile, refused, writeAtomically, type ConfinedDir } from "./confined-fs.js";
import type { PathGuard } from "./path-guard.js";

const MAX_READ_LINES = 2000;
const MAX_READ_BYTES = 256 * 1024;
/** The largest file `edit` loads (SEC-2): it holds the file and its edited copy in memory. */
export const MAX_EDIT_BYTES = 10 * 1024 * 1024;

const ReadParams = Type.Object({
  path: Type.String({ description: "File path, relative to the workdir or absolute inside it" }),
  offset: Type.Optional(Type.Integer({ minimum: 1, description: "First line to read (1-based)" })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: "Number of lines to read" })),
});
const WriteParams = Type.Object({
  path: Type.String({ description: "File path; parent directories are created" }),
  content: Type.String({ description: "The whole new content of the file" }),
});
const EditParams = Type.Object({
  path: Type.String({ description: "File path" }),
  oldText: Type.String({ description: "Exact text to replace; must occur exactly once" }),
  newText: Type.String({ description: "Replacement text" }),
});
const LsParams = Type.Object({ path: Type.Optional(Type.String({ description: "Directory (default: the workdir)" })) });

/**
 * Resolves `target` through the guard and opens its parent directory (verified inside a root,
 * created when `create`): the file is then reached through that descriptor, by name (SEC-1).
 */
async function locate(guard: PathGuard, target: string, create: boolean): Promise<{ shown: string; dir: ConfinedDir; name: string }> {
  const real = await guard.resolve(target);
  const shown = guard.display(real);
  if ((await guard.realRoots()).includes(real)) throw refused(`${shown} is a directory, not a regular file`, "not_regular");
  const dir = await (create ? ensureConfinedDir : openConfinedDir)(guard, path.dirname(real), shown);
  return { shown, dir, name: path.basename(real) };
}

/**
 * The read, write, edit and ls tools over a {@link PathGuard}. write and edit declare
 * `replay: "never"` (SES-4); read and ls are safe to redo. No tool follows a link at the last
 * component or leaves the roots through a swapped parent (SEC-1); only regular files are opened,
 * never blocking; read streams one page and edit refuses files above {@link MAX_EDIT_BYTES}
 * (SEC-2); write and edit replace the file atomically (a temp file renamed over it).
 *
 * @example
 * const [read, write, edit, ls] = createFileTools(createPathGuard({ workdir }));
 */
export function createFileTools(guard: PathGuard): AgentTool[] {
  const read: AgentTool<typeof ReadParams> = {
    name: "read",
    label: "Read file",
    description: `Read a text file (at most ${MAX_READ_LINES} lines or ${MAX_READ_BYTES / 1024} KB; use offset/limit for more).`,
    parameters: ReadParams,
    replay: "safe",
    async execute(_id, params) {
      const { path: target, offset = 1, limit = MAX_READ_LINES } = params as { path: string; offset?: number; limit?: number };
      const real = await guard.resolve(target);
      const shown = guard.display(real);
      const opened = await openVerifiedFile(guard, real, shown);
      const page = await readLinePage(opened.handle, offset, Math.min(limit, MAX_READ_LINES), MAX_READ_BYTES).finally(() => opened.handle.close());
      const cut = page.cut ? `line ${page.lastLine} is cut at ${MAX_READ_BYTES / 1024} KB; ` : "";
      const note = `\n\n[truncated: ${cut}lines ${offset}-${page.lastLine} of a ${opened.info.size}-byte file shown; continue with offset ${page.lastLine + 1}]`;
      return textToolResult(page.more ? `${page.text}${note}` : page.text, { path: shown });
    },
  };
  const write: AgentTool<typeof WriteParams> = {
    name: "write",
    label: "Write file",
    description: "Create or overwrite a file with the given content.",
    parameters: WriteParams,
    replay: "never",
    async execute(_id, params) {
      const { path: target, content } = params as { path: string; content: string };
      const { shown, dir, name } = await locate(guard, target, true);
      let existed = false;
      try {
        const existing = await entryAt(dir, name, shown);
        if (existing) assertRegular(existing, shown);
        existed = existing !== null;
        await writeAtomically(guard, dir, name, content, existing ? existing.mode & 0o7777 : undefined, shown);
      } finally {
        await dir.close();
      }
      const bytes = Buffer.byteLength(content);
      // `file` rows (OUT-9) show which file was written, whether it is new, and its size.
      return textToolResult(`Wrote ${bytes} bytes to ${shown}`, { path: shown, bytes, created: !existed });
    },
  };
  const edit: AgentTool<typeof EditParams> = {
    name: "edit",
    label: "Edit file",
    description: "Replace one exact occurrence of oldText with newText in a file.",
    parameters: EditParams,
    replay: "never",
    async execute(_id, params) {
      const { path: target, oldText, newText } = params as { path: string; oldText: string; newText: string };
      if (oldText === "") throw new SteamharnessError("input_validation", "oldText must not be empty", { field: "oldText" });
      const { shown, dir, name } = await locate(guard, target, false);
      try {
        const { handle, info } = await openRegularFile(guard, dir, name, shown);
        const text = (await readWholeBounded(handle, info.size, MAX_EDIT_BYTES, shown).finally(() => handle.close())).toString("utf8");
        const first = text.indexOf(oldText);
        if (first < 0) throw new SteamharnessError("not_found", `oldText was not found in ${shown}`, { field: "oldText" });
        if (text.indexOf(oldText, first + 1) >= 0) {
          throw new SteamharnessError("input_validation", `oldText occurs more than once in ${shown}; include more context`, { field: "oldText" });
        }
        const edited = text.slice(0, first) + newText + text.slice(first + oldText.length);
        await writeAtomically(guard, dir, name, edited, info.mode & 0o7777, shown);
        // `patch` rows (OUT-9) show the change as a unified diff.
        return textToolResult(`Edited ${shown}`, { path: shown, diff: unifiedDiff(shown, text, edited) });
      } finally {
        await dir.close();
      }
    },
  };
  const ls: AgentTool<typeof LsParams> = {
    name: "ls",
    label: "List directory",
    description: "List a directory's entries, directories marked with a trailing /.",
    parameters: LsParams,
    replay: "safe",
    async execute(_id, params) {
      const real = await guard.resolve((params as { path?: string }).path ?? ".");
      const shown = guard.display(real);
      const dir = await openConfinedDir(guard, real, shown);
      const entries = await readdir(dir.self, { withFileTypes: true })
        .catch((error: NodeJS.ErrnoException) => {
          throw new SteamharnessError(error.code === "ENOENT" ? "not_found" : "input_validation", `cannot list ${shown}: ${error.code}`, { field: "path" });
        })
        .finally(() => dir.close());
      const names = entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort();
      return textToolResult(names.length === 0 ? "(empty directory)" : names.join("\n"));
    },
  };
  return [read, write, edit, ls] as AgentTool[];
}
