/**
 * The head of an MCP POST's event stream, sent with its first event (MCP-11). The SDK answers a
 * POST that carries a request with a `text/event-stream` response and its Node adapter flushes
 * that response's head as soon as the stream opens, before the request's handler has answered.
 * A server whose handler answers at once sends head and answer in one write, but a workflow call
 * answers after its worker run: head and answer left in two writes, and the client woke up twice
 * per call (once to parse a head with nothing after it). Held until the first event, they leave
 * in one write. A call still running after {@link RESPONSE_HEAD_HOLD_MS} gets its head then, so a
 * client or proxy still sees a long call start well within any timeout.
 */
import type { ServerResponse } from "node:http";

/** How long the head of a POST's event stream waits for its first event before it is sent alone. */
export const RESPONSE_HEAD_HOLD_MS = 1000;

/**
 * Makes `res.flushHeaders()` wait: the head then leaves with the first body write (Node sends a
 * response's head with its first write), or alone after `holdMs` if no write came by then.
 * Only this response is changed (its own `flushHeaders`); nothing is held once the response
 * ends or its connection closes.
 *
 * @example
 * holdResponseHead(res); // before transport.handleRequest(req, res, body)
 */
export function holdResponseHead(res: ServerResponse, holdMs: number = RESPONSE_HEAD_HOLD_MS): void {
  const flush = res.flushHeaders.bind(res);
  let timer: NodeJS.Timeout | undefined;
  const release = () => clearTimeout(timer);
  res.flushHeaders = () => {
    if (timer !== undefined) return;
    timer = setTimeout(() => {
      // `headersSent` is true once `writeHead` stored the head; whether it went out is Node's `_headerSent`.
      if (!(res as ServerResponse & { _headerSent?: boolean })._headerSent && !res.writableEnded && !res.destroyed) flush();
    }, holdMs);
    // A held head never keeps a closing process alive.
    timer.unref();
    res.once("finish", release).once("close", release);
  };
}
