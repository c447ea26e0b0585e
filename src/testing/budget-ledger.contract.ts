import type { BudgetLedger, BudgetLimit } from "../ports/budget-ledger.js";
import { defineContract, errorCode, uniqueId, type ContractCases, type ContractFactory, type ContractOptions, type ContractTestApi } from "./contract-support.js";

/** Raw access a budget-ledger subject may offer: a second ledger on the same store (another connection or handle). */
export interface BudgetLedgerInspect {
  peer?: BudgetLedger;
}

const AT = Date.UTC(2026, 11, 1, 12);
const tokens = (n: number) => ({ tokens: n, costMicros: 0 });
const tenant = (limit: Partial<BudgetLimit> = {}): BudgetLimit => ({ scope: "tenant", id: uniqueId("tenant"), tokens: 100, ...limit });

const cases: ContractCases<BudgetLedger, BudgetLedgerInspect> = {
  "a reservation holds, settle counts the actual amount, release frees": async ({ store, expect }) => {
    const budget = tenant({ costMicros: 1000 });
    const held = { reservationId: uniqueId("r"), limits: [budget], amount: { tokens: 60, costMicros: 500 }, at: AT };
    expect(await store.reserve(held)).toEqual({ ok: true });
    expect(await store.read(budget, AT)).toEqual(expect.objectContaining({ spent: { tokens: 0, costMicros: 0 }, reserved: { tokens: 60, costMicros: 500 } }));
    expect(await store.settle(held.reservationId, { tokens: 25, costMicros: 200 })).toBe(true);
    expect(await store.read(budget, AT)).toEqual(expect.objectContaining({ spent: { tokens: 25, costMicros: 200 }, reserved: { tokens: 0, costMicros: 0 } }));
    const other = { ...held, reservationId: uniqueId("r") };
    expect(await store.reserve(other)).toEqual({ ok: true });
    expect(await store.release(other.reservationId)).toBe(true);
    expect(await store.read(budget, AT)).toEqual(expect.objectContaining({ spent: { tokens: 25, costMicros: 200 }, reserved: { tokens: 0, costMicros: 0 } }));
  },
  "a reservation past a limit is refused with the budget, its spending and its limit": async ({ store, expect }) => {
    const budget = tenant();
    expect(await store.reserve({ reservationId: uniqueId("r"), limits: [budget], amount: tokens(70), at: AT })).toEqual({ ok: true });
    const refused = await store.reserve({ reservationId: uniqueId("r"), limits: [budget], amount: tokens(31), at: AT });
    expect(refused).toEqual({ ok: false, exceeded: { scope: "tenant", id: budget.id, window: null, unit: "tokens", spent: 0, reserved: 70, limit: 100, requested: 31 } });
    expect((await store.read(budget, AT)).reserved.tokens).toBe(70);
  },
  "several budgets are held all together or not at all": async ({ store, expect }) => {
    const wide = tenant({ tokens: 1000 });
    const narrow: BudgetLimit = { scope: "run", id: uniqueId("run"), tokens: 10 };
    const refused = await store.reserve({ reservationId: uniqueId("r"), limits: [wide, narrow], amount: tokens(20), at: AT });
    expect(refused.ok).toBe(false);
    expect(refused.ok ? null : refused.exceeded.scope).toBe("run");
    expect((await store.read(wide, AT)).reserved.tokens).toBe(0);
    expect(await store.reserve({ reservationId: uniqueId("r"), limits: [wide, narrow], amount: tokens(10), at: AT })).toEqual({ ok: true });
    expect((await store.read(wide, AT)).reserved.tokens).toBe(10);
    expect((await store.read(narrow, AT)).reserved.tokens).toBe(10);
  },
  "reserve is idempotent by id; settle and release of unknown or finished reservations change nothing": async ({ store, expect }) => {
    const budget = tenant();
    const held = { reservationId: uniqueId("r"), limits: [budget], amount: tokens(40), at: AT };
    expect(await store.reserve(held)).toEqual({ ok: true });
    expect(await store.reserve(held)).toEqual({ ok: true });
    expect((await store.read(budget, AT)).reserved.tokens).toBe(40);
    expect(await store.settle(held.reservationId, tokens(40))).toBe(true);
    expect(await store.settle(held.reservationId, tokens(40))).toBe(false);
    expect(await store.release(held.reservationId)).toBe(false);
    expect(await store.release(uniqueId("missing"))).toBe(false);
    expect(await store.settle(uniqueId("missing"), tokens(5))).toBe(false);
    expect(await store.reserve(held)).toEqual({ ok: true });
    expect(await store.read(budget, AT)).toEqual(expect.objectContaining({ spent: tokens(40), reserved: tokens(0) }));
  },
  "periodic budgets start again in each window": async ({ store, expect }) => {
    const daily = tenant({ period: "day", tokens: 50 });
    expect(await store.reserve({ reservationId: uniqueId("r"), limits: [daily], amount: tokens(50), at: AT })).toEqual({ ok: true });
    expect((await store.reserve({ reservationId: uniqueId("r"), limits: [daily], amount: tokens(1), at: AT })).ok).toBe(false);
    const tomorrow = AT + 86_400_000;
    expect(await store.reserve({ reservationId: uniqueId("r"), limits: [daily], amount: tokens(50), at: tomorrow })).toEqual({ ok: true });
    expect(await store.read(daily, AT)).toEqual(expect.objectContaining({ window: "2026-12-01", reserved: tokens(50) }));
    expect(await store.read({ ...daily, period: "month" }, AT)).toEqual(expect.objectContaining({ window: "2026-12", reserved: tokens(0) }));
  },
  "an extension raises the limit once per grant id": async ({ store, expect }) => {
    const budget = tenant();
    expect(await store.reserve({ reservationId: uniqueId("r"), limits: [budget], amount: tokens(100), at: AT })).toEqual({ ok: true });
    const grant = { grantId: uniqueId("g"), scope: budget.scope, id: budget.id, amount: tokens(50), at: AT };
    expect(await store.extend(grant)).toBe(true);
    expect(await store.extend(grant)).toBe(false);
    expect((await store.read(budget, AT)).granted).toEqual(tokens(50));
    expect(await store.reserve({ reservationId: uniqueId("r"), limits: [budget], amount: tokens(50), at: AT })).toEqual({ ok: true });
    expect((await store.reserve({ reservationId: uniqueId("r"), limits: [budget], amount: tokens(1), at: AT })).ok).toBe(false);
  },
  "concurrent reservations never hold more than the limit, also through a second handle": async ({ store, inspect, expect }) => {
    const budget = tenant({ tokens: 10 * 7 });
    const ledgers = [store, inspect?.peer ?? store];
    const outcomes = await Promise.all(Array.from({ length: 30 }, (_, n) => ledgers[n % 2]!.reserve({ reservationId: uniqueId("r"), limits: [budget], amount: tokens(7), at: AT })));
    expect(outcomes.filter((outcome) => outcome.ok).length).toBe(10);
    expect((await store.read(budget, AT)).reserved.tokens).toBe(70);
  },
  "a refused reservation holds nothing: its id reserves once the budget allows it": async ({ store, expect }) => {
    const budget = tenant({ tokens: 50 });
    const held = { reservationId: uniqueId("r"), limits: [budget], amount: tokens(60), at: AT };
    expect((await store.reserve(held)).ok).toBe(false);
    expect(await store.settle(held.reservationId, tokens(60))).toBe(false);
    expect(await store.extend({ grantId: uniqueId("g"), scope: budget.scope, id: budget.id, amount: tokens(10), at: AT })).toBe(true);
    expect(await store.reserve(held)).toEqual({ ok: true });
    expect((await store.read(budget, AT)).reserved.tokens).toBe(60);
  },
  "one budget named twice is held once and checked against each of its limits": async ({ store, expect }) => {
    const id = uniqueId("tenant");
    const limits: BudgetLimit[] = [{ scope: "tenant", id, tokens: 100 }, { scope: "tenant", id, costMicros: 50 }];
    const refused = await store.reserve({ reservationId: uniqueId("r"), limits, amount: { tokens: 10, costMicros: 60 }, at: AT });
    expect(refused).toEqual({ ok: false, exceeded: { scope: "tenant", id, window: null, unit: "cost", spent: 0, reserved: 0, limit: 50, requested: 60 } });
    const held = { reservationId: uniqueId("r"), limits, amount: { tokens: 10, costMicros: 40 }, at: AT };
    expect(await store.reserve(held)).toEqual({ ok: true });
    expect((await store.read({ scope: "tenant", id }, AT)).reserved).toEqual({ tokens: 10, costMicros: 40 });
    expect(await store.settle(held.reservationId, { tokens: 30, costMicros: 70 })).toBe(true);
    expect(await store.read({ scope: "tenant", id }, AT)).toEqual(expect.objectContaining({ spent: { tokens: 30, costMicros: 70 }, reserved: { tokens: 0, costMicros: 0 } }));
  },
  "finishAndReserve settles or releases the earlier call, then reserves; the finish stands when the reserve is refused or known": async ({ store, expect }) => {
    // Optional in the port: a ledger without it passes (the run settles, then reserves).
    if (!store.finishAndReserve) return;
    const budget = tenant({ tokens: 100, costMicros: 1000 });
    const first = { reservationId: uniqueId("r"), limits: [budget], amount: { tokens: 60, costMicros: 500 }, at: AT };
    expect(await store.reserve(first)).toEqual({ ok: true });
    // Settled on 25 tokens: 60 more fit (25 + 60 ≤ 100) only because the hold of 60 left first.
    const second = { reservationId: uniqueId("r"), limits: [budget], amount: { tokens: 60, costMicros: 100 }, at: AT };
    expect(await store.finishAndReserve({ reservationId: first.reservationId, actual: { tokens: 25, costMicros: 200 } }, second)).toEqual({ ok: true });
    expect(await store.read(budget, AT)).toEqual(expect.objectContaining({ spent: { tokens: 25, costMicros: 200 }, reserved: { tokens: 60, costMicros: 100 } }));
    expect(await store.settle(first.reservationId, tokens(1))).toBe(false);
    // Released, then refused (25 spent + 80 > 100): the release stands, nothing more is held.
    const refused = await store.finishAndReserve({ reservationId: second.reservationId, actual: null }, { reservationId: uniqueId("r"), limits: [budget], amount: tokens(80), at: AT });
    expect(refused).toEqual({ ok: false, exceeded: { scope: "tenant", id: budget.id, window: null, unit: "tokens", spent: 25, reserved: 0, limit: 100, requested: 80 } });
    expect(await store.read(budget, AT)).toEqual(expect.objectContaining({ spent: { tokens: 25, costMicros: 200 }, reserved: tokens(0) }));
    // A known reservation id holds nothing more; the finish of an unknown one changes nothing.
    const third = { reservationId: uniqueId("r"), limits: [budget], amount: tokens(10), at: AT };
    expect(await store.reserve(third)).toEqual({ ok: true });
    expect(await store.finishAndReserve({ reservationId: uniqueId("missing"), actual: tokens(5) }, third)).toEqual({ ok: true });
    expect(await store.read(budget, AT)).toEqual(expect.objectContaining({ spent: { tokens: 25, costMicros: 200 }, reserved: tokens(10) }));
  },
  "finishAndReserve with invalid input in either part rejects and changes nothing": async ({ store, expect }) => {
    if (!store.finishAndReserve) return;
    const budget = tenant();
    const held = { reservationId: uniqueId("r"), limits: [budget], amount: tokens(40), at: AT };
    expect(await store.reserve(held)).toEqual({ ok: true });
    expect(await errorCode(() => store.finishAndReserve!({ reservationId: held.reservationId, actual: tokens(10) }, { reservationId: uniqueId("r"), limits: [budget], amount: tokens(-1), at: AT }))).toBe("input_validation");
    expect(await errorCode(() => store.finishAndReserve!({ reservationId: held.reservationId, actual: { tokens: 1.5, costMicros: 0 } }, { reservationId: uniqueId("r"), limits: [budget], amount: tokens(1), at: AT }))).toBe("input_validation");
    expect(await errorCode(() => store.finishAndReserve!({ reservationId: "", actual: null }, { reservationId: uniqueId("r"), limits: [budget], amount: tokens(1), at: AT }))).toBe("input_validation");
    // The hold is still open and nothing was spent.
    expect(await store.read(budget, AT)).toEqual(expect.objectContaining({ spent: tokens(0), reserved: tokens(40) }));
    expect(await store.settle(held.reservationId, tokens(40))).toBe(true);
  },
  "invalid amounts and ids are refused and change nothing": async ({ store, expect }) => {
    const budget = tenant();
    expect(await errorCode(() => store.reserve({ reservationId: uniqueId("r"), limits: [budget], amount: tokens(-1), at: AT }))).toBe("input_validation");
    expect(await errorCode(() => store.reserve({ reservationId: uniqueId("r"), limits: [budget], amount: { tokens: 1.5, costMicros: 0 }, at: AT }))).toBe("input_validation");
    expect(await errorCode(() => store.reserve({ reservationId: "", limits: [budget], amount: tokens(1), at: AT }))).toBe("input_validation");
    expect(await errorCode(() => store.reserve({ reservationId: uniqueId("r"), limits: [{ ...budget, id: "" }], amount: tokens(1), at: AT }))).toBe("input_validation");
    expect(await errorCode(() => store.settle(uniqueId("r"), { tokens: Number.NaN, costMicros: 0 }))).toBe("input_validation");
    expect(await store.read(budget, AT)).toEqual(expect.objectContaining({ reserved: tokens(0), spent: tokens(0) }));
  },
};

/**
 * Contract suite for the budget-ledger port (BUD-1): holds, settles and releases add up, a
 * reservation past any of its budgets is refused whole, ids make every step idempotent, periods
 * start again per window, extensions apply once, concurrent reservations — through the
 * subject and through `inspect.peer`, a second handle on the same store — never pass a limit,
 * and (when the ledger has it) `finishAndReserve` finishes first and keeps the finish whatever
 * the reserve answers.
 *
 * @example
 * runBudgetLedgerContract({ describe, it, expect }, () => ({ store: createMemoryBudgetLedger() }));
 */
export function runBudgetLedgerContract(
  api: ContractTestApi,
  factory: ContractFactory<BudgetLedger, BudgetLedgerInspect>,
  options: ContractOptions<keyof typeof cases & string> = {},
): void {
  defineContract(api, "BudgetLedger", factory, cases, options);
}
