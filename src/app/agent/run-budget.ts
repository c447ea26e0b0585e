/**
 * The budget of one run (BUD-2, BUD-3): before every model call the worst case is reserved in
 * the ledger (the context meter's input estimate plus the call's output limit, at the model's
 * prices); the committed usage settles it; a call that reported no usage releases it. At a limit
 * the run stops before the call with `budget_exceeded`, or pauses for a person's approval.
 *
 * A lease (BUD-2 speed): where every budget is large next to a call, one reservation holds
 * `leaseCalls` worst cases and the run's next calls draw from it in memory while what is left
 * covers each one's worst case; it is settled on the sum of their usage with the reservation
 * that follows it. Every call is still covered by a hold in the ledger before it starts. Which
 * lease a call drew from is committed with the call (`lease` on its `assistant_message` or
 * `model_retry` event), so a resumed run settles the lease it finds open on exactly the usage
 * committed under it. A lease never outlives the process that opened it.
 */
import { isSteamharnessError, SteamharnessError, UserInputRequiredError } from "../../domain/errors.js";
import { usageEntryId } from "../../domain/agent/ids.js";
import type { AgentBudgetLimit, AgentBudgetOptions } from "../../domain/budget/budget-options.js";
import type { BudgetViewEntry, RunBudgetView } from "../../domain/budget/budget-view.js";
import { checkModelPrice, usageCostMicros, usdToMicros, worstCaseUsage, type ModelPrice } from "../../domain/budget/model-price.js";
import { settledUsage } from "../../domain/budget/reported-usage.js";
import type { NodeContext } from "../../domain/node-context.js";
import type { BudgetAmount, BudgetExceeded, BudgetFinish, BudgetLedger, BudgetLimit, BudgetReservation, BudgetReserveOutcome } from "../../ports/budget-ledger.js";
import type { ModelDescriptor } from "../../ports/model-provider.js";
import type { TokenCounts, TokenUsageEntry } from "../../ports/token-usage.js";

/** Output tokens a call is assumed to answer at most when neither the model nor the budget says. */
export const DEFAULT_MAX_OUTPUT = 16_384;
/** Calls one lease covers at most (and the worst cases it holds); 1 reserves every call alone. */
const DEFAULT_LEASE_CALLS = 8;
/**
 * A lease is taken only when it is at most this share of every budget's configured limit: what
 * a lease holds beyond its call can refuse another run sharing the budget only in the budget's
 * last shares of this size, one per run holding a lease.
 */
const LEASE_SHARE = 0.01;
/** The meter estimates text at 4 characters a token; real tokenizers can count more. */
const INPUT_ESTIMATE_FACTOR = 1.25;

/**
 * The worst case of a model call whose context the meter puts at `contextTokens`: the estimate
 * × 1.25 sent, `maxOutput` answered, at `price`. What a call reserves, and what it counts when its
 * reported usage is not trusted (TEN-5).
 *
 * @example
 * const worst = callWorstCase(turn.meter.usage().used, 16_384, null);
 */
export function callWorstCase(contextTokens: number, maxOutput: number, price: ModelPrice | null): TokenCounts {
  return worstCaseUsage(Math.ceil(contextTokens * INPUT_ESTIMATE_FACTOR), maxOutput, price);
}

/**
 * A ledger fault as the run reports it: a typed error passes, anything else is `storage_failure`
 * (never an untyped error a host would answer as an internal failure).
 */
function ledgerFault(error: unknown): SteamharnessError {
  if (isSteamharnessError(error)) return error;
  return new SteamharnessError("storage_failure", `[steamharness] [budget] the budget ledger failed: ${(error as Error)?.message ?? String(error)}`, { cause: error });
}

