/**
 * How a host configures the budgets of agent runs (BUD-2, BUD-3).
 */
import type { BudgetLedger, BudgetPeriod, BudgetScope } from "../../ports/budget-ledger.js";
import type { ModelPrice } from "./model-price.js";

/** One budget a run's model calls reserve against. */
export interface AgentBudgetLimit {
  scope: BudgetScope;
  /**
   * The owner; default from the run: `run` → the run id, `conversation` → the conversation id
   * (else the session key), `project` → the project id, `tenant` → `AgentBudgetOptions.tenantId`,
   * else the context's `tenantId` (the verified caller of an MCP HTTP host, BUD-5).
   */
  id?: string;
  /** Starts again every UTC day or month; none = for ever. */
  period?: BudgetPeriod;
  /** Most tokens (input, output and cache, as the provider reports them). */
  tokens?: number;
  /** Most money in USD, at the model's prices. */
  costUsd?: number;
}

/** Budgets, call limits and what happens at a limit. */
export interface AgentBudgetOptions {
  limits?: AgentBudgetLimit[];
  /**
   * The tenant of `tenant` budgets without an `id` (the gateway passes its key's tenant); when
   * not given, the run context's `tenantId` (BUD-5: `steamharness mcp --http` sets the caller's).
   */
  tenantId?: string;
  /** Most model requests of one run (retries and continuations count). */
  maxModelCalls?: number;
  /** Most tool calls of one run. */
  maxToolCalls?: number;
  /**
   * At a token or money limit: `stop` (default) fails the run before the call with a
   * `budget_exceeded` error item; `pause` asks a person (`context.userInput`, a `form` request
   * with an `approve` field) and, once approved, extends the budget and continues the same run.
   * Call limits always stop.
   */
  onLimit?: "stop" | "pause";
  /** What one approval adds (default: the exceeded budget's configured limit in that unit). */
  extendBy?: { tokens?: number; costUsd?: number };
  /** Prices in USD per million tokens; default the model's (its entry's `price`, else the provider library's metadata). */
  price?: ModelPrice;
  /** Output tokens reserved per call when the model states no `maxTokens` (default 16384). */
  maxOutputTokens?: number;
  /**
   * Calls one reservation may cover (default 8; 1 reserves every call alone). Where the lease —
   * this many times a call's worst case — is at most 1 % of every limit, the run holds it and
   * its next calls draw from it while it covers each one's worst case, so the ledger is written
   * once per lease instead of once per call; near a limit each call reserves alone. Nothing is
   * ever spent without a hold; a lease only holds more than one call needs (docs/budgets.md).
   * Needs a ledger with `finishAndReserve`. Anything but a whole number, 1 or more, fails the
   * run with `input_validation` (field `budget.leaseCalls`).
   */
  leaseCalls?: number;
  /** The ledger; default `context.storage.budgets`, else one in memory per storage. */
  ledger?: BudgetLedger;
}
