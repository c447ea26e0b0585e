import type { Server } from "node:http";
import { SteamharnessError } from "../../../domain/errors.js";

// DX-14: every server (`server`, `gateway`, `view`, `mcp --http`, the host bridge) binds its port
// here, so a port in use reads the same everywhere: one `input_validation` error naming the port
// and the option to change it (the CLI's exit code 2), never a raw `EADDRINUSE`.

/** Where a server listens. */
export interface ListenAddress {
  /** The address to bind (`127.0.0.1`, `::1`, `0.0.0.0`, a host name). */
  hostname: string;
  /** The port; `undefined` or 0 picks a free one. */
  port: number | undefined;
  /** Refuse to share the port with cluster workers (Node's `exclusive`). */
  exclusive?: boolean;
}

/** A bound server: the port it got and the address as a URL's host part (`[::1]:8080`). */
export interface Listening {
  port: number;
  /** `hostname:port`, an IPv6 address in brackets: what goes after `http://`. */
  authority: string;
}

/**
 * Binds `server` and resolves with the port it got. A bind that fails rejects with
 * {@link listenError}'s `input_validation` error (a port in use, a privileged port, an address
 * not on this machine); the server is left unbound.
 *
 * @example
 * const { port, authority } = await listenOn(createServer(handler), { hostname: "127.0.0.1", port: 0 });
 * console.error(`listening on http://${authority}/`);
 */
export async function listenOn(server: Server, where: ListenAddress): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error) => reject(listenError(error, where));
    server.once("error", failed);
    server.listen({ port: where.port ?? 0, host: where.hostname, ...(where.exclusive ? { exclusive: true } : {}) }, () => {
      server.off("error", failed);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : (where.port ?? 0);
  const shown = where.hostname.includes(":") && !where.hostname.startsWith("[") ? `[${where.hostname}]` : where.hostname;
  return { port, authority: `${shown}:${port}` };
}

/**
 * A listen error as every server reports it: a port in use or not ours to take becomes an
 * `input_validation` error on `--port` (exit code 2, the caller picks another port); anything
 * else is returned as it came.
 *
 * @example
 * throw listenError(error, { hostname: "127.0.0.1", port: 8787 });
 */
export function listenError(error: unknown, where: ListenAddress): unknown {
  const code = (error as NodeJS.ErrnoException)?.code;
  const address = `${where.hostname}:${where.port ?? 0}`;
  if (code === "EADDRINUSE") return new SteamharnessError("input_validation", `port ${where.port} on ${where.hostname} is already in use (${address}): pass another --port, or --port 0 for a free one`, { field: "port", cause: error });
  if (code === "EACCES") return new SteamharnessError("input_validation", `not allowed to listen on ${address}: pass a port above 1023, or --port 0 for a free one`, { field: "port", cause: error });
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") return new SteamharnessError("input_validation", `cannot listen on ${address}: ${where.hostname} is not an address of this machine`, { field: "host", cause: error });
  return error;
}
