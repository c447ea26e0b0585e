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

/**
 * A listen error as the CLI reports it: a port in use or not ours to take becomes an
 * `input_validation` error on `--port` (exit code 2, the caller picks another port); anything
 * else is returned as it came.
 *
 * @example
 * throw listenError(error, { hostname: "127.0.0.1", port: 8787 });
 */
export function listenError(error: unknown, where: { hostname: string; port: number | undefined }): unknown {
  const code = (error as NodeJS.ErrnoException)?.code;
  const address = `${where.hostname}:${where.port ?? 0}`;
  if (code === "EADDRINUSE") return new SteamharnessError("input_validation", `port ${where.port} on ${where.hostname} is already in use (${address}): pass another --port, or --port 0 for a free one`, { field: "port", cause: error });
  if (code === "EACCES") return new SteamharnessError("input_validation", `not allowed to listen on ${address}: pass a port above 1023, or --port 0 for a free one`, { field: "port", cause: error });
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") return new SteamharnessError("input_validation", `cannot listen on ${address}: ${where.hostname} is not an address of this machine`, { field: "host", cause: error });
  return error;
}
