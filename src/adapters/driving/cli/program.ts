import { Command, CommanderError } from "commander";
import { secretValues } from "../../../domain/redaction.js";
import { cliRejection, exitCodeOfError } from "../shared/exit-codes.js";
import { styleHelp } from "./help-style.js";
import { fatalLine, usageReason, wantsDebug, wantsJson } from "../shared/fatal-line.js";

/** Adds one subcommand (or a group) to the program; each surface exports its own. */
export type RegisterCommand = (program: Command) => void;

/**
 * The `steamharness` command line with the given subcommands, in help order. Each surface
 * registers its own commands (ARCH-9: the composition root lists them, src/compose/cli.ts); their
 * implementations load lazily inside the actions.
 *
 * @example
 * await createProgram([registerRunCommand, registerChatCommand], "0.1.0").parseAsync(process.argv);
 */
export function createProgram(commands: readonly RegisterCommand[], version: string): Command {
  const program = new Command("steamharness")
    .description("Run LLM agents inside workflows; serve workflow projects as MCP tools and conversation projects as an OpenAI-compatible API.")
    .version(version, "-v, --version", "print the steamharness version")
    .option("--debug", "print the stack trace of an unexpected error")
    // DX-8: a usage error is one line, `steamharness: <what is wrong> (see … --help)`.
    .configureOutput({ outputError: (text, write) => write(usageLine(text)) })
    // Usage errors throw instead of exiting, so runCli gives them their exit code (2).
    .exitOverride();
  for (const register of commands) register(program);
  // DX-8: one help style everywhere, the exit-code table after every command's help.
  styleHelp(program);
  return program;
}

/** Commander's `error: …` message as the one line the CLI prints. */
function usageLine(text: string): string {
  return `steamharness: ${usageReason(text)} (see --help)\n`;
}

/**
 * Ends quietly when stdout's reader goes away (`steamharness run --help | head`): a broken
 * pipe is the reader's choice, not a crash to report.
 */
function exitOnBrokenPipe(): void {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
  });
}

/**
 * Runs the CLI: parses `argv` and sets the exit code of {@link exitCodeOfError} when a command
 * fails (0 success, 1 failed, 2 usage or input error, 3 waiting for input). A fatal error is
 * one line on stderr ({@link fatalLine}: no doubled prefix, a stack only with `--debug`),
 * redacted like run results; with `--json`, stdout also gets {@link cliRejection}'s document (DX-15). Resolves `true` when the command ended on a fatal error, so the bin
 * can end the process even if a handle is still open (DX-8: no command hangs on a fatal error).
 *
 * @example
 * if (await runCli(process.argv, commands, "0.1.0")) process.exit();
 */
export async function runCli(argv: readonly string[], commands: readonly RegisterCommand[], version: string): Promise<boolean> {
  exitOnBrokenPipe();
  try {
    await createProgram(commands, version).parseAsync([...argv]);
    return false;
  } catch (error) {
    process.exitCode = exitCodeOfError(error);
    // `--help` and `--version` end through commander's exit as well: they did what was asked.
    if (error instanceof CommanderError && error.exitCode === 0) return false;
    const secrets = secretValues(process.env);
    // DX-15: the command wrote no document (it would have ended without throwing): stdout gets the one a script parses.
    if (wantsJson(argv)) process.stdout.write(`${JSON.stringify(cliRejection(error, secrets), null, 2)}\n`);
    // Commander has already printed its usage line.
    if (!(error instanceof CommanderError)) process.stderr.write(fatalLine(error, { secrets, debug: wantsDebug(argv) }));
    return true;
  }
}
