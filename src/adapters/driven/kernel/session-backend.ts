/**
 * The session-backend port written once (ARCH-8): `unavailable` after close, `databasePath`
 * refused by backends that keep sessions by address, and a run's store held under its lease —
 * calls after `close()` reject with `unavailable`, closing gives the lease up once — over a
 * family's {@link SessionBackendDriver} (memory, SQLite, PostgreSQL), which takes leases and
 * opens stores.
 */
import { SteamharnessError } from "../../../domain/errors.js";
import { validateSessionEvent } from "../../../domain/agent/session-events.js";
import type { SessionBackend, SessionForkRequest, SessionUnleasedRequest } from "../../../ports/session-backend.js";
import type { AgentSessionHostStore } from "../../../ports/session-host-store.js";
import type { SessionOpenRequest, SessionStore } from "../../../ports/session-store.js";
import { lastRunStarted, readThrough } from "./session-read-through.js";
import type { OwnSessionStore, RangedSessionStore, SessionBase } from "./session-store.js";
import type { SessionLeaseProvider } from "../../../ports/session-lease.js";
import type { KernelSessionLease } from "./session-lease.js";

/** A session a run holds under its lease: its store (closed after the lease is given up), and members added to the handle the run gets (e.g. PostgreSQL's `isHeld`). */
export interface HeldSession<E extends object = object> {
  /** The session's own rows; a fork's `base` is read through by the backend. */
  store: OwnSessionStore;
  extra?: E;
}

/** What a family supplies to {@link createSessionBackend}; `L` is its lease's lock. */
export interface SessionBackendDriver<L, E extends object = object> {
  kind: string;
  durable: boolean;
  /** Absent or false: a request naming `databasePath` is refused with `input_validation` before the driver sees it. */
  acceptsDatabasePath?: true;
  /** The family's provider, the kernel's (createSessionLeaseProvider) over its locks. */
  leases: SessionLeaseProvider;
  /** Opens the store of a session whose lease the kernel took (`session_busy` when held elsewhere); a fault gives the lease up. */
  hold(request: SessionOpenRequest, lease: KernelSessionLease<L>): Promise<HeldSession<E>>;
  /** The session's store of its own rows without its lease; `null` when missing and not `create`. */
  unleased(request: SessionUnleasedRequest): Promise<OwnSessionStore | null>;
  /** The conversation's host record; `null` when missing and not `create`. */
  hostStore(conversationId: string, create: boolean): Promise<AgentSessionHostStore | null>;
  /**
   * Writes the fork of {@link SessionBackend.forkLog}: `to`'s pointer (`from`, `throughSeq`), its
   * head (`lastSeq` = `throughSeq` + the appended events, `lastRunId` as given) and the `append`
   * events, in one transaction (kernel/sql-session-rows.ts forkSteps on SQL). `from` existed and
   * `throughSeq` was within its log when checked; the family answers `conflict` for a `to` that exists.
   */
  forkLog?(request: SessionForkRequest & { lastRunId: string | null }): Promise<void>;
  /** Releases what the family keeps open; called once. */
  close(): Promise<void>;
}

/**
 * A handle on `store` (a session store, a host record): its calls until `close()`, then
 * `unavailable`; `close()` runs `release` once, telling whether any call of this handle failed (a
 * family may then drop what it keeps). Every member function of `store` must be async.
 *
 * @example
 * const handle = storeHandle(store, () => lease.release(), "memory");
 */
export function storeHandle<T extends object>(store: T, release: (faulted: boolean) => Promise<void>, family: string): T {
  let [released, faulted] = [false, false];
  const handle: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(store)) {
    handle[key] =
      typeof value !== "function"
        ? value
        : async (...args: unknown[]) => {
            if (released) throw new SteamharnessError("unavailable", `[steamharness] [${family}] the store is closed`);
            return (value as (...args: unknown[]) => Promise<unknown>).apply(store, args).catch((error: unknown) => {
              faulted = true;
              throw error;
            });
          };
  }
  handle.close = async () => {
    if (released) return;
    released = true;
    await release(faulted);
  };
  return handle as T;
}

