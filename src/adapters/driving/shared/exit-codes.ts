import { CommanderError } from "commander";
import { isSteamharnessError } from "../../../domain/errors.js";
import type { WorkflowRunStatus } from "../../../domain/workflow/run-report.js";
import { errorReason } from "./fatal-line.js";

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

/** What `--json` prints on stdout when a command ends on an error before its own document (DX-15). */
export interface CliRejection {
  runId: null;
  status: "rejected";
  error: { code: string; message: string; field?: string; problems?: string[] };
}

/**
 * DX-15: the error part of the one JSON document a `--json` command prints when nothing ran: the
 * error's code (`input_validation` for a commander usage error, `internal` for an unexpected one),
 * the same reason as the stderr line (`fatalLine`), and the field and problems it names.
 *
 * @example
 * cliRejection(new SteamharnessError("not_found", "[steamharness] [workflow] no project"), []).error
 * // { code: "not_found", message: "[workflow] no project" }
 */
export function cliRejection(error: unknown, secrets: readonly string[]): CliRejection {
  const code = error instanceof CommanderError ? "input_validation" : isSteamharnessError(error) ? error.code : "internal";
  const out: CliRejection["error"] = { code, message: errorReason(error, secrets) };
  if (isSteamharnessError(error) && error.field !== undefined) out.field = error.field;
  const problems = isSteamharnessError(error) ? error.data?.problems : undefined;
  if (Array.isArray(problems)) out.problems = problems.map(String);
  return { runId: null, status: "rejected", error: out };
}
