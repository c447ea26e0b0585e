/**
 * Bounded waits on PostgreSQL (SEC-8). A server that stops answering — paused, wedged, behind a
 * dead link the kernel still acknowledges — must not leave a store call pending forever.
 *
 * Two bounds, because one is not enough:
 * - `statement_timeout` (sent at connection start-up): the server cancels a statement that runs
 *   longer. The connection stays usable, but only a server that runs can enforce it.
 * - A client deadline a little later (2 s): a query unanswered by then ends
 *   its connection (pg's `end()` destroys the socket of a connection with a query in flight), so
 *   every query on it fails at once and a pool drops it instead of handing a wedged connection
 *   (possibly inside an open transaction) to the next caller. Later calls open fresh connections,
 *   bounded by the connect timeout, so the store works again as soon as the server answers.
 */
import pg from "pg";
import { SteamharnessError } from "../../../domain/errors.js";

/** The statement timeout of the connections a store opens unless `statementTimeoutMs` says otherwise. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
/** How long connecting (and waiting for a pool connection) may take. */
export const CONNECT_TIMEOUT_MS = 10_000;
// The client waits this much longer than the server, so a running server reports its own timeout.
const CLIENT_GRACE_MS = 2_000;

/**
 * The checked `statementTimeoutMs` option: a whole number of milliseconds, 0 for no bound, or the
 * default when absent. Throws `input_validation` otherwise.
 *
 * @example
 * checkStatementTimeout(undefined) // 30000
 * checkStatementTimeout(-1) // throws input_validation
 */
export function checkStatementTimeout(value: unknown): number {
  if (value === undefined) return DEFAULT_STATEMENT_TIMEOUT_MS;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new SteamharnessError("input_validation", "[steamharness] [postgres] statementTimeoutMs must be a whole number of milliseconds (0 turns the bound off)", {
      field: "statementTimeoutMs",
    });
  }
  return value;
}

type QueryCallback = (error: Error | null, result?: unknown) => void;

/**
 * A `pg.Client` class whose queries end the connection when unanswered after `deadlineMs`: the
 * query's caller gets a `[steamharness] [postgres]` error naming the deadline, queued queries
 * get pg's "Connection terminated". Submittables (cursors, streams) keep pg's own behaviour.
 * Give it to a pool as `Client` or construct lease connections from it.
 *
 * @example
 * const pool = new pg.Pool({ connectionString, Client: deadlineClient(32_000) });
 */
function deadlineClient(deadlineMs: number): typeof pg.Client {
  if (deadlineMs === 0) return pg.Client;
  return class DeadlineClient extends pg.Client {
    // pg's overloads (text or config, optional values, optional callback) funnel through here.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    override query(...args: any[]): any {
      const run = super.query.bind(this) as (...a: unknown[]) => unknown;
      if (typeof args[0]?.submit === "function" || typeof args[0]?.callback === "function") return run(...args);
      let callback = typeof args[args.length - 1] === "function" ? (args.pop() as QueryCallback) : undefined;
      const answer = callback ? undefined : new Promise((resolve, reject) => (callback = (error, result) => (error ? reject(error) : resolve(result))));
      let done = false;
      const finish: QueryCallback = (error, result) => void (done || ((done = true), clearTimeout(timer), callback!(error, result)));
      // Ending a connection with a query in flight destroys its socket: every query on it fails at once.
      const timer = setTimeout(() => {
        finish(new Error(`[steamharness] [postgres] no answer from the server within ${deadlineMs} ms: the connection was closed`));
        this.end().catch(() => undefined);
      }, deadlineMs);
      run(...args, finish);
      return answer;
    }
  };
}

/**
 * The pool settings of a pool a store makes: connect timeout, server statement timeout and the
 * deadline client.
 *
 * @example
 * new pg.Pool({ connectionString, ...boundedPoolConfig(30_000) });
 */
export function boundedPoolConfig(statementTimeoutMs: number): pg.PoolConfig {
  return {
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    ...(statementTimeoutMs === 0 ? {} : { statement_timeout: statementTimeoutMs }),
    Client: deadlineClient(statementTimeoutMs === 0 ? 0 : statementTimeoutMs + CLIENT_GRACE_MS),
  };
}
