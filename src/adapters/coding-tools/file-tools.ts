import { mkdir, readFile, readdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { Type } from "@sinclair/typebox";
import { textToolResult, type AgentTool } from "../../domain/agent-tool.js";
import { SteamharnessError } from "../../domain/errors.js";
import { unifiedDiff } from "../../domain/unified-diff.js";
import type { PathGuard } from "./path-guard.js";

const MAX_READ_LINES = 2000;
const MAX_READ_BYTES = 256 * 1024;

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

async function readText(file: string): Promise<string> {
  const info = await stat(file).catch(() => null);
  if (!info) throw new SteamharnessError("not_found", `file not found: ${file}`, { field: "path" });
  if (!info.isFile()) throw new SteamharnessError("input_validation", `not a regular file: ${file}`, { field: "path" });
  return readFile(file, "utf8");
}

/**
 * The read, write, edit and ls tools over a {@link PathGuard}. write and edit declare
 * `replay: "never"` (SES-4); read and ls are safe to redo.
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
      const file = await guard.resolve(target);
      const lines = (await readText(file)).split("\n");
      let text = lines.slice(offset - 1, offset - 1 + Math.min(limit, MAX_READ_LINES)).join("\n");
      let truncated = offset - 1 + limit < lines.length;
      if (text.length > MAX_READ_BYTES) {
        text = text.slice(0, MAX_READ_BYTES);
        truncated = true;
      }
      return textToolResult(truncated ? `${text}\n\n[truncated: ${lines.length} lines in total; continue with offset]` : text, { path: guard.display(file) });
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
      const file = await guard.resolve(target);
      const existed = (await stat(file).catch(() => null)) !== null;
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content, "utf8");
      const bytes = Buffer.byteLength(content);
      // `file` rows (OUT-9) show which file was written, whether it is new, and its size.
      return textToolResult(`Wrote ${bytes} bytes to ${guard.display(file)}`, { path: guard.display(file), bytes, created: !existed });
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
      const file = await guard.resolve(target);
      const text = await readText(file);
      const first = text.indexOf(oldText);
      if (first < 0) throw new SteamharnessError("not_found", `oldText was not found in ${guard.display(file)}`, { field: "oldText" });
      if (text.indexOf(oldText, first + 1) >= 0) {
        throw new SteamharnessError("input_validation", `oldText occurs more than once in ${guard.display(file)}; include more context`, { field: "oldText" });
      }
      const edited = text.slice(0, first) + newText + text.slice(first + oldText.length);
      await writeFile(file, edited, "utf8");
      // `patch` rows (OUT-9) show the change as a unified diff.
      return textToolResult(`Edited ${guard.display(file)}`, { path: guard.display(file), diff: unifiedDiff(guard.display(file), text, edited) });
    },
  };
  const ls: AgentTool<typeof LsParams> = {
    name: "ls",
    label: "List directory",
    description: "List a directory's entries, directories marked with a trailing /.",
    parameters: LsParams,
    replay: "safe",
    async execute(_id, params) {
      const dir = await guard.resolve((params as { path?: string }).path ?? ".");
      const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
        throw new SteamharnessError(error.code === "ENOENT" ? "not_found" : "input_validation", `cannot list ${guard.display(dir)}: ${error.code}`, { field: "path" });
      });
      const names = entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort();
      return textToolResult(names.length === 0 ? "(empty directory)" : names.join("\n"));
    },
  };
  return [read, write, edit, ls] as AgentTool[];
}