/** What a run's model step and loop call; null when the run has no budget. */
export interface RunBudget {
  /**
   * Reserves the worst case of model call `step`/`attempt`, or draws it from the run's lease;
   * throws `budget_exceeded` or `user_input_required`. Resolves the id of the lease the call drew
   * from (to commit with the call), or undefined when it holds a reservation of its own.
   * `modelCalls` counts the run's calls so far, asked only with `maxModelCalls`.
   */
  beforeModelCall(step: number, attempt: number, inputTokens: number, modelCalls: () => number): Promise<string | undefined>;
  /**
   * Settles the call on its committed usage, or releases it when it reported none; `lease` is
   * the lease it drew from (as {@link RunBudget.beforeModelCall} resolved it, or as committed
   * when the call is replayed). With a ledger that has `finishAndReserve`, the agent's own ledger
   * is settled with the next reservation (one store step per model call instead of two, or per
   * lease) or by {@link RunBudget.flush}; until then the call still counts as held, its worst
   * case, never less than it spent.
   */
  afterModelCall(step: number, attempt: number, entry: TokenUsageEntry | null, lease?: string): Promise<void>;
  /** Settles the call or lease whose settle waits for the next reservation, if any (the run stops, ends or pauses). */
  flush(): Promise<void>;
  /** The worst case a call reserves when the meter puts its context at `contextTokens` (what an untrusted usage report counts as, TEN-5). */
  worstCase(contextTokens: number): TokenCounts;
  /** Throws `budget_exceeded` when the run's tool calls pass `maxToolCalls`. */
  checkToolCalls(count: number): void;
  /** Re-reads the budgets for {@link RunBudget.view}. */
  refresh(): Promise<void>;
  /** Spent, held, limit and remaining per budget, as last read (the agent-session item's `budget`). */
  view(): RunBudgetView;
}

function exceededError(exceeded: BudgetExceeded | { scope: "run"; id: string; unit: "modelCalls" | "toolCalls"; spent: number; limit: number }): SteamharnessError {
  const what = exceeded.unit === "cost" ? "USD" : exceeded.unit === "tokens" ? "tokens" : exceeded.unit === "modelCalls" ? "model calls" : "tool calls";
  const amount = (n: number) => (exceeded.unit === "cost" ? (n / 1_000_000).toFixed(6) : String(n));
  return new SteamharnessError("budget_exceeded", `[steamharness] [budget] the ${exceeded.scope} budget ${exceeded.id} is exhausted: ${amount(exceeded.spent)} of ${amount(exceeded.limit)} ${what} spent`, { data: { ...exceeded } });
}

/**
 * The run's budget, or null when `options` sets none.
 *
 * @example
 * const budget = await createRunBudget(options.budget, context, runId, sessionKey, model.descriptor);
 */
