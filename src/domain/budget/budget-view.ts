/**
 * What a run shows of its budgets (issue 28 item 6, "visible"): per budget what was spent, what
 * is held, the limit (configured plus approved extensions) and what remains, in tokens and USD.
 * The agent-session item carries it, the run's stop and end events record it (so the run viewer
 * draws it from the log), and the run's `invoke_agent` span carries it as attributes.
 */

/** Tokens and USD of one budget; `null` in a unit the budget does not limit (limit and remaining only). */
export interface BudgetViewAmount<T extends number | null = number> {
  tokens: T;
  costUsd: T;
}

/** One budget of a run as last read from the ledger. */
export interface BudgetViewEntry {
  scope: "run" | "conversation" | "project" | "tenant";
  id: string;
  period?: "day" | "month";
  /** The window of a periodic budget (`2026-12-01`, `2026-12`), else null. */
  window: string | null;
  spent: BudgetViewAmount;
  /** Held by calls in flight (this run's or other runs'). */
  reserved: BudgetViewAmount;
  /** Configured limit plus approved extensions; null for a unit without a limit. */
  limit: BudgetViewAmount<number | null>;
  /** `limit − spent − reserved` (never below 0); null for a unit without a limit. */
  remaining: BudgetViewAmount<number | null>;
}

/** The `budget` of the agent-session item and of the run's stop and end events. */
export interface RunBudgetView {
  budgets: BudgetViewEntry[];
  maxModelCalls?: number;
  maxToolCalls?: number;
}

/**
 * The telemetry attributes of a run's budgets, on its `invoke_agent` span (docs/observability.md):
 * `steamharness.budget.<scope>[.<period>].{spent,reserved,limit,remaining}_{tokens,usd}`, a unit
 * without a limit leaving its limit and remaining out. The first budget of a scope and period
 * names them; a run has one of each (its run, conversation, project, tenant).
 *
 * @example
 * budgetAttributes({ budgets: [entry] })["steamharness.budget.run.remaining_tokens"] // 1200
 */
export function budgetAttributes(view: RunBudgetView): Record<string, number> {
  const attributes: Record<string, number> = {};
  for (const entry of view.budgets) {
    const prefix = `steamharness.budget.${entry.scope}${entry.period ? `.${entry.period}` : ""}`;
    if (`${prefix}.spent_tokens` in attributes) continue;
    for (const what of ["spent", "reserved", "limit", "remaining"] as const) {
      const amount = entry[what];
      if (amount.tokens !== null) attributes[`${prefix}.${what}_tokens`] = amount.tokens;
      if (amount.costUsd !== null) attributes[`${prefix}.${what}_usd`] = amount.costUsd;
    }
  }
  return attributes;
}
