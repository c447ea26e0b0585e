/**
 * The session-lease port written once (ARCH-8, SES-2): the request checks, one holder per session
 * within the process (a session held or being acquired here is refused without asking the lock
 * storage), `onBusy`, a release that runs once, over a family's {@link SessionLockDriver} (memory:
 * nothing more; SQLite: a lock file's OS lock; PostgreSQL: an advisory lock on its own connection),
 * which excludes other processes.
 */
import { checkLeaseRequest, sessionBusy } from "../../../domain/agent/session-lease-rules.js";
import type { SessionLease, SessionLeaseProvider, SessionLeaseTarget } from "../../../ports/session-lease.js";

/** How a family locks one session against other processes. */
export interface SessionLockDriver<L> {
  /** The lease key of a target the kernel checked (`checkLeaseRequest`), e.g. its lock file. */
  keyOf(target: SessionLeaseTarget): string;
  /** Takes the lock without waiting; `null` when another holder has it. Faults reject, holding nothing. */
  take(key: string): Promise<L | null>;
  /** Gives the lock of `key` up; called once per taken lock. */
  give(lock: L, key: string): Promise<void>;
  /** False once the lock was lost without `release()` (its connection died); held while not given when absent. */
  holds?(lock: L): boolean;
}

/** A lease of the kernel provider, with its lock; `lost()`: not released, yet the driver no longer holds the lock. */
export type KernelSessionLease<L> = SessionLease & { readonly lock: L; lost(): boolean };

/** The kernel provider: the port, and the lease this provider holds now on a key. */
export interface KernelSessionLeaseProvider<L> extends SessionLeaseProvider {
  acquire(...args: Parameters<SessionLeaseProvider["acquire"]>): Promise<KernelSessionLease<L> | null>;
  /** The held lease of `target` taken through this provider, or `null`. */
  heldHere(target: SessionLeaseTarget): KernelSessionLease<L> | null;
  /** Releases every lease held here (a closing backend's sessions give theirs up); faults are ignored. */
  releaseAll(): Promise<void>;
}

/**
 * The lease provider over a family's locks.
 *
 * @example
 * const leases = createSessionLeaseProvider({ keyOf: (target) => JSON.stringify(target), take: async () => ({}), give: async () => {} });
 */
export function createSessionLeaseProvider<L>(driver: SessionLockDriver<L>): KernelSessionLeaseProvider<L> {
  /** Keys held here; `null` while being acquired. */
  const taken = new Map<string, KernelSessionLease<L> | null>();
  return {
    async acquire(target, options) {
      checkLeaseRequest(target, options);
      const key = driver.keyOf(target);
      const busy = () => {
        if (options.onBusy === "throw") throw sessionBusy(key);
        return null;
      };
      const mine = taken.get(key);
      // A lease lost here (its connection died) no longer blocks: the lock storage decides.
      if (mine === null || mine?.isHeld()) return busy();
      taken.set(key, null);
      let lock: L | null;
      try {
        lock = await driver.take(key);
      } finally {
        if (taken.get(key) === null) taken.delete(key);
      }
      if (lock === null) return busy();
      const held = lock;
      let released: Promise<void> | null = null;
      const lease: KernelSessionLease<L> = {
        ownerId: options.ownerId,
        key,
        lock: held,
        isHeld: () => released === null && (driver.holds?.(held) ?? true),
        lost: () => released === null && !(driver.holds?.(held) ?? true),
        release() {
          // Only the first call reports a fault of giving the lock up: a released lease never rejects again.
          if (released !== null) return released.catch(() => undefined);
          released = (async () => {
            if (taken.get(key) === lease) taken.delete(key);
            await driver.give(held, key);
          })();
          return released;
        },
      };
      taken.set(key, lease);
      return lease;
    },
    heldHere(target) {
      const lease = taken.get(driver.keyOf(target));
      return lease && lease.isHeld() ? lease : null;
    },
    async releaseAll() {
      await Promise.all([...taken.values()].map((lease) => lease?.release().catch(() => undefined)));
    },
  };
}
