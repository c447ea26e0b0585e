import { CommanderError } from "commander";
import { isSteamharnessError } from "../../../domain/errors.js";
import type { WorkflowRunStatus } from "../../../domain/workflow/run-report.js";

/**
 * The exit codes of `steamharness` (shown by `--help` and in the README). Scripts branch on
 * them: 2 means "fix the command line or the project", 3 means "a person must answer first".
 */
export const EXIT_CODES = {
  /** The command did what was asked (a run ended with status `success`). */
  success: 0,
  /** A run ended `failed` (business errCode, thrown error, crashed worker), `cancelled` or `timeout`; or an unexpected error. */
  failed: 1,
  /** Usage or input error: unknown option, a bad flag value (`--timeout abc`), invalid `--params`, unknown entrypoint, missing or invalid project, a port in use. Nothing ran. */
  usage: 2,
  /** The run is waiting for input or an approval that could not be asked here (`interaction_required`). */
  waitingForInput: 3,
} as const;

/** The exit-code table as `--help` prints it. */
export const EXIT_CODES_HELP = [
  "Exit codes:",
  `  ${EXIT_CODES.success}  success`,
  `  ${EXIT_CODES.failed}  the run failed, was cancelled or timed out (or an unexpected error)`,
  `  ${EXIT_CODES.usage}  usage or input error: bad option or flag value, bad --params, unknown entrypoint, missing or invalid project, port in use (nothing ran)`,
  `  ${EXIT_CODES.waitingForInput}  the run is waiting for input or an approval that could not be asked (no terminal)`,
].join("\n");

/**
 * The exit code of a finished run's status.
 *
 * @example
 * exitCodeOfStatus("waiting_for_input") // 3
 */
export function exitCodeOfStatus(status: WorkflowRunStatus): number {
  if (status === "success") return EXIT_CODES.success;
  if (status === "waiting_for_input") return EXIT_CODES.waitingForInput;
  return EXIT_CODES.failed;
}

/**
 * The exit code of an error that ended a command: what the user gave was wrong
 * (`input_validation`, `not_found`, `relation_unconfirmed`, a commander usage error) → 2; `interaction_required` → 3;
 * anything else → 1. Commander's own `--help`/`--version` exits keep their code (0).
 *
 * @example
 * exitCodeOfError(new SteamharnessError("not_found", "unknown entrypoint")) // 2
 */
export function exitCodeOfError(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_CODES.success : EXIT_CODES.usage;
  if (isSteamharnessError(error, "input_validation") || isSteamharnessError(error, "not_found") || isSteamharnessError(error, "relation_unconfirmed")) return EXIT_CODES.usage;
  if (isSteamharnessError(error, "interaction_required")) return EXIT_CODES.waitingForInput;
  return EXIT_CODES.failed;
}
