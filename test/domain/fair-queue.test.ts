import { createFairQueue, type FairQueue, type FairQueueSlot } from "../../src/domain/fair-queue.js";
import { isSteamharnessError } from "../../src/domain/errors.js";

const granted = new Map<string, FairQueueSlot>();

/** Acquires for `tenant` and records the grant order in `order` (by `label`). */
function take(queue: FairQueue, tenant: string, order: string[], label: string, signal?: AbortSignal): Promise<FairQueueSlot> {
  return queue.acquire(tenant, { signal }).then((slot) => {
    order.push(label);
    granted.set(label, slot);
    return slot;
  });
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** With one slot: releases `held`, then each newly granted slot in turn, `count` times. */
async function drain(held: FairQueueSlot, order: string[], count: number): Promise<void> {
  let current = held;
  for (let i = 0; i < count; i += 1) {
    current.release();
    await settle();
    expect(order).toHaveLength(i + 1);
    current = granted.get(order[i]!)!;
  }
  current.release();
}

describe("createFairQueue (BUD-5)", () => {
  it("BUD-5 grants at once while slots are free, then queues", async () => {
    const queue = createFairQueue({ capacity: 2 });
    const a = await queue.acquire("a");
    const b = await queue.acquire("b");
    let queued = 0;
    const third = queue.acquire("a", { onQueued: (state) => (queued = state.waiting) });
    expect(queued).toBe(1);
    expect(queue.state("a")).toEqual({ running: 2, waiting: 1, tenantRunning: 1, tenantWaiting: 1 });
    b.release();
    const slot = await third;
    expect(slot.tenant).toBe("a");
    expect(queue.state("a")).toEqual({ running: 2, waiting: 0, tenantRunning: 2, tenantWaiting: 0 });
    a.release();
    slot.release();
    expect(queue.state()).toEqual({ running: 0, waiting: 0, tenantRunning: 0, tenantWaiting: 0 });
  });

  it("BUD-5 serves waiting tenants round-robin, each tenant first come first served", async () => {
    const queue = createFairQueue({ capacity: 1 });
    const first = await queue.acquire("noisy");
    const order: string[] = [];
    const labels = ["noisy#1", "noisy#2", "noisy#3", "noisy#4", "quiet#1", "other#1", "quiet#2"];
    for (const label of labels) void take(queue, label.split("#")[0]!, order, label);
    await drain(first, order, labels.length);
    // A FIFO would give noisy#1..4 first. Fair turns interleave the tenants, and noisy, served
    // last (the slot it holds), waits for the tenants not served yet.
    expect(order).toEqual(["quiet#1", "other#1", "noisy#1", "quiet#2", "noisy#2", "noisy#3", "noisy#4"]);
    expect(queue.state()).toMatchObject({ running: 0, waiting: 0 });
  });

  it("BUD-5 a released slot passes to the next waiter, so a newcomer does not jump the queue", async () => {
    const queue = createFairQueue({ capacity: 1 });
    const held = await queue.acquire("a");
    const order: string[] = [];
    const waiting = take(queue, "b", order, "b");
    held.release();
    const newcomer = take(queue, "c", order, "c");
    (await waiting).release();
    (await newcomer).release();
    expect(order).toEqual(["b", "c"]);
  });

  it("BUD-5 a per-tenant cap keeps a tenant's waiters waiting while other tenants use the free slots", async () => {
    const queue = createFairQueue({ capacity: 3, tenantCapacity: 1 });
    const a1 = await queue.acquire("a");
    const order: string[] = [];
    const a2 = take(queue, "a", order, "a#2");
    const b1 = await take(queue, "b", order, "b#1");
    await settle();
    expect(order).toEqual(["b#1"]);
    expect(queue.state("a")).toEqual({ running: 2, waiting: 1, tenantRunning: 1, tenantWaiting: 1 });
    a1.release();
    (await a2).release();
    b1.release();
    expect(order).toEqual(["b#1", "a#2"]);
    expect(queue.state()).toMatchObject({ running: 0, waiting: 0 });
  });

  it("BUD-5 releaseTenant gives back the tenant's share at once and the slot only on release: a capped tenant's next call takes another free slot meanwhile", async () => {
    const queue = createFairQueue({ capacity: 2, tenantCapacity: 1 });
    const a1 = await queue.acquire("a");
    const order: string[] = [];
    const a2 = take(queue, "a", order, "a#2");
    await settle();
    expect(order).toEqual([]);
    a1.releaseTenant();
    await settle();
    expect(order).toEqual(["a#2"]);
    // a1's slot is still taken (its worker is busy), a2 holds the tenant's one share.
    expect(queue.state("a")).toEqual({ running: 2, waiting: 0, tenantRunning: 1, tenantWaiting: 0 });
    a1.releaseTenant();
    a1.release();
    a1.release();
    a1.releaseTenant();
    expect(queue.state("a")).toEqual({ running: 1, waiting: 0, tenantRunning: 1, tenantWaiting: 0 });
    (await a2).release();
    expect(queue.state("a")).toEqual({ running: 0, waiting: 0, tenantRunning: 0, tenantWaiting: 0 });
  });

  it("BUD-5 after releaseTenant the slot still counts: with every slot taken the tenant's next call waits for release", async () => {
    const queue = createFairQueue({ capacity: 1, tenantCapacity: 1 });
    const a1 = await queue.acquire("a");
    const order: string[] = [];
    const a2 = take(queue, "a", order, "a#2");
    a1.releaseTenant();
    await settle();
    expect(order).toEqual([]);
    expect(queue.state("a")).toEqual({ running: 1, waiting: 1, tenantRunning: 0, tenantWaiting: 1 });
    a1.release();
    (await a2).release();
    expect(order).toEqual(["a#2"]);
    expect(queue.state()).toMatchObject({ running: 0, waiting: 0 });
  });

  it("BUD-5 a tenant cap may differ per tenant (a function), Infinity capacity is no overall limit", async () => {
    const queue = createFairQueue({ capacity: Infinity, tenantCapacity: (tenant) => (tenant === "small" ? 1 : undefined) });
    const big = await Promise.all(Array.from({ length: 50 }, () => queue.acquire("big")));
    const small = await queue.acquire("small");
    let queued = false;
    const second = queue.acquire("small", { onQueued: () => (queued = true) });
    expect(queued).toBe(true);
    small.release();
    (await second).release();
    for (const slot of big) slot.release();
    expect(queue.state()).toMatchObject({ running: 0, waiting: 0 });
  });

  it("BUD-5 weights give a tenant that many grants per turn", async () => {
    const queue = createFairQueue({ capacity: 1, weight: (tenant) => (tenant === "heavy" ? 2 : 1) });
    const held = await queue.acquire("x");
    const order: string[] = [];
    const labels = ["heavy#1", "heavy#2", "heavy#3", "heavy#4", "light#1", "light#2"];
    for (const label of labels) void take(queue, label.split("#")[0]!, order, label);
    await drain(held, order, labels.length);
    expect(order).toEqual(["heavy#1", "heavy#2", "light#1", "heavy#3", "heavy#4", "light#2"]);
  });

  it("BUD-5 an aborted waiter leaves the queue with a typed cancelled error and the slot goes to the next", async () => {
    const queue = createFairQueue({ capacity: 1 });
    const held = await queue.acquire("a");
    const controller = new AbortController();
    const order: string[] = [];
    const aborted = take(queue, "b", order, "b", controller.signal).catch((error) => error);
    const next = take(queue, "c", order, "c");
    controller.abort(new Error("client went away"));
    const error = await aborted;
    expect(isSteamharnessError(error, "cancelled")).toBe(true);
    expect(error.message).toMatch(/^\[steamharness\] \[fair-queue\] /);
    expect(error.data).toEqual({ tenant: "b" });
    expect(queue.state("b")).toEqual({ running: 1, waiting: 1, tenantRunning: 0, tenantWaiting: 0 });
    held.release();
    (await next).release();
    expect(order).toEqual(["c"]);
    // Aborting after the grant changes nothing.
    const late = new AbortController();
    const slot = await queue.acquire("d", { signal: late.signal });
    late.abort();
    expect(queue.state("d")).toMatchObject({ running: 1, tenantRunning: 1 });
    slot.release();
  });

  it("BUD-5 an already aborted signal rejects at once without taking a slot", async () => {
    const queue = createFairQueue({ capacity: 1 });
    const error = await queue.acquire("a", { signal: AbortSignal.abort() }).catch((e) => e);
    expect(isSteamharnessError(error, "cancelled")).toBe(true);
    expect(queue.state()).toMatchObject({ running: 0, waiting: 0 });
  });

  it("BUD-5 release is idempotent: a second call frees nothing more", async () => {
    const queue = createFairQueue({ capacity: 1 });
    const slot = await queue.acquire("a");
    const order: string[] = [];
    const b = take(queue, "b", order, "b");
    const c = take(queue, "c", order, "c");
    slot.release();
    slot.release();
    await settle();
    expect(order).toEqual(["b"]);
    expect(queue.state()).toMatchObject({ running: 1, waiting: 1 });
    (await b).release();
    (await c).release();
    expect(queue.state()).toMatchObject({ running: 0, waiting: 0 });
  });

  it("BUD-5 close rejects every waiter and later acquires; granted slots stay valid", async () => {
    const queue = createFairQueue({ capacity: 1 });
    const held = await queue.acquire("a");
    const waiting = queue.acquire("b").catch((e) => e);
    const reason = new Error("host closing");
    queue.close(reason);
    expect(await waiting).toBe(reason);
    await expect(queue.acquire("c")).rejects.toBe(reason);
    held.release();
    expect(queue.state()).toMatchObject({ running: 0, waiting: 0 });
    const closedByDefault = createFairQueue({ capacity: 1 });
    closedByDefault.close();
    await expect(closedByDefault.acquire("a")).rejects.toMatchObject({ code: "cancelled" });
  });

  it("BUD-5 bad options and tenants are typed input_validation errors", async () => {
    for (const capacity of [0, -1, 1.5, Number.NaN]) {
      expect(() => createFairQueue({ capacity })).toThrow(expect.objectContaining({ code: "input_validation", field: "capacity" }));
    }
    expect(() => createFairQueue({ capacity: 2, tenantCapacity: 0 })).toThrow(expect.objectContaining({ code: "input_validation", field: "tenantCapacity" }));
    const queue = createFairQueue({ capacity: 2, tenantCapacity: () => 0, weight: () => 1 });
    await expect(queue.acquire("a")).rejects.toMatchObject({ code: "input_validation", field: "tenantCapacity" });
    await expect(queue.acquire("")).rejects.toMatchObject({ code: "input_validation", field: "tenant" });
    expect(queue.state()).toMatchObject({ running: 0, waiting: 0 });
  });

  it("BUD-5 tryAcquire grants synchronously only what acquire would grant at once, and queues nothing otherwise", async () => {
    const queue = createFairQueue({ capacity: 2, tenantCapacity: (tenant) => (tenant === "capped" ? 1 : undefined) });
    const first = queue.tryAcquire("capped");
    expect(first?.tenant).toBe("capped");
    // The tenant is at its cap: no slot, and no waiter left behind.
    expect(queue.tryAcquire("capped")).toBeUndefined();
    expect(queue.state("capped")).toEqual({ running: 1, waiting: 0, tenantRunning: 1, tenantWaiting: 0 });
    const second = queue.tryAcquire("other")!;
    expect(second.tenant).toBe("other");
    // Every slot is taken: a waiter queued with acquire stays first in line.
    expect(queue.tryAcquire("other")).toBeUndefined();
    const order: string[] = [];
    const waiter = take(queue, "late", order, "late");
    expect(queue.state()).toMatchObject({ running: 2, waiting: 1 });
    second.release();
    expect(queue.tryAcquire("newcomer")).toBeUndefined();
    await waiter;
    expect(order).toEqual(["late"]);
    granted.get("late")!.release();
    // A freed slot is taken synchronously again, and counts like one from acquire.
    const again = queue.tryAcquire("other")!;
    expect(queue.state("other")).toEqual({ running: 2, waiting: 0, tenantRunning: 1, tenantWaiting: 0 });
    again.release();
    first!.release();
    expect(queue.state()).toEqual({ running: 0, waiting: 0, tenantRunning: 0, tenantWaiting: 0 });
  });

  it("BUD-5 tryAcquire throws what acquire rejects with: an empty tenant, a closed queue", () => {
    const queue = createFairQueue({ capacity: 1 });
    expect(() => queue.tryAcquire("")).toThrow(expect.objectContaining({ code: "input_validation", field: "tenant" }));
    queue.close();
    expect(() => queue.tryAcquire("a")).toThrow(expect.objectContaining({ code: "cancelled" }));
    expect(queue.state()).toMatchObject({ running: 0, waiting: 0 });
  });
});
