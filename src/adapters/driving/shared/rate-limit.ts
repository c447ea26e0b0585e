/**
 * A fixed-window rate limiter by key (SEC-7, TEN-7): the gateway's per-token limit, and the
 * failed-authentication limit per client address that the gateway, the configuration server and
 * `mcp --http --keys` share. Callers consult the failed-auth limiter only after a credential did
 * not verify, so a valid credential is served whatever its address's failure count: hammering
 * bad secrets from one address never locks out a valid user sending from it.
 */

/** At most `requests` in each window of `windowMs`. */
export interface RateLimit {
  requests: number;
  windowMs: number;
}

/** Failed authentications allowed per client address and minute before 429 (configuration server, `mcp --http --keys`). */
export const FAILED_AUTH_LIMIT: RateLimit = { requests: 30, windowMs: 60_000 };

/**
 * A fixed-window rate limiter by key (the token, a client address). `take` returns 0 when the
 * request may proceed, else the seconds until the window resets (the `Retry-After` value).
 *
 * @example
 * const limiter = createRateLimiter({ requests: 60, windowMs: 60_000 }, () => Date.now());
 * const wait = limiter.take("127.0.0.1");
 */
export function createRateLimiter(limit: RateLimit, now: () => number): { take(client: string): number } {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    take(client) {
      const at = now();
      let window = windows.get(client);
      if (!window || at - window.start >= limit.windowMs) {
        // Expired windows of other clients are dropped as they are met, so the map stays small.
        if (windows.size > 1024) for (const [key, value] of windows) if (at - value.start >= limit.windowMs) windows.delete(key);
        window = { start: at, count: 0 };
        windows.set(client, window);
      }
      if (window.count >= limit.requests) return Math.max(1, Math.ceil((window.start + limit.windowMs - at) / 1000));
      window.count++;
      return 0;
    },
  };
}
