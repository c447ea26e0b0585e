import { SteamharnessError } from "./errors.js";

/**
 * Fair sharing of a fixed number of slots between tenants (BUD-5): waiters queue per tenant and
 * free slots go round-robin across the tenants that wait — to the one served longest ago, so a
 * tenant that just got a slot waits for the others' turns — and a tenant with many queued calls
 * does not push back a tenant with one. Pure: no clock, no timers, no I/O — hosts (the MCP
 * worker pool, the gateway) put it in front of whatever the slots stand for.
 */

/** Options of {@link createFairQueue}. */
export interface FairQueueOptions {
  /** Slots in all (a positive integer, or `Infinity` for no overall limit). */
  capacity: number;
  /**
   * The most slots one tenant holds at once (a positive integer; none by default): a number for
   * every tenant, or a function naming each tenant's cap (`undefined`: no cap for that tenant).
   * A capped tenant's waiters wait even when slots are free, and other tenants take those slots.
   */
  tenantCapacity?: number | ((tenant: string) => number | undefined);
  /**
   * Slots a tenant is granted in a row when its turn comes (a positive integer, 1 by default):
   * weighted round-robin, a tenant of weight 2 is served twice as often as one of weight 1
   * while both wait.
   */
  weight?: (tenant: string) => number;
}

/** Options of {@link FairQueue.acquire}. */
export interface FairQueueAcquireOptions {
  /** Aborting while waiting takes the waiter out of the queue and rejects with `cancelled`. */
  signal?: AbortSignal;
  /** Called once, synchronously, when the caller has to wait (not when a slot was free). */
  onQueued?: (state: FairQueueState) => void;
}

/** One granted slot. `release` gives it back; calling it again does nothing. */
export interface FairQueueSlot {
  readonly tenant: string;
  /**
   * Gives back the tenant's share of the slot only: the tenant's work is over (its cap counts it
   * no more), while the slot itself stays taken until `release` (the thing it stands for is still
   * busy, e.g. a worker cleaning up after its run). Idempotent; nothing after `release`.
   */
  releaseTenant(): void;
  release(): void;
}

/** Counts at one moment: slots held and callers waiting, in all and for one tenant. */
export interface FairQueueState {
  running: number;
  waiting: number;
  tenantRunning: number;
  tenantWaiting: number;
}

/** A fair queue of slots; see {@link createFairQueue}. */
export interface FairQueue {
  /**
   * Resolves with a slot for `tenant` once one is free and it is that tenant's turn; at once
   * when a slot is free and no waiter of an eligible tenant is ahead. Rejects with `cancelled`
   * when `signal` aborts while waiting (the waiter leaves the queue) or the queue closes, and
   * with `input_validation` for an empty tenant.
   */
  acquire(tenant: string, options?: FairQueueAcquireOptions): Promise<FairQueueSlot>;
  /**
   * The slot `acquire` would grant at once, synchronously — for a caller whose next step should
   * not wait for a turn of the event loop — or `undefined` when it would have to wait (nothing is
   * queued then: the caller goes on with `acquire`). Throws what `acquire` rejects with.
   */
  tryAcquire(tenant: string): FairQueueSlot | undefined;
  /** Counts now, in all and for `tenant` (zeros for a tenant the queue does not know). */
  state(tenant?: string): FairQueueState;
  /**
   * Rejects every waiter with `error` (a `cancelled` error by default); later `acquire` calls
   * reject with it too. Slots already granted stay valid until released. Idempotent.
   */
  close(error?: unknown): void;
}

interface Waiter {
  grant: (slot: FairQueueSlot) => void;
  reject: (error: unknown) => void;
}

interface Tenant {
  running: number;
  waiters: Waiter[];
  /** Grants in its current turn (weighted round-robin). */
  turn: number;
  /** The grant number of its latest slot (0: none yet); the waiting tenant served longest ago goes next. */
  lastServed: number;
  /** Cap and weight as read at this tenant's latest `acquire` (a host may change them). */
  cap: number;
  weight: number;
}

