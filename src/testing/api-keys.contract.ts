import type { ApiKeyStore } from "../ports/api-keys.js";
import { defineContract, errorCode, uniqueId, type ContractCases, type ContractFactory, type ContractOptions, type ContractTestApi } from "./contract-support.js";

/** Raw access an API-key subject may offer: a second store on the same database (another connection or handle). */
export interface ApiKeyStoreInspect {
  peer?: ApiKeyStore;
}

const AT = Date.UTC(2026, 11, 1, 12, 0, 10);
const MINUTE = 60_000;

const cases: ContractCases<ApiKeyStore, ApiKeyStoreInspect> = {
  "add shows the secret once; list never does; verify finds the key and its tenant": async ({ store, expect }) => {
    const tenant = uniqueId("tenant");
    const { key, secret } = await store.add({ id: tenant, budgetTokens: 1000, budgetPeriod: "day", requestsPerMinute: 5, concurrency: 2 }, AT);
    expect(secret.startsWith(key.id)).toBe(true);
    expect(secret.length).toBeGreaterThan(40);
    expect(key).toEqual({ id: key.id, tenantId: tenant, createdAt: AT, revokedAt: null });
    const listed = (await store.list()).filter((record) => record.tenantId === tenant);
    expect(listed).toEqual([key]);
    expect(JSON.stringify(await store.list())).not.toContain(secret);
    expect(await store.verify(secret)).toEqual({ key, tenant: { id: tenant, budgetTokens: 1000, budgetPeriod: "day", requestsPerMinute: 5, concurrency: 2 } });
    // A second key of the tenant changes the limits it names and keeps the others.
    const second = await store.add({ id: tenant, concurrency: 7, tokensPerMinute: 500 }, AT + 1);
    expect(second.secret).not.toBe(secret);
    expect(await store.tenant(tenant)).toEqual({ id: tenant, budgetTokens: 1000, budgetPeriod: "day", requestsPerMinute: 5, concurrency: 7, tokensPerMinute: 500 });
    expect((await store.verify(secret))?.tenant.concurrency).toBe(7);
  },
  "unknown and malformed secrets verify as null": async ({ store, expect }) => {
    const { secret } = await store.add({ id: uniqueId("tenant") }, AT);
    expect(await store.verify(`${secret.slice(0, -1)}${secret.endsWith("A") ? "B" : "A"}`)).toBeNull();
    expect(await store.verify("")).toBeNull();
    expect(await store.verify("not a key")).toBeNull();
    expect(await store.tenant(uniqueId("missing"))).toBeNull();
  },
  "a revoked key verifies as null, also through a second handle; revoking again answers false": async ({ store, inspect, expect }) => {
    const { key, secret } = await store.add({ id: uniqueId("tenant") }, AT);
    const other = await store.add({ id: key.tenantId }, AT);
    expect(await store.revoke(key.id, AT + 5)).toBe(true);
    expect(await (inspect?.peer ?? store).verify(secret)).toBeNull();
    expect(await store.verify(other.secret)).not.toBeNull();
    expect(await store.revoke(key.id, AT + 6)).toBe(false);
    expect(await store.revoke(uniqueId("sh_missing"), AT)).toBe(false);
    expect((await store.list()).find((record) => record.id === key.id)?.revokedAt).toBe(AT + 5);
  },
  "a rate window counts up to its limit, tells when it resets, and starts again in the next minute": async ({ store, expect }) => {
    const tenant = uniqueId("tenant");
    for (let n = 0; n < 3; n++) expect(await store.take(tenant, "requests", 1, 3, AT + n)).toEqual({ ok: true });
    const refused = await store.take(tenant, "requests", 1, 3, AT + 10);
    expect(refused).toEqual({ ok: false, retryAfterMs: MINUTE - ((AT + 10) % MINUTE) });
    expect(await store.take(tenant, "requests", 1, 3, AT + MINUTE)).toEqual({ ok: true });
    // Tokens: charged after the fact; amount 0 asks whether the window is below its limit.
    expect(await store.take(tenant, "tokens", 0, 100, AT)).toEqual({ ok: true });
    await store.charge(tenant, "tokens", 150, AT);
    expect((await store.take(tenant, "tokens", 0, 100, AT)).ok).toBe(false);
    expect((await store.take(tenant, "tokens", 0, 200, AT)).ok).toBe(true);
    expect((await store.take(tenant, "tokens", 60, 200, AT)).ok).toBe(false);
    expect((await store.take(tenant, "tokens", 0, 100, AT + MINUTE)).ok).toBe(true);
  },
  "concurrent takes never count past the limit, also through a second handle": async ({ store, inspect, expect }) => {
    const tenant = uniqueId("tenant");
    const stores = [store, inspect?.peer ?? store];
    const outcomes = await Promise.all(Array.from({ length: 30 }, (_, n) => stores[n % 2]!.take(tenant, "requests", 1, 11, AT)));
    expect(outcomes.filter((outcome) => outcome.ok).length).toBe(11);
  },
  "slots hold a tenant's concurrency; release, expiry and renewal": async ({ store, expect }) => {
    const tenant = uniqueId("tenant");
    const [a, b, c] = [uniqueId("slot"), uniqueId("slot"), uniqueId("slot")];
    expect(await store.acquire(tenant, a, 2, AT, 1000)).toEqual({ ok: true });
    expect(await store.acquire(tenant, b, 2, AT, 1000)).toEqual({ ok: true });
    expect((await store.acquire(tenant, c, 2, AT, 1000)).ok).toBe(false);
    expect((await store.acquire(uniqueId("tenant"), c, 2, AT, 1000)).ok).toBe(true);
    await store.release(a);
    await store.release(uniqueId("missing"));
    expect(await store.acquire(tenant, a, 2, AT + 1, 1000)).toEqual({ ok: true });
    // b renewed survives its first expiry; a (not renewed) frees itself.
    expect(await store.renew(b, AT + 900, 1000)).toBe(true);
    expect(await store.acquire(tenant, uniqueId("slot"), 2, AT + 1001, 1000)).toEqual({ ok: true });
    expect((await store.acquire(tenant, uniqueId("slot"), 2, AT + 1002, 1000)).ok).toBe(false);
    expect(await store.renew(a, AT + 5000, 1000)).toBe(false);
  },
  "concurrent acquires never hold more slots than the limit, also through a second handle": async ({ store, inspect, expect }) => {
    const tenant = uniqueId("tenant");
    const stores = [store, inspect?.peer ?? store];
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, n) => stores[n % 2]!.acquire(tenant, uniqueId("slot"), 3, AT, 60_000)));
    expect(outcomes.filter((outcome) => outcome.ok).length).toBe(3);
  },
  "invalid input is refused and changes nothing": async ({ store, expect }) => {
    const tenant = uniqueId("tenant");
    expect(await errorCode(() => store.add({ id: "" }, AT))).toBe("input_validation");
    expect(await errorCode(() => store.add({ id: tenant, concurrency: 0 }, AT))).toBe("input_validation");
    expect(await errorCode(() => store.add({ id: tenant, budgetUsd: -1 }, AT))).toBe("input_validation");
    expect(await errorCode(() => store.add({ id: tenant, budgetPeriod: "week" as "day" }, AT))).toBe("input_validation");
    expect(await errorCode(() => store.take(tenant, "requests", -1, 3, AT))).toBe("input_validation");
    expect(await errorCode(() => store.take(tenant, "requests", 1, 0, AT))).toBe("input_validation");
    expect(await errorCode(() => store.acquire(tenant, "", 1, AT, 1000))).toBe("input_validation");
    expect(await store.tenant(tenant)).toBeNull();
  },
};

/**
 * Contract suite for the API-key port (BUD-4): secrets shown once and verified by digest,
 * revocation seen through a second handle (`inspect.peer`), tenant limits merged per key, rate
 * windows and concurrency slots that never pass their limit under concurrent callers on two handles.
 *
 * @example
 * runApiKeyStoreContract({ describe, it, expect }, () => ({ store: createMemoryApiKeyStore() }));
 */
export function runApiKeyStoreContract(api: ContractTestApi, factory: ContractFactory<ApiKeyStore, ApiKeyStoreInspect>, options: ContractOptions<keyof typeof cases & string> = {}): void {
  defineContract(api, "ApiKeyStore", factory, cases, options);
}
