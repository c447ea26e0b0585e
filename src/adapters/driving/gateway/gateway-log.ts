import type { IncomingMessage, ServerResponse } from "node:http";
import { redactSecrets } from "../../../domain/redaction.js";

// DX-9: the gateway's log — one line per request (method, path, status, milliseconds) and one
// per failure (the error code and message; for an unexpected error its own message and stack,
// which the client is not shown). Paths are logged without their query string, and the bearer
// token (any value in `secrets`) is replaced by `[redacted]` wherever it would appear.

/** A failure to log: what failed, its code and message, and details the client did not get. */
export interface GatewayFailure {
  method?: string;
  path?: string;
  status?: number;
  runId?: string;
  conversationId?: string;
  code: string;
  message: string;
  detail?: string;
}

/** The gateway's log lines, written through `write`. */
export interface GatewayLog {
  /** Logs the request's line once its response has ended or its socket closed. */
  request(request: IncomingMessage, response: ServerResponse): void;
  /** Logs one failure line (details on the lines after it, indented). */
  failure(failure: GatewayFailure): void;
}

/**
 * The path a log line names: the request URL without its query string.
 *
 * @example
 * gatewayRequestPath(request) // "/v1/responses"
 */
export function gatewayRequestPath(request: IncomingMessage): string {
  return (request.url ?? "/").split("?")[0]!;
}

/**
 * A gateway log writing each line through `write` (the CLI: stderr), with `secrets` redacted;
 * `now` is the clock in milliseconds.
 *
 * @example
 * const log = createGatewayLog((line) => process.stderr.write(`${line}\n`), [token]);
 * log.request(request, response);
 */
export function createGatewayLog(write: (line: string) => void, secrets: readonly string[], now: () => number = Date.now): GatewayLog {
  const emit = (line: string) => {
    try {
      write(redactSecrets(line, secrets));
    } catch {
      // A log that cannot be written (a closed stderr) never fails a request.
    }
  };
  return {
    request(request, response) {
      const started = now();
      response.once("close", () => {
        const aborted = !response.writableFinished ? " (client closed the connection)" : "";
        emit(`${new Date(started).toISOString()} ${request.method ?? "GET"} ${gatewayRequestPath(request)} ${response.statusCode} ${now() - started}ms${aborted}`);
      });
    },
    failure(failure) {
      const where = [failure.method && failure.path ? `${failure.method} ${failure.path}` : "", failure.status === undefined ? "" : String(failure.status), failure.runId ? `run ${failure.runId}` : "", failure.conversationId ? `conversation ${failure.conversationId}` : ""].filter(Boolean).join(" ");
      const detail = failure.detail === undefined ? "" : `\n${failure.detail.split("\n").map((line) => `    ${line.trim()}`).join("\n")}`;
      emit(`${new Date(now()).toISOString()} failure ${where}: ${failure.code}: ${failure.message}${detail}`);
    },
  };
}
