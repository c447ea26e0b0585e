/**
 * Which names an HTTP server on this machine answers to (SEC-7, TEN-7): a web page whose name an
 * attacker re-points at 127.0.0.1 (DNS rebinding) reaches a loopback server with its own name in
 * `Host`, and any page sends its origin in `Origin`. Only loopback names, the address the server
 * listens on and names the operator allows (`--allowed-host`) are served, so a bearer secret is
 * not the only defence. The gateway and the configuration server share this check.
 */
import type { IncomingMessage } from "node:http";
import { SteamharnessError } from "../../../domain/errors.js";

/** The names every server serves: loopback. */
export const LOOPBACK_HOSTS: readonly string[] = ["localhost", "127.0.0.1", "::1"];

const normalHost = (name: string): string => name.toLowerCase().replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");

/** `localhost:8787` → `localhost`, `[::1]:80` → `::1`; `null` when it is not a host[:port]. */
function hostnameOf(header: string): string | null {
  const found = /^(?:\[([0-9a-f:.]+)\]|([^:[\]\s/@]+))(?::\d{1,5})?$/i.exec(header.trim());
  return found ? normalHost(found[1] ?? found[2]!) : null;
}

/**
 * A host name as `--allowed-host` and `allowedHosts` take it: a DNS name or an IP address,
 * without scheme or port. Throws `input_validation` for anything else.
 *
 * @example
 * allowedHostName("Gateway.Example"); // "gateway.example"
 */
export function allowedHostName(name: string): string {
  const normal = typeof name === "string" ? normalHost(name.trim()) : "";
  if (!/^(?:[a-z0-9_-]+(?:\.[a-z0-9_-]+)*|[0-9a-f:.]*:[0-9a-f:.]*)$/.test(normal)) {
    throw new SteamharnessError("input_validation", `[steamharness] [http] allowed host '${String(name)}' is not a host name or IP address (no scheme, port or path)`, { field: "allowedHosts" });
  }
  return normal;
}

/**
 * Whether a name is a loopback name or address (127.0.0.0/8, `::1`, `localhost`; brackets and
 * case ignored).
 *
 * @example
 * isLoopbackHost("[::1]") // true
 * isLoopbackHost("config.example.com") // false
 */
export function isLoopbackHost(name: string): boolean {
  const normal = normalHost(name);
  return normal === "localhost" || normal === "::1" || /^127(?:\.\d{1,3}){3}$/.test(normal);
}

const shown = (value: string): string => JSON.stringify(value.length > 100 ? `${value.slice(0, 97)}...` : value);

/** Why a request's `Host` or `Origin` is refused. */
export interface HostRefusal {
  code: "host_not_allowed" | "origin_not_allowed";
  message: string;
}

/**
 * The Host/Origin check of one server (`what` names it in messages): `refusal` returns why a
 * request is refused (answer 403) or `null`; `allowHost` adds a served name (the listening
 * address).
 *
 * @example
 * const hosts = createHostCheck([], "configuration server");
 * const refused = hosts.refusal(request); // null for Host: 127.0.0.1:8790
 */
export function createHostCheck(allowedHosts: readonly string[], what: string) {
  const hosts = new Set([...LOOPBACK_HOSTS, ...allowedHosts.map(allowedHostName)]);
  return {
    /** Serves `name` too (an address the server listens on; not the wildcards). */
    allowHost(name: string): void {
      if (name !== "0.0.0.0" && name !== "::") hosts.add(normalHost(name));
    },
    refusal(request: IncomingMessage): HostRefusal | null {
      const host = request.headers.host;
      const hostname = host === undefined ? null : hostnameOf(host);
      if (hostname === null || !hosts.has(hostname)) {
        return { code: "host_not_allowed", message: `The Host ${host === undefined ? "(none)" : shown(host)} is not served by this ${what}; allow it with --allowed-host (allowedHosts).` };
      }
      const origin = request.headers.origin;
      if (origin === undefined) return null;
      let originHost: string | null = null;
      try {
        const url = new URL(origin);
        if (url.protocol === "http:" || url.protocol === "https:") originHost = normalHost(url.hostname);
      } catch {
        // not a URL (`null` from a sandboxed page or a file): refused below
      }
      if (originHost !== null && hosts.has(originHost)) return null;
      return { code: "origin_not_allowed", message: `Requests from the origin ${shown(origin)} are not served by this ${what}; allow its host with --allowed-host (allowedHosts).` };
    },
  };
}
