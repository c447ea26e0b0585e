/**
 * The dedicated connections that hold session leases (SES-2 across machines). A lease is a
 * session-level advisory lock, which lives exactly as long as the server session that took it,
 * so every held lease owns one connection, outside the ordinary pool: a held session never takes
 * a pool connection from queries, and the pool's idle reaping never ends a lease.
 *
 * The budget is explicit: at most `maxConnections` lease connections exist at once (held,
 * idle or connecting); past it `acquire` rejects with `storage_failure` instead of waiting. A few
 * released connections are kept idle for the next lease (their prepared statements with them).
 */
import pg from "pg";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import { SteamharnessError } from "../../../../domain/errors.js";
import { clientDeadlineMs, CONNECT_TIMEOUT_MS, deadlineClient, DEFAULT_STATEMENT_TIMEOUT_MS } from "../postgres-deadlines.js";

/** TCP keepalive of lease connections, which bounds how long a vanished machine keeps its leases. */
export interface PostgresLeaseKeepAlive {
  /** Idle seconds before the first probe (default 10). */
  idleSeconds?: number;
  /** Seconds between probes (default 5). */
  intervalSeconds?: number;
  /** Unanswered probes before the connection is dropped (default 3). */
  count?: number;
}

/** Options of the lease connections. */
export interface PostgresLeaseConnectionOptions {
  /** How to connect (host, user, …); keepalive and application name are set here. */
  connection: pg.ClientConfig;
  /** At most this many lease connections at once (default 32): the most sessions one backend holds at a time. */
  maxConnections?: number;
  /** Released connections kept open for the next lease (default 4). */
  maxIdle?: number;
  keepAlive?: PostgresLeaseKeepAlive;
  /**
   * Server statement timeout of each connection unless `connection` sets `statement_timeout`
   * (default 30 000 ms, 0: none); a query unanswered 2 s past it ends its connection, and the
   * lease on it is lost.
   */
  statementTimeoutMs?: number;
}

/** One lease connection: its client, a drizzle handle on it, and whether it is still usable. */
export interface LeaseConnection {
  readonly client: pg.Client;
  readonly db: NodePgDatabase;
  /** True once the connection errored or ended: the server has dropped (or will drop) its locks. */
  lost(): boolean;
  /** Runs `work` after every earlier piece of work on this connection (a transaction never interleaves). */
  serial<T>(work: () => Promise<T>): Promise<T>;
}

/** The pool of lease connections. */
export interface LeaseConnectionPool {
  /** A live connection (idle one or new). Rejects with `storage_failure` past the budget or when connecting fails. */
  take(): Promise<LeaseConnection>;
  /** Gives a connection back: kept idle when healthy and there is room, else ended. */
  give(connection: LeaseConnection, healthy: boolean): Promise<void>;
  /** Ends idle connections and refuses new ones; held ones end when their leases are released. */
  close(): Promise<void>;
}

/** The keepalive defaults: a vanished peer is noticed after at most 10 + 5 × 3 = 25 s. */
export const DEFAULT_LEASE_KEEPALIVE: Required<PostgresLeaseKeepAlive> = { idleSeconds: 10, intervalSeconds: 5, count: 3 };

/**
 * Seconds after which the server drops the leases of a machine that vanished without closing its
 * connections (power loss, network cut): the server's keepalive idle time plus its probes.
 *
 * @example
 * leaseTakeoverBoundSeconds({ idleSeconds: 10, intervalSeconds: 5, count: 3 }) // 25
 */
export function leaseTakeoverBoundSeconds(keepAlive: PostgresLeaseKeepAlive = {}): number {
  const k = { ...DEFAULT_LEASE_KEEPALIVE, ...keepAlive };
  return k.idleSeconds + k.intervalSeconds * k.count;
}

/**
 * The lease connections of one backend. Each connection sets TCP keepalive on both ends: the
 * client's socket (`keepAlive`, so a holder learns it lost its server) and the server's
 * (`tcp_keepalives_*` as startup options, so the server ends a backend whose machine vanished
 * and thereby drops its advisory locks).
 *
 * @example
 * const leases = createLeaseConnectionPool({ connection: { connectionString } });
 * const connection = await leases.take();
 */
export function createLeaseConnectionPool(options: PostgresLeaseConnectionOptions): LeaseConnectionPool {
  const max = options.maxConnections ?? 32;
  const maxIdle = options.maxIdle ?? 4;
  const keepAlive = { ...DEFAULT_LEASE_KEEPALIVE, ...options.keepAlive };
  const idle: LeaseConnection[] = [];
  let count = 0;
  let closed = false;
  const statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const LeaseClient = deadlineClient(clientDeadlineMs(statementTimeoutMs));
  const serverKeepAlive = `-c tcp_keepalives_idle=${keepAlive.idleSeconds} -c tcp_keepalives_interval=${keepAlive.intervalSeconds} -c tcp_keepalives_count=${keepAlive.count}`;
  const config: pg.ClientConfig = {
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    ...(statementTimeoutMs === 0 ? {} : { statement_timeout: statementTimeoutMs }),
    ...options.connection,
    keepAlive: true,
    keepAliveInitialDelayMillis: keepAlive.idleSeconds * 1000,
    application_name: options.connection.application_name ?? "steamharness-session-lease",
    options: [options.connection.options, serverKeepAlive].filter(Boolean).join(" "),
  };

  const open = async (): Promise<LeaseConnection> => {
    const client = new LeaseClient(config);
    let lost = false;
    // An idle client whose server session ends emits "error"; without a listener it would crash the process.
    client.on("error", () => void (lost = true));
    client.on("end", () => void (lost = true));
    await client.connect();
    let tail: Promise<unknown> = Promise.resolve();
    return {
      client,
      db: drizzle({ client }),
      lost: () => lost,
      serial<T>(work: () => Promise<T>): Promise<T> {
        const next = tail.then(work, work);
        tail = next.catch(() => undefined);
        return next;
      },
    };
  };
  const end = async (connection: LeaseConnection): Promise<void> => {
    count--;
    await connection.client.end().catch(() => undefined);
  };

  return {
    async take() {
      if (closed) throw new SteamharnessError("unavailable", "[steamharness] [postgres] the session backend is closed");
      while (idle.length > 0) {
        const connection = idle.pop()!;
        if (!connection.lost()) return connection;
        await end(connection);
      }
      if (count >= max) {
        throw new SteamharnessError("storage_failure", `[steamharness] [postgres] all ${max} session lease connections are in use (maxLeaseConnections): release a session first`, { data: { maxConnections: max } });
      }
      count++;
      try {
        return await open();
      } catch (error) {
        count--;
        throw error;
      }
    },
    async give(connection, healthy) {
      if (healthy && !closed && !connection.lost() && idle.length < maxIdle) {
        idle.push(connection);
        return;
      }
      await end(connection);
    },
    async close() {
      closed = true;
      await Promise.all(idle.splice(0).map(end));
    },
  };
}
