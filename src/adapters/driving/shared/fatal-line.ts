import { CommanderError } from "commander";
import { isSteamharnessError, SteamharnessError } from "../../../domain/errors.js";
import { redactSecrets } from "../../../domain/redaction.js";

// DX-8: how a command that cannot go on says so — one line on stderr, `steamharness: <reason>`,
// whatever layer the error came from. Library messages carry their own `[steamharness] [area]`
// prefix (for hosts that log them); on the CLI's line that prefix would be said twice.

/**
 * The one stderr line of a fatal error: `steamharness: ` and the message, without the
 * `[steamharness] ` tags nested inside it, credentials redacted, on one line. An unexpected
 * (non-steamharness) error gets its stack only with `debug` (`--debug`).
 *
 * @example
 * fatalLine(new SteamharnessError("input_validation", "[steamharness] [gateway] bad token"), { secrets: [] })
 * // "steamharness: [gateway] bad token\n"
 */
export function fatalLine(error: unknown, options: { secrets: readonly string[]; debug?: boolean }): string {
  const hint = isSteamharnessError(error) || options.debug ? "" : " (run with --debug for the stack trace)";
  const stack = options.debug && error instanceof Error && error.stack ? `\n${redactSecrets(error.stack, options.secrets)}` : "";
  return `steamharness: ${errorReason(error, options.secrets)}${hint}${stack}\n`;
}

/**
 * Commander's `error: …` message as the CLI says it: one line, without commander's own prefix.
 *
 * @example
 * usageReason("error: unknown option '--x'\n") // "unknown option '--x'"
 */
export function usageReason(text: string): string {
  return text.replace(/^error: /, "").replace(/\s*\n\s*/g, " ").trim();
}

/**
 * The reason of an error on one line: `[steamharness] ` tags dropped (the line says `steamharness:`
 * once), credentials redacted, an unexpected error called so.
 *
 * @example
 * errorReason(new SteamharnessError("not_found", "[steamharness] [workflow] no project"), []) // "[workflow] no project"
 */
export function errorReason(error: unknown, secrets: readonly string[]): string {
  if (error instanceof CommanderError) return usageReason(error.message);
  const message = (error as Error)?.message ?? String(error);
  const text = message.replace(/\[steamharness\] /g, "").replace(/\s*\n\s*/g, "; ").trim();
  return redactSecrets(isSteamharnessError(error) ? text : `unexpected error: ${text}`, secrets);
}

/**
 * True when `--json` is among the options (before a `--`): stdout then holds one JSON document
 * whatever ends the command (DX-15).
 *
 * @example
 * wantsJson(["node", "steamharness", "run", ".", "greet", "--json"]) // true
 */
export function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).includes("--json");
}

/** True when the whole argument list asks for `--debug` (checked before commander parses, so a usage error still honours it). */
export function wantsDebug(argv: readonly string[]): boolean {
  return argv.includes("--debug");
}
