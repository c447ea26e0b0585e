// The README's MCP client configurations, read out of README.md so that what is tested (DX-12) and
// what is measured (bench/newcomer.bench.ts) cannot drift from what the README tells a newcomer.
import { readFile } from "node:fs/promises";
import { join } from "node:path";

/** One `mcpServers` entry of an MCP host's configuration. */
export interface McpServerEntry {
  command: string;
  args: string[];
}

/**
 * The `mcpServers` entries of the json blocks of `<repo>/README.md`, in README order.
 *
 * @example
 * const [installed, fromClone] = await readmeMcpRecipes("/path/to/steamharness");
 */
export async function readmeMcpRecipes(repo: string): Promise<McpServerEntry[]> {
  const readme = await readFile(join(repo, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => JSON.parse(match[1]!) as { mcpServers?: Record<string, McpServerEntry> });
  return blocks.flatMap((block) => Object.values(block.mcpServers ?? {}));
}

/**
 * `text` with each placeholder (a key of `paths`, such as `/absolute/path/to/workflow`) replaced by its path.
 *
 * @example
 * fillPlaceholders("npx --prefix /absolute/path/to/workflow", { "/absolute/path/to/workflow": "/srv/flow" });
 */
export const fillPlaceholders = (text: string, paths: Record<string, string>): string =>
  Object.entries(paths).reduce((out, [placeholder, actual]) => out.split(placeholder).join(actual), text);
