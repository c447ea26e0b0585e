import { Command, CommanderError } from "commander";
import { isSteamharnessError } from "../../domain/errors.js";
import { redactSecrets, secretValues } from "../../domain/redaction.js";
import { EXIT_CODES_HELP, exitCodeOfError } from "./exit-codes.js";
import { registerInitCommand } from "./init/init-command.js";
import { readPackageManifest } from "./package-manifest.js";
import { registerMcpCommand, registerRunCommand, registerStructureCommand } from "./commands.js";
import { registerChatCommand } from "../chat/chat-command.js";
import { registerConfigCommand } from "../config-cli/config-command.js";
import { registerGatewayCommand } from "../gateway/gateway-command.js";
import { registerViewCommand } from "../viewer/view-command.js";

/**
 * The package version, read from package.json one level above this module (src/ or dist/).
 *
 * @example
 * packageVersion() // "0.1.0"
 */
export function packageVersion(moduleUrl: string = import.meta.url): string {
  return readPackageManifest(moduleUrl)?.version ?? "0.0.0";
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
    .description("Run LLM agents inside workflows; serve workflow projects as MCP tools and conversation projects as an OpenAI-compatible API.")
    .version(version, "-v, --version", "print the steamharness version")
    .showHelpAfterError()
    .addHelpText("after", `\n${EXIT_CODES_HELP}`)
    // Usage errors throw instead of exiting, so runCli gives them their exit code (2).
    .exitOverride();
  for (const register of [registerInitCommand, registerStructureCommand, registerRunCommand, registerMcpCommand, registerChatCommand, registerGatewayCommand, registerConfigCommand, registerViewCommand]) {
    register(program);
  }
  return program;
}

/**
 * Runs the CLI: parses `argv` and sets the exit code of {@link exitCodeOfError} when a command
 * fails (0 success, 1 failed, 2 usage or input error, 3 waiting for input). A steamharness error
 * is printed as one line on stderr; anything unexpected with its stack, redacted like run results.
 *
 * @example
 * await runCli(process.argv);
 */
export async function runCli(argv: readonly string[]): Promise<void> {
  try {
    await createProgram().parseAsync([...argv]);
  } catch (error) {
    process.exitCode = exitCodeOfError(error);
    // Commander has already printed its usage error (or the help / version it was asked for).
    if (error instanceof CommanderError) return;
    const message = isSteamharnessError(error) ? error.message : ((error as Error)?.stack ?? String(error));
    process.stderr.write(`steamharness: ${redactSecrets(message, secretValues(process.env))}\n`);
  }
}