export async function createRunBudget(options: AgentBudgetOptions | undefined, context: NodeContext, runId: string, sessionKey: string, descriptor: ModelDescriptor): Promise<RunBudget | null> {
  const host = context.tenantLimits;
  if (!host && (!options || (!options.limits?.length && options.maxModelCalls === undefined && options.maxToolCalls === undefined))) return null;
  options ??= {};
  const ledger: BudgetLedger = options.ledger ?? context.runtime.budgetLedger(context.storage);
  const idOf = (limit: AgentBudgetLimit): string => {
    if (limit.id !== undefined) return limit.id;
    if (limit.scope === "run") return runId;
    if (limit.scope === "conversation") return context.conversationId ?? sessionKey;
    if (limit.scope === "project") return context.projectId;
    // BUD-5: the host's verified caller (NodeContext.tenantId) when the budget names no tenant.
    const tenantId = options.tenantId ?? context.tenantId;
    if (tenantId === undefined) throw new SteamharnessError("input_validation", "[steamharness] [budget] a tenant budget needs an id, budget.tenantId or a context tenantId", { field: "budget.tenantId" });
    return tenantId;
  };
  const limits: BudgetLimit[] = (options.limits ?? []).map((limit) => ({
    scope: limit.scope,
    id: idOf(limit),
    ...(limit.period ? { period: limit.period } : {}),
    ...(limit.tokens === undefined ? {} : { tokens: limit.tokens }),
    ...(limit.costUsd === undefined ? {} : { costMicros: usdToMicros(limit.costUsd) }),
  }));
  // BUD-4: the host's cap on the tenant, in the host's ledger (one reservation with the others when it is the same ledger).
  const hostLimit: BudgetLimit | null = host?.budget ? {
    scope: "tenant", id: host.tenantId,
    ...(host.budget.period ? { period: host.budget.period } : {}),
    ...(host.budget.tokens === undefined ? {} : { tokens: host.budget.tokens }),
    ...(host.budget.costUsd === undefined ? {} : { costMicros: usdToMicros(host.budget.costUsd) }),
  } : null;
  const hostLedger = hostLimit && host!.ledger !== ledger ? host!.ledger : null;
  if (hostLimit && !hostLedger) limits.push(hostLimit);
  const hostLimits = hostLimit && hostLedger ? [hostLimit] : [];
  const priced = [...limits, ...hostLimits].some((limit) => limit.costMicros !== undefined);
  // TEN-5: a price is checked before any call, whichever source gives it (a negative one would pay calls back).
  const source = options.price !== undefined ? "budget.price" : descriptor.price !== undefined ? "price" : null;
  const given = options.price ?? descriptor.price ?? (priced ? await context.runtime.modelPrice(descriptor.provider, descriptor.model) : null);
  const price: ModelPrice | null = given === null || given === undefined ? null : checkModelPrice(given, source ?? `the price of ${descriptor.provider}/${descriptor.model}`);
  if (priced && !price) throw new SteamharnessError("input_validation", `[steamharness] [budget] no price for model ${descriptor.provider}/${descriptor.model}: give budget.price or the model entry's price`, { field: "budget.price" });
  const maxOutput = descriptor.maxTokens ?? options.maxOutputTokens ?? DEFAULT_MAX_OUTPUT;
  let states: BudgetViewEntry[] = [];
  // BUD-2 speed: the agent's own ledger settles a call with the next reservation (finishAndReserve).
  const deferSettle = limits.length > 0 && typeof ledger.finishAndReserve === "function";
  let pending: BudgetFinish | null = null;
  // The lease calls draw from; `live` when this process opened it (one restored from the log
  // by replayed calls is only settled: a lease never outlives the process that opened it).
  const leaseCalls = options.leaseCalls ?? DEFAULT_LEASE_CALLS;
  if (!Number.isSafeInteger(leaseCalls) || leaseCalls < 1) throw new SteamharnessError("input_validation", `[steamharness] [budget] budget.leaseCalls is a whole number of calls, 1 or more (got ${JSON.stringify(options.leaseCalls)})`, { field: "budget.leaseCalls" });
  let lease: { id: string; amount: BudgetAmount; used: BudgetAmount; calls: number; live: boolean } | null = null;
  // The first reservation of this process also releases the call's other id (see beforeModelCall).
  let firstLive = true;
  const canLease = deferSettle && leaseCalls > 1;
  /** Whether `amount` is at most LEASE_SHARE of every configured limit. */
  const smallBeside = (amount: BudgetAmount): boolean =>
    limits.every((limit) => (limit.tokens === undefined || amount.tokens <= limit.tokens * LEASE_SHARE) && (limit.costMicros === undefined || amount.costMicros <= limit.costMicros * LEASE_SHARE));
  /**
   * Settles a call on `actual` in `one` ledger, or releases it when it reported no usage. A settle
   * that fails releases the hold (TEN-5: no hold outlives its call), then throws a typed error.
   */
  const finishOn = async (one: BudgetLedger, { reservationId, actual }: BudgetFinish): Promise<boolean> => {
    try {
      return actual === null ? await one.release(reservationId) : await one.settle(reservationId, actual);
    } catch (error) {
      if (actual !== null) await one.release(reservationId).catch(() => false);
      throw ledgerFault(error);
    }
  };
  /**
   * A reservation, with `open` finished in the same step when given. A step that fails finishes
   * `open` alone and releases the reservation (both idempotent), so neither is left held.
   */
  const reserveWith = async (open: BudgetFinish | null, request: BudgetReservation, on: BudgetLedger = ledger): Promise<BudgetReserveOutcome> => {
    try {
      return open === null ? await on.reserve(request) : await on.finishAndReserve!(open, request);
    } catch (error) {
      if (open !== null) await finishOn(on, open).catch(() => false);
      await on.release(request.reservationId).catch(() => false);
      throw ledgerFault(error);
    }
  };
  /** What waits to be finished in the agent's own ledger — the open lease on its usage, or a call — taken out. */
  const takeOpen = (): BudgetFinish | null => {
    const open = lease ? { reservationId: lease.id, actual: lease.used } : pending;
    lease = null;
    pending = null;
    return open;
  };
  const flush = async (): Promise<void> => {
    const open = takeOpen();
    if (open !== null) await finishOn(ledger, open);
  };
  // Calls this process made (not replays of committed ones): only their tokens go to the host's token window.
  const made = new Set<string>();

  /** Pause mode: asks once per budget, call and limit; an approval extends the budget by `extendBy`. */
  const requestIdOf = (exceeded: BudgetExceeded, reservationId: string, configured: BudgetLimit): string => {
    // A budget already extended asks under an id naming its current limit: an approval that was
    // not enough for the call asks again, and a resumed run never needs an earlier answer (its
    // grant is in the ledger) — hosts that forget answers once used (the gateway) resume too.
    const base = `budget:${reservationId}:${exceeded.scope}:${exceeded.id}:${exceeded.unit}`;
    return exceeded.limit === (exceeded.unit === "tokens" ? configured.tokens : configured.costMicros) ? base : `${base}:${exceeded.limit}`;
  };
  const approve = async (exceeded: BudgetExceeded, requestId: string, configured: BudgetLimit): Promise<boolean> => {
    const extra = exceeded.unit === "tokens" ? options.extendBy?.tokens ?? configured.tokens! : options.extendBy?.costUsd === undefined ? configured.costMicros! : usdToMicros(options.extendBy.costUsd);
    const message = `${exceededError(exceeded).message}. Approve to extend it by ${exceeded.unit === "cost" ? `${(extra / 1_000_000).toFixed(6)} USD` : `${extra} tokens`}.`;
    const response = await context.userInput.request({ requestId, runId, kind: "form", message, fields: [{ name: "approve", type: "boolean", required: true }] }, context.signal);
    if (response.outcome === "pending") throw new UserInputRequiredError(requestId, { kind: "form", runId, message, budget: { ...exceeded } }, message);
    if (response.outcome !== "answered" || response.values.approve !== true) return false;
    await ledger.extend({ grantId: requestId, scope: exceeded.scope, id: exceeded.id, ...(exceeded.period ? { period: exceeded.period } : {}), at: context.clock.now(), amount: exceeded.unit === "tokens" ? { tokens: extra, costMicros: 0 } : { tokens: 0, costMicros: extra } });
    return true;
  };

  // A finish on the agent's ledger (when it holds limits) and the host's (when apart) at once;
  // usually there is only the first, awaited without an array.
  const onLedgers = async (finish: (one: BudgetLedger) => Promise<unknown>): Promise<void> => {
    const own = limits.length > 0 ? finish(ledger) : undefined;
    if (hostLedger) await Promise.all([own, finish(hostLedger)]);
    else await own;
  };

  /**
   * The agent's own ledger before a call: drawn from the open lease while it covers the call,
   * else the open lease or call finished with a new lease (where the budgets allow one) or a
   * reservation of the call alone. Resolves the lease id the call drew from, if any.
   *
   * Each call has two reservation ids, its own and its lease's (`:lease`). A process that died
   * between a call's reservation and its commit left one of them held; the resumed run asks for
   * the same call again, which reuses a held id (a known id holds nothing more), and its first
   * reservation releases the other id, which a changed decision could otherwise leave held.
   */
  const reserveOwn = async (request: BudgetReservation): Promise<string | undefined> => {
    if (lease?.live && lease.calls < leaseCalls && lease.amount.tokens - lease.used.tokens >= request.amount.tokens && lease.amount.costMicros - lease.used.costMicros >= request.amount.costMicros) return lease.id;
    const leaseId = `${request.reservationId}:lease`;
    const leaseRequest: BudgetReservation = { ...request, reservationId: leaseId, amount: { tokens: request.amount.tokens * leaseCalls, costMicros: request.amount.costMicros * leaseCalls } };
    const leasing = canLease && smallBeside(leaseRequest.amount);
    let open = takeOpen();
    if (firstLive && deferSettle) {
      firstLive = false;
      const other = leasing ? request.reservationId : leaseId;
      // Released with the reservation when nothing else is open (a new run: no extra step).
      if (open === null) open = { reservationId: other, actual: null };
      else await ledger.release(other);
    }
    if (leasing) {
      const outcome = await reserveWith(open, leaseRequest);
      // Whatever it answered, `open` is finished; refused (near a limit), the call reserves alone.
      open = null;
      if (outcome.ok) {
        lease = { id: leaseId, amount: leaseRequest.amount, used: { tokens: 0, costMicros: 0 }, calls: 0, live: true };
        return leaseId;
      }
    }
    pending = open;
    await reserveCall(request);
    return undefined;
  };

  /** Reserves one call alone, with `pending` finished in the same step; at a limit stops or pauses. */
  const reserveCall = async (request: BudgetReservation): Promise<void> => {
    let asked: Set<string> | null = null;
    for (;;) {
      // The previous call's finish stands once this resolves, whatever it answers (or fails: then it was finished alone).
      const open = pending;
      pending = null;
      const outcome = await reserveWith(open, request);
      if (outcome.ok) return;
      const { exceeded } = outcome;
      // The host's cap on the tenant is not the project's to extend: at it the run stops.
      const configured = limits.find((limit) => limit.scope === exceeded.scope && limit.id === exceeded.id && limit !== hostLimit);
      if (options.onLimit !== "pause" || !configured) throw exceededError(exceeded);
      const requestId = requestIdOf(exceeded, request.reservationId, configured);
      // The same request twice in one call: its grant did not apply (given before): stop, never loop.
      if (asked?.has(requestId) || !(await approve(exceeded, requestId, configured))) throw exceededError(exceeded);
      (asked ??= new Set()).add(requestId);
    }
  };

  const budget: RunBudget = {
    async beforeModelCall(step, attempt, inputTokens, modelCalls) {
      if (options.maxModelCalls !== undefined) {
        const calls = modelCalls();
        if (calls >= options.maxModelCalls) throw exceededError({ scope: "run", id: runId, unit: "modelCalls", spent: calls, limit: options.maxModelCalls });
      }
      if (host?.onTokens) made.add(usageEntryId(runId, step, attempt));
      if (limits.length === 0 && hostLimits.length === 0) return undefined;
      const worst = callWorstCase(inputTokens, maxOutput, price);
      const reservationId = usageEntryId(runId, step, attempt);
      const request = { reservationId, limits, at: context.clock.now(), amount: { tokens: worst.total, costMicros: usageCostMicros(worst, price) } };
      const drawn = limits.length > 0 ? await reserveOwn(request) : undefined;
      if (!hostLedger) return drawn;
      // The host's ledger second, per call (a pause of the agent's own budgets holds nothing there);
      // refused, the call's own hold goes (a lease is settled when the run stops).
      const held = await reserveWith(null, { ...request, limits: hostLimits }, hostLedger).catch(async (error: unknown) => {
        if (limits.length > 0 && drawn === undefined) await ledger.release(reservationId).catch(() => false);
        throw error;
      });
      if (held.ok) return drawn;
      if (limits.length > 0 && drawn === undefined) await ledger.release(reservationId);
      throw exceededError(held.exceeded);
    },
    async afterModelCall(step, attempt, entry, drawnFrom) {
      const reservationId = usageEntryId(runId, step, attempt);
      // Committed entries were checked when the call ended (model-step); one from an older log is checked again here.
      const counted = entry === null ? null : settledUsage(entry, callWorstCase(0, maxOutput, price), false).usage;
      const spent = counted === null ? null : { tokens: counted.input + counted.output + counted.cacheRead + counted.cacheWrite, costMicros: usageCostMicros(counted, price) };
      const finished: BudgetFinish = { reservationId, actual: spent };
      if (drawnFrom !== undefined && limits.length > 0) {
        if (lease?.id !== drawnFrom) {
          // A replayed call of a lease an earlier process opened: the reservation before that
          // lease was finished with it (one finishAndReserve), so nothing else is open.
          pending = null;
          lease = { id: drawnFrom, amount: { tokens: 0, costMicros: 0 }, used: { tokens: 0, costMicros: 0 }, calls: 0, live: false };
        }
        lease.used = { tokens: lease.used.tokens + (spent?.tokens ?? 0), costMicros: lease.used.costMicros + (spent?.costMicros ?? 0) };
        lease.calls++;
        if (hostLedger) await finishOn(hostLedger, finished);
      } else if (deferSettle) {
        // A call of its own follows a lease only once the lease was finished with its reservation.
        lease = null;
        // One call waits at a time (replayed calls follow each other without reservations between).
        await flush();
        pending = finished;
        if (hostLedger) await finishOn(hostLedger, finished);
      } else await onLedgers((one) => finishOn(one, finished));
      if (spent === null) made.delete(reservationId);
      else if (made.delete(reservationId)) await host?.onTokens?.(spent.tokens, context.clock.now());
    },
    flush,
    worstCase: (contextTokens) => callWorstCase(contextTokens, maxOutput, price),
    checkToolCalls(count) {
      if (options.maxToolCalls !== undefined && count > options.maxToolCalls) throw exceededError({ scope: "run", id: runId, unit: "toolCalls", spent: count - 1, limit: options.maxToolCalls });
    },
    async refresh() {
      await flush();
      const at = context.clock.now();
      const usd = (micros: number) => micros / 1_000_000;
      states = await Promise.all(
        [...limits.map((limit) => [limit, ledger] as const), ...hostLimits.map((limit) => [limit, hostLedger!] as const)].map(async ([limit, from]): Promise<BudgetViewEntry> => {
          const state = await from.read(limit, at);
          const tokens = limit.tokens === undefined ? null : limit.tokens + state.granted.tokens;
          const micros = limit.costMicros === undefined ? null : limit.costMicros + state.granted.costMicros;
          return {
            scope: limit.scope, id: limit.id, ...(limit.period ? { period: limit.period } : {}), window: state.window,
            spent: { tokens: state.spent.tokens, costUsd: usd(state.spent.costMicros) },
            reserved: { tokens: state.reserved.tokens, costUsd: usd(state.reserved.costMicros) },
            limit: { tokens, costUsd: micros === null ? null : usd(micros) },
            remaining: {
              tokens: tokens === null ? null : Math.max(0, tokens - state.spent.tokens - state.reserved.tokens),
              costUsd: micros === null ? null : usd(Math.max(0, micros - state.spent.costMicros - state.reserved.costMicros)),
            },
          };
        }),
      );
    },
    view: () => ({ budgets: states, ...(options.maxModelCalls === undefined ? {} : { maxModelCalls: options.maxModelCalls }), ...(options.maxToolCalls === undefined ? {} : { maxToolCalls: options.maxToolCalls }) }),
  };
  return budget;
}
