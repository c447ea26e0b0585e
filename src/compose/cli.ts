/**
 * The CLI as the `steamharness` bin starts it (src/cli.ts): the one place its process's services
 * are built (ARCH-6), then handed to every command.
 */
import { runCli as runProgram } from "../adapters/driving/cli/program.js";
import { createSurfaceServices } from "./surface-services.js";

/**
 * Runs the CLI with this process's services; resolves `true` when the command ended on a fatal error.
 *
 * @example
 * if (await runCli(process.argv)) process.exit();
 */
export function runCli(argv: readonly string[]): Promise<boolean> {
  return runProgram(argv, createSurfaceServices(process.env));
}
