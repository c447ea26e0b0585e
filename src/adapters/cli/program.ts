import { readFileSync } from "node:fs";
import { Command } from "commander";
import { isSteamharnessError } from "../../domain/errors.js";
import { registerMcpCommand, registerRunCommand, registerStructureCommand } from "./commands.js";
import { registerChatCommand } from "../chat/chat-command.js";
import { registerConfigCommand } from "../config-cli/config-command.js";
import { registerViewCommand } from "../viewer/view-command.js";

/**
 * The package version, read from package.json one level above this module (src/ or dist/).
 *
 * @example
 * packageVersion() // "0.1.0"
 */
export function packageVersion(moduleUrl: string = import.meta.url): string {
  for (const relative of ["../package.json", "../../../package.json"]) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(relative, moduleUrl), "utf8")) as { name?: string; version?: string };
      if (pkg.name === "steamharness" && pkg.version) return pkg.version;
    } catch {
      // try the next candidate
    }
  }
  return "0.0.0";
}

/**
 * The `steamharness` command line. Each subcommand registers itself; their implementations load
 * lazily inside the actions.
 *
 * @example
 * await createProgram().parseAsync(process.argv);
 */
export function createProgram(version = packageVersion()): Command {
  const program = new Command("steamharness")
    .description("Run LLM agents inside workflows; serve workflow projects as MCP tools.")
    .version(version, "-v, --version", "print the steamharness version")
    .showHelpAfterError();
  for (const register of [registerStructureCommand, registerRunCommand, registerMcpCommand, registerChatCommand, registerConfigCommand, registerViewCommand]) {
    register(program);
  }
  return program;
}

/**
 * Runs the CLI: parses `argv`, and prints a steamharness error as one line on stderr with exit
 * code 1 (2 for invalid input).
 *
 * @example
 * await runCli(process.argv);
 */
export async function runCli(argv: readonly string[]): Promise<void> {
  try {
    await createProgram().parseAsync([...argv]);
  } catch (error) {
    const message = isSteamharnessError(error) ? error.message : ((error as Error)?.stack ?? String(error));
    process.stderr.write(`steamharness: ${message}\n`);
    process.exitCode = isSteamharnessError(error, "input_validation") ? 2 : 1;
  }
}
