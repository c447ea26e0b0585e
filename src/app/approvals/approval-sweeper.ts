/**
 * GOV-3: escalation and expiry on time even when nobody looks. A governed adapter escalates or
 * expires a request lazily, when a call asks about it again; a host that holds a governed store
 * also runs this sweeper, which asks the store for the requests due now (an indexed query) every
 * `intervalMs` and takes each one step. Several hosts may sweep one store: the store's
 * conditional updates let exactly one of them escalate (and deliver the webhook) or expire each.
 */
import type { GovernedToolPermissions } from "./governed-tool-permissions.js";

/** How often a host sweeps by default: escalations and expiries land at most this late. */
export const DEFAULT_APPROVAL_SWEEP_MS = 10_000;

/** Options of {@link startApprovalSweeper}. */
export interface ApprovalSweeperOptions {
  /** Milliseconds between sweeps (default {@link DEFAULT_APPROVAL_SWEEP_MS}). */
  intervalMs?: number;
  /** Told of a sweep that failed (a store fault); the next sweep tries again. Default: ignored. */
  onError?: (error: unknown) => void;
}

/** A running sweeper. */
export interface ApprovalSweeper {
  /** Stops the timer and waits for a sweep in progress; idempotent. */
  stop(): Promise<void>;
}

/**
 * Sweeps `permissions` every `intervalMs` until stopped. The timer is unref'd: it never keeps a
 * process alive on its own. One sweep runs at a time (a slow webhook delays the next sweep, it
 * never doubles it).
 *
 * @example
 * const permissions = createGovernedToolPermissions({ policy, store, clock, onEscalation: createEscalationWebhook({ url, secret }) });
 * const sweeper = startApprovalSweeper(permissions, { intervalMs: 5_000 });
 * // on shutdown, before closing the store:
 * await sweeper.stop();
 */
export function startApprovalSweeper(permissions: Pick<GovernedToolPermissions, "sweep">, options: ApprovalSweeperOptions = {}): ApprovalSweeper {
  const intervalMs = options.intervalMs ?? DEFAULT_APPROVAL_SWEEP_MS;
  let running: Promise<void> | undefined;
  let stopped = false;
  const timer = setInterval(() => {
    if (running || stopped) return;
    running = permissions
      .sweep()
      .then(
        () => undefined,
        (error: unknown) => options.onError?.(error),
      )
      .finally(() => (running = undefined));
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
