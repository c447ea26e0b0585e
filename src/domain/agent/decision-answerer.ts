/**
 * Who answered a request for a person (UI-7): a tool approval, an `ask_user` question or a plan.
 * The answer's port response (`ToolPermissionDecision`, `UserInputResponse`) may carry it as
 * `answeredBy`; the run keeps what {@link keptAnswerer} keeps of it in its `approval_decision`
 * event (built by `approvalDecisionEvent` only), so every surface that answers (the viewer, the
 * terminal, a remote principal) is recorded alike.
 */
import { usableId, type Principal } from "../principal.js";

/** Who answered, as the run's log keeps it. */
export interface DecisionAnswerer {
  /**
   * The surface the answer came through: a remote principal's (`gateway`, `mcp-http`), or a local
   * one (`viewer`, `chat` for the terminal chat, `cli` for `steamharness run` and `answer`, `mcp` for
   * an MCP client without a principal: stdio, unauthenticated loopback HTTP), or a host's own name.
   */
  surface: string;
  /** The tenant key of the remote principal who answered (TEN-1); absent for a local person. */
  tenant?: string;
  /** The person or program within that tenant. */
  subject?: string;
  /**
   * When the answer was given (ms since epoch), when that is not when the run took it up: a
   * decision recorded for a paused run, which reads it when it is run again.
   */
  at?: number;
}

/**
 * The answerer of a remote principal: its surface, tenant and subject (never its credential).
 *
 * @example
 * answererOf(principal, now) // { surface: "gateway", tenant: "key:acme", subject: "k1", at: now }
 */
export function answererOf(principal: Principal, at?: number): DecisionAnswerer {
  return { surface: principal.surface, tenant: principal.tenant, subject: principal.subject, ...(at === undefined ? {} : { at }) };
}

/**
 * The part of a port's `answeredBy` the log keeps: usable ids and a finite time only, so an
 * adapter's extra fields never reach the durable log; `undefined` without a usable surface.
 *
 * @example
 * keptAnswerer({ surface: "viewer", at: 1, secret: "x" }) // { surface: "viewer", at: 1 }
 */
export function keptAnswerer(value: unknown): DecisionAnswerer | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const given = value as Record<string, unknown>;
  const surface = usableId(given.surface);
  if (surface === undefined) return undefined;
  const tenant = usableId(given.tenant);
  const subject = usableId(given.subject);
  const at = typeof given.at === "number" && Number.isFinite(given.at) ? given.at : undefined;
  return { surface, ...(tenant === undefined ? {} : { tenant }), ...(subject === undefined ? {} : { subject }), ...(at === undefined ? {} : { at }) };
}
