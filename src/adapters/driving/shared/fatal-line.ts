import { isSteamharnessError } from "../../../domain/errors.js";
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
  const known = isSteamharnessError(error);
  const message = (error as Error)?.message ?? String(error);
  let text = message.replace(/\[steamharness\] /g, "").replace(/\s*\n\s*/g, "; ").trim();
  if (!known) text = `unexpected error: ${text}${options.debug ? "" : " (run with --debug for the stack trace)"}`;
  const stack = options.debug && error instanceof Error && error.stack ? `\n${error.stack}` : "";
  return `steamharness: ${redactSecrets(text + stack, options.secrets)}\n`;
}

/** True when the whole argument list asks for `--debug` (checked before commander parses, so a usage error still honours it). */
export function wantsDebug(argv: readonly string[]): boolean {
  return argv.includes("--debug");
}
