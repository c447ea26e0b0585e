// TEN-7: the configuration server's failed-authentication limit on a clock the test moves (real
// HTTP on loopback, in-memory accounts): per address, a window that ends, Retry-After counting
// down, and valid credentials served throughout.
import { describe, expect, it } from "@jest/globals";
import { startConfigurationServer } from "../../src/adapters/driving/config-server/config-server.js";
import { createMemoryConfigurationAccounts } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";

const ADMIN_KEY = "admin-key-for-tests-0123456789abcdef";

describe("TEN-7 failed-auth window", () => {
  it("TEN-7: after 3 failures the address gets 429 until the window ends; the admin key and a valid token are never refused", async () => {
    let at = 1_000_000;
    const clock = { now: () => at };
    const server = await startConfigurationServer({ accounts: createMemoryConfigurationAccounts({ clock }), adminKey: ADMIN_KEY, clock, failedAuthLimit: { requests: 3, windowMs: 60_000 } });
    try {
      const call = (token: string, path = "/v1/account") => fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
      const created = await fetch(`${server.url}/v1/accounts`, { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" }, body: JSON.stringify({ name: "team-a" }) });
      const { token } = (await created.json()) as { token: string };
      for (let i = 0; i < 3; i++) expect((await call("sht_guess")).status).toBe(401);
      const limited = await call("sht_guess");
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).toBe("60");
      expect((await call(token)).status).toBe(200);
      expect((await call(ADMIN_KEY, "/v1/accounts")).status).toBe(200);
      at += 45_000;
      expect((await call("sht_guess")).headers.get("retry-after")).toBe("15");
      at += 15_000;
      expect((await call("sht_guess")).status).toBe(401);
    } finally {
      await server.close();
    }
  });
});