/**
 * The session backend over a family's driver.
 *
 * @example
 * const sessions = createSessionBackend({ kind: "memory", durable: false, leases, hold: async () => ({ store }), unleased, hostStore, close });
 */
export function createSessionBackend<L, E extends object = object>(driver: SessionBackendDriver<L, E>): SessionBackend & { open(request: SessionOpenRequest): Promise<SessionStore & E> } {
  const family = driver.kind;
  let closed = false;
  const ready = (databasePath?: string): void => {
    if (closed) throw new SteamharnessError("unavailable", `[steamharness] [${family}] the session backend is closed`);
    if (databasePath !== undefined && !driver.acceptsDatabasePath) {
      throw new SteamharnessError("input_validation", `the ${family} session backend keeps sessions by address: databasePath needs a SQLite backend`, { field: "databasePath" });
    }
  };
  /** `own` reading through its fork's chain of parents (FORK-1); `own` is closed when a parent is gone. */
  const throughBase = async <S extends RangedSessionStore>(own: S, base: SessionBase | undefined): Promise<S> => {
    if (!base) return own;
    try {
      const parent = await driver.unleased({ address: base.address, create: false });
      if (!parent) throw new SteamharnessError("storage_failure", `[steamharness] [${family}] the session this fork reads its first ${base.seq} events from is gone`);
      return readThrough(own, await throughBase(parent, parent.base), base.seq);
    } catch (error) {
      await own.close().catch(() => undefined);
      throw error;
    }
  };
  const unleased = async (request: SessionUnleasedRequest): Promise<RangedSessionStore | null> => {
    const store = await driver.unleased(request);
    return store && throughBase(store, store.base);
  };
  return {
    kind: driver.kind,
    durable: driver.durable,
    acceptsDatabasePath: driver.acceptsDatabasePath === true,
    leases: driver.leases,
    async open(request) {
      ready(request.databasePath);
      const lease = (await driver.leases.acquire(request.databasePath === undefined ? request.address : { databasePath: request.databasePath }, { ownerId: request.ownerId, onBusy: "throw" })) as KernelSessionLease<L>;
      const held = await driver.hold(request, lease).catch(async (error: unknown) => {
        await lease.release().catch(() => undefined);
        throw error;
      });
      const release = () => lease.release().finally(() => held.store.close());
      return throughBase({ ...storeHandle(held.store, release, family), ...held.extra } as RangedSessionStore & E, held.store.base) as Promise<SessionStore & E>;
    },
    async openUnleased(request) {
      ready(request.databasePath);
      return unleased(request) as Promise<SessionStore | null>;
    },
    async openHostStore(conversationId, options) {
      ready();
      return driver.hostStore(conversationId, options.create);
    },
    ...(driver.forkLog
      ? {
          async forkLog(request: SessionForkRequest) {
            ready();
            const { throughSeq } = request;
            if (!Number.isSafeInteger(throughSeq) || throughSeq < 0) {
              throw new SteamharnessError("input_validation", `throughSeq ${String(throughSeq)} is not a non-negative integer`, { field: "throughSeq" });
            }
            request.append?.forEach(validateSessionEvent);
            const parent = await unleased({ address: request.from, create: false });
            if (!parent) throw new SteamharnessError("not_found", `[steamharness] [${family}] the session to fork does not exist`, { field: "from" });
            let lastRunId: string | null;
            try {
              const head = await parent.head();
              if (throughSeq > head.lastSeq) throw new SteamharnessError("input_validation", `seq ${throughSeq} is past the session's last event (${head.lastSeq})`, { field: "throughSeq" });
              lastRunId = throughSeq === head.lastSeq ? head.lastRunId : await lastRunStarted(parent, throughSeq);
            } finally {
              await parent.close();
            }
            return driver.forkLog!({ ...request, lastRunId });
          },
        }
      : {}),
    async close() {
      if (closed) return;
      closed = true;
      await driver.close();
    },
  };
}
