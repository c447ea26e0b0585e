import type { Command } from "commander";
import { addDataDirOptions, dataDirsFrom, type DataDirFlags } from "./shared-options.js";

interface McpFlags extends DataDirFlags {
  timeout?: string;
}

/**
 * `steamharness mcp <workflow-dir> [options]`: serves the project's entrypoints as MCP tools
 * over stdio (MCP-1 … MCP-8). The server module loads only when this command runs.
 *
 * @example
 * registerMcpCommand(program);
 */
export function registerMcpCommand(program: Command): void {
  const command = program
    .command("mcp")
    .description("serve a workflow project's entrypoints as MCP tools over stdio")
    .argument("<workflow-dir>", "workflow project folder (package.json with a UUID id and projectType \"workflow\")")
    .option("--timeout <ms>", "end a tool call's run after this many milliseconds (isError, status timeout)");
  addDataDirOptions(command).action(async (dir: string, flags: McpFlags) => {
    const { serveWorkflowOverStdio } = await import("../mcp/workflow-server.js");
    await serveWorkflowOverStdio({
      projectDir: dir,
      dirs: dataDirsFrom(flags),
      relatedProjects: flags.relatedProject ?? [],
      ...(flags.timeout ? { timeoutMs: Number(flags.timeout) } : {}),
    });
  });
}