function positiveInteger(value: number, field: string, allowInfinity: boolean): number {
  if ((allowInfinity && value === Infinity) || (Number.isInteger(value) && value > 0)) return value;
  throw new SteamharnessError("input_validation", `[steamharness] [fair-queue] ${field} must be a positive integer${allowInfinity ? " or Infinity" : ""}, got ${String(value)}`, { field });
}

/**
 * A queue of slots shared fairly between tenants (BUD-5): at most `capacity` slots at once, at
 * most `tenantCapacity` per tenant; waiters of one tenant are served first come first served,
 * tenants take turns (weighted round-robin, the tenant served longest ago first; a tenant new to
 * the queue before one that was just served). A released slot passes straight to the next
 * eligible waiter, so a newcomer never jumps the queue.
 *
 * @example
 * const queue = createFairQueue({ capacity: 4, tenantCapacity: 2 });
 * const slot = await queue.acquire("tenant-a", { signal });
 * try { await work() } finally { slot.release() }
 */
export function createFairQueue(options: FairQueueOptions): FairQueue {
  const capacity = positiveInteger(options.capacity, "capacity", true);
  if (typeof options.tenantCapacity === "number") positiveInteger(options.tenantCapacity, "tenantCapacity", false);
  const tenants = new Map<string, Tenant>();
  // Tenants with waiters, in the order they started waiting (Map keeps insertion order): the tie-break.
  const ring = new Map<string, Tenant>();
  /** Grants so far; a tenant's `lastServed` is one of these. */
  let grants = 0;
  /** The tenant whose turn is on (it may take `weight` slots in a row). */
  let current: Tenant | undefined;
  let running = 0;
  let waiting = 0;
  let closedWith: { error: unknown } | undefined;

  const capOf = (tenant: string): number => {
    const cap = typeof options.tenantCapacity === "function" ? options.tenantCapacity(tenant) : options.tenantCapacity;
    return cap === undefined ? Infinity : positiveInteger(cap, "tenantCapacity", false);
  };
  const weightOf = (tenant: string): number => (options.weight ? positiveInteger(options.weight(tenant), "weight", false) : 1);

  const forget = (name: string, tenant: Tenant): void => {
    if (tenant.running === 0 && tenant.waiters.length === 0) tenants.delete(name);
  };

  const slotFor = (name: string, tenant: Tenant): FairQueueSlot => {
    let released = false;
    let tenantHeld = true;
    const give = (all: boolean): void => {
      if (released || (!all && !tenantHeld)) return;
      if (all) {
        released = true;
        running -= 1;
      }
      if (tenantHeld) {
        tenantHeld = false;
        tenant.running -= 1;
        forget(name, tenant);
      }
      pump();
    };
    return { tenant: name, releaseTenant: () => give(false), release: () => give(true) };
  };

  /** The waiting tenant to serve next: the current one while its turn lasts, else the one served longest ago; none at their cap. */
  const next = (): [string, Tenant] | undefined => {
    let best: [string, Tenant] | undefined;
    for (const entry of ring) {
      const tenant = entry[1];
      if (tenant.running >= tenant.cap) continue;
      if (tenant === current && tenant.turn > 0 && tenant.turn < tenant.weight) return entry;
      if (!best || tenant.lastServed < best[1].lastServed) best = entry;
    }
    return best;
  };

  /** Grants free slots to the waiting tenants in turn. */
  const pump = (): void => {
    while (running < capacity) {
      const chosen = next();
      if (!chosen) return;
      const [name, tenant] = chosen;
      // A new turn: another tenant's, or this one's again once its `weight` grants are used.
      if (tenant !== current || tenant.turn >= tenant.weight) {
        if (current) current.turn = 0;
        current = tenant;
      }
      const waiter = tenant.waiters.shift()!;
      waiting -= 1;
      running += 1;
      tenant.running += 1;
      tenant.turn += 1;
      tenant.lastServed = ++grants;
      if (tenant.waiters.length === 0) ring.delete(name);
      waiter.grant(slotFor(name, tenant));
    }
  };

  /**
   * The tenant entry a new waiter joins (its cap and weight read now); throws what `acquire`
   * rejects with, in its order: an empty tenant, a closed queue, an aborted signal, a bad cap.
   */
  const ownerFor = (tenantName: string, signal?: AbortSignal): Tenant => {
    if (typeof tenantName !== "string" || tenantName === "") {
      throw new SteamharnessError("input_validation", "[steamharness] [fair-queue] a tenant must be a non-empty string", { field: "tenant" });
    }
    if (closedWith) throw closedWith.error;
    if (signal?.aborted) throw cancelledError(tenantName, signal);
    const cap = capOf(tenantName);
    const weight = weightOf(tenantName);
    const owner = tenants.get(tenantName) ?? { running: 0, waiters: [], turn: 0, lastServed: 0, cap, weight };
    tenants.set(tenantName, owner);
    owner.cap = cap;
    owner.weight = weight;
    return owner;
  };

  /** Takes a waiter that is still queued out of the queue. */
  const leave = (tenantName: string, owner: Tenant, waiter: Waiter): boolean => {
    const index = owner.waiters.indexOf(waiter);
    if (index < 0) return false;
    owner.waiters.splice(index, 1);
    waiting -= 1;
    if (owner.waiters.length === 0) ring.delete(tenantName);
    forget(tenantName, owner);
    return true;
  };

  /** Queues `waiter` and grants what is free; true when it was granted at once. */
  const join = (tenantName: string, owner: Tenant, waiter: Waiter): boolean => {
    owner.waiters.push(waiter);
    waiting += 1;
    if (!ring.has(tenantName)) ring.set(tenantName, owner);
    pump();
    return !owner.waiters.includes(waiter);
  };

  const tryAcquire = (tenantName: string): FairQueueSlot | undefined => {
    const owner = ownerFor(tenantName);
    let granted: FairQueueSlot | undefined;
    const waiter: Waiter = { grant: (slot) => (granted = slot), reject: () => undefined };
    if (!join(tenantName, owner, waiter)) leave(tenantName, owner, waiter);
    return granted;
  };

  const acquire = (tenantName: string, acquireOptions: FairQueueAcquireOptions = {}): Promise<FairQueueSlot> => {
    const { signal, onQueued } = acquireOptions;
    let owner: Tenant;
    try {
      owner = ownerFor(tenantName, signal);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise<FairQueueSlot>((resolve, reject) => {
      const onAbort = (): void => {
        if (leave(tenantName, owner, waiter)) reject(cancelledError(tenantName, signal!));
      };
      const waiter: Waiter = {
        grant: (slot) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(slot);
        },
        reject: (error) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      if (join(tenantName, owner, waiter)) return;
      signal?.addEventListener("abort", onAbort, { once: true });
      onQueued?.(state(tenantName));
    });
  };

  const state = (tenantName?: string): FairQueueState => {
    const tenant = tenantName === undefined ? undefined : tenants.get(tenantName);
    return { running, waiting, tenantRunning: tenant?.running ?? 0, tenantWaiting: tenant?.waiters.length ?? 0 };
  };

  const close = (error: unknown = new SteamharnessError("cancelled", "[steamharness] [fair-queue] the queue is closed")): void => {
    if (closedWith) return;
    closedWith = { error };
    for (const [name, tenant] of ring) {
      for (const waiter of tenant.waiters.splice(0)) waiter.reject(error);
      forget(name, tenant);
    }
    ring.clear();
    waiting = 0;
  };

  return { acquire, tryAcquire, state, close };
}

function cancelledError(tenant: string, signal: AbortSignal): SteamharnessError {
  return new SteamharnessError("cancelled", "[steamharness] [fair-queue] the wait for a slot was cancelled", { data: { tenant }, cause: signal.reason });
}
