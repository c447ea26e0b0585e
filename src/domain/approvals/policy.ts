/**
 * GOV-6: the approval policy as data. A policy is a TypeBox-checked document (JSON) of ordered
 * rules — tool id patterns, argument predicates, tenants, estimated cost and UTC time windows —
 * each ending in `allow`, `ask` or `deny`, plus the approver groups, the expiry of a pending
 * approval and what follows it, and escalation. Evaluation is pure and deterministic: the first
 * rule that matches decides, else `default`. A policy's version is the hash of its canonical
 * content, computed where hashing lives (the application's policy loader).
 */
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { SteamharnessError } from "../errors.js";
import { describeSchemaError } from "../schema-errors.js";
import { canonicalJson } from "../stable-hash.js";

const Action = Type.Union([Type.Literal("allow"), Type.Literal("ask"), Type.Literal("deny")]);
const OnExpiry = Type.Union([Type.Literal("fail"), Type.Literal("deny"), Type.Literal("escalate")]);
const Id = Type.String({ minLength: 1, maxLength: 200 });
const Pattern = Type.String({ minLength: 1, maxLength: 500 });
const Ms = Type.Integer({ minimum: 1 });
const ClockTime = Type.String({ pattern: "^([01][0-9]|2[0-3]):[0-5][0-9]$" });

/** A test of one argument, found by a dot path (`target.env`, `items.0`); every given test must hold. */
const ArgumentPredicate = Type.Object(
  {
    path: Type.String({ minLength: 1, maxLength: 500 }),
    equals: Type.Optional(Type.Unknown()),
    in: Type.Optional(Type.Array(Type.Unknown())),
    /** A regular expression the argument (a string) must match. */
    matches: Type.Optional(Type.String({ maxLength: 500 })),
    exists: Type.Optional(Type.Boolean()),
    above: Type.Optional(Type.Number()),
    atMost: Type.Optional(Type.Number()),
  },
  { additionalProperties: false },
);

/** When a rule applies: UTC days (0 = Sunday) and a UTC clock range; `from` > `to` spans midnight. */
const TimeWindow = Type.Object({ days: Type.Optional(Type.Array(Type.Integer({ minimum: 0, maximum: 6 }), { minItems: 1 })), from: ClockTime, to: ClockTime }, { additionalProperties: false });

const Escalation = Type.Object({ afterMs: Ms, to: Id }, { additionalProperties: false });

const Rule = Type.Object(
  {
    id: Type.Optional(Id),
    /** Tool id pattern; `*` stands for any run of characters. */
    tool: Pattern,
    /** Tenant key patterns; absent: every tenant (and local runs without one). */
    tenants: Type.Optional(Type.Array(Pattern, { minItems: 1 })),
    arguments: Type.Optional(Type.Array(ArgumentPredicate)),
    /** Bounds on the call's estimated cost (the host's unit, e.g. USD); a call without an estimate never matches a cost bound. */
    estimatedCost: Type.Optional(Type.Object({ above: Type.Optional(Type.Number()), atMost: Type.Optional(Type.Number()) }, { additionalProperties: false })),
    window: Type.Optional(TimeWindow),
    action: Action,
    /** The approver group that may decide (`ask`); absent: the policy's `approvers`. */
    approvers: Type.Optional(Id),
    expiresAfterMs: Type.Optional(Ms),
    onExpiry: Type.Optional(OnExpiry),
    escalation: Type.Optional(Escalation),
    reason: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

/** Who belongs to an approver group: every given field must equal the approver's. */
const ApproverSelector = Type.Object({ tenant: Type.Optional(Id), subject: Type.Optional(Id), surface: Type.Optional(Id) }, { additionalProperties: false });

/** The policy document's schema (GOV-6). */
export const ApprovalPolicySchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    default: Type.Optional(Action),
    approverGroups: Type.Optional(Type.Record(Id, Type.Array(ApproverSelector, { minItems: 1 }))),
    /** The default approver group; absent: anyone the host lets decide. */
    approvers: Type.Optional(Id),
    expiresAfterMs: Type.Optional(Ms),
    onExpiry: Type.Optional(OnExpiry),
    escalation: Type.Optional(Escalation),
    /** Whether the requesting principal may decide its own request (default false). */
    allowSelfApproval: Type.Optional(Type.Boolean()),
    rules: Type.Array(Rule),
  },
  { additionalProperties: false },
);

/** A policy document as written. */
export type ApprovalPolicy = Static<typeof ApprovalPolicySchema>;
/** What a policy says of a call. */
export type ApprovalAction = Static<typeof Action>;
/** What follows when a pending approval expires: fail the run, treat it as denied, or escalate. */
export type ApprovalExpiryAction = Static<typeof OnExpiry>;
/** An approver group member selector. */
export type ApproverSelectorSpec = Static<typeof ApproverSelector>;

/** The default deadline of a pending approval: one hour. */
export const DEFAULT_APPROVAL_EXPIRY_MS = 3_600_000;

/** The call a policy judges. `at` is when it is asked (ms since epoch, from the host's clock). */
export interface ApprovalPolicyCall {
  toolId: string;
  arguments: unknown;
  tenant?: string;
  estimatedCost?: number;
  at: number;
}

/** The verdict of a policy on a call, with everything a pending approval needs. */
export interface ApprovalVerdict {
  action: ApprovalAction;
  /** The index of the rule that decided, or null for the policy's default. */
  rule: number | null;
  ruleId?: string;
  /** The approver group that may decide, or null: anyone the host lets decide. */
  approvers: string | null;
  expiresAfterMs: number;
  onExpiry: ApprovalExpiryAction;
  escalation: { afterMs: number; to: string } | null;
  reason?: string;
}

const invalid = (field: string, message: string) => new SteamharnessError("input_validation", `[steamharness] [approvals] ${message}`, { field });

/**
 * The policy checked against {@link ApprovalPolicySchema}, with what the schema cannot say (group
 * references exist, regular expressions compile); throws `input_validation` naming the field as a
 * JSON pointer (`/rules/0/action`).
 *
 * @example
 * const policy = parseApprovalPolicy(JSON.parse(readFileSync("approvals.json", "utf8")));
 */
export function parseApprovalPolicy(value: unknown): ApprovalPolicy {
  if (!Value.Check(ApprovalPolicySchema, value)) {
    const first = [...Value.Errors(ApprovalPolicySchema, value)][0];
    const field = first?.path || "/";
    throw invalid(field, `the approval policy is malformed at ${field}${first ? `: ${describeSchemaError(first)}` : ""}`);
  }
  const groups = value.approverGroups ?? {};
  const checkGroup = (name: string | undefined, field: string) => {
    if (name !== undefined && !Object.hasOwn(groups, name)) throw invalid(field, `the approval policy names an unknown approver group "${name}" at ${field}`);
  };
  checkGroup(value.approvers, "/approvers");
  checkGroup(value.escalation?.to, "/escalation/to");
  value.rules.forEach((rule, index) => {
    checkGroup(rule.approvers, `/rules/${index}/approvers`);
    checkGroup(rule.escalation?.to, `/rules/${index}/escalation/to`);
    rule.arguments?.forEach((predicate, at) => {
      if (predicate.matches === undefined) return;
      try {
        new RegExp(predicate.matches, "u");
      } catch {
        throw invalid(`/rules/${index}/arguments/${at}/matches`, `the approval policy has an invalid regular expression at /rules/${index}/arguments/${at}/matches`);
      }
    });
  });
  return value;
}

const globCache = new Map<string, RegExp>();
/** `*` matches any run of characters; everything else is literal. */
function globMatches(pattern: string, text: string): boolean {
  let compiled = globCache.get(pattern);
  if (!compiled) {
    compiled = new RegExp(`^${pattern.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`, "su");
    if (globCache.size < 1000) globCache.set(pattern, compiled);
  }
  return compiled.test(text);
}

function argumentAt(args: unknown, path: string): { found: boolean; value?: unknown } {
  let current = args;
  for (const key of path.split(".")) {
    if (current === null || typeof current !== "object" || !Object.hasOwn(current, key)) return { found: false };
    current = (current as Record<string, unknown>)[key];
  }
  return { found: true, value: current };
}

// Argument values are JSON: equal when their canonical forms are.
const sameJson = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);

function predicateHolds(predicate: Static<typeof ArgumentPredicate>, args: unknown): boolean {
  const { found, value } = argumentAt(args, predicate.path);
  if (predicate.exists !== undefined && predicate.exists !== found) return false;
  if (!found) return predicate.exists === false;
  if (predicate.equals !== undefined && !sameJson(value, predicate.equals)) return false;
  if (predicate.in !== undefined && !predicate.in.some((candidate) => sameJson(value, candidate))) return false;
  if (predicate.matches !== undefined && !(typeof value === "string" && new RegExp(predicate.matches, "u").test(value))) return false;
  if (predicate.above !== undefined && !(typeof value === "number" && value > predicate.above)) return false;
  if (predicate.atMost !== undefined && !(typeof value === "number" && value <= predicate.atMost)) return false;
  return true;
}

const minutesOf = (clock: string): number => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3));

function inWindow(window: Static<typeof TimeWindow>, at: number): boolean {
  const date = new Date(at);
  if (window.days && !window.days.includes(date.getUTCDay())) return false;
  const minute = date.getUTCHours() * 60 + date.getUTCMinutes();
  const [from, to] = [minutesOf(window.from), minutesOf(window.to)];
  return from <= to ? minute >= from && minute < to : minute >= from || minute < to;
}

function ruleMatches(rule: Static<typeof Rule>, call: ApprovalPolicyCall): boolean {
  if (!globMatches(rule.tool, call.toolId)) return false;
  if (rule.tenants && !(call.tenant !== undefined && rule.tenants.some((pattern) => globMatches(pattern, call.tenant!)))) return false;
  if (rule.estimatedCost) {
    const cost = call.estimatedCost;
    if (cost === undefined) return false;
    if (rule.estimatedCost.above !== undefined && !(cost > rule.estimatedCost.above)) return false;
    if (rule.estimatedCost.atMost !== undefined && !(cost <= rule.estimatedCost.atMost)) return false;
  }
  if (rule.window && !inWindow(rule.window, call.at)) return false;
  return (rule.arguments ?? []).every((predicate) => predicateHolds(predicate, call.arguments));
}

/**
 * What the policy says of a call: the first matching rule's action (with its approvers, expiry
 * and escalation, each falling back to the policy's), else the policy's `default` (`ask`).
 * Deterministic: the same policy and call give the same verdict.
 *
 * @example
 * evaluateApprovalPolicy(policy, { toolId: "deploy", arguments: { env: "prod" }, tenant: "key:acme", at: clock.now() }).action // "ask"
 */
export function evaluateApprovalPolicy(policy: ApprovalPolicy, call: ApprovalPolicyCall): ApprovalVerdict {
  const index = policy.rules.findIndex((rule) => ruleMatches(rule, call));
  const rule = index < 0 ? undefined : policy.rules[index]!;
  const reason = rule?.reason;
  return {
    action: rule?.action ?? policy.default ?? "ask",
    rule: index < 0 ? null : index,
    ...(rule?.id === undefined ? {} : { ruleId: rule.id }),
    approvers: rule?.approvers ?? policy.approvers ?? null,
    expiresAfterMs: rule?.expiresAfterMs ?? policy.expiresAfterMs ?? DEFAULT_APPROVAL_EXPIRY_MS,
    onExpiry: rule?.onExpiry ?? policy.onExpiry ?? "deny",
    escalation: rule?.escalation ?? policy.escalation ?? null,
    ...(reason === undefined ? {} : { reason }),
  };
}

/** Who decides, as a policy sees them. */
export interface ApprovalPolicyApprover {
  surface: string;
  tenant?: string;
  subject?: string;
}

/**
 * Whether `approver` belongs to the policy's group `group` (null: no group, so anyone the host
 * lets decide).
 *
 * @example
 * isPolicyApprover(policy, "sre", { surface: "gateway", tenant: "key:acme", subject: "alice" })
 */
export function isPolicyApprover(policy: ApprovalPolicy, group: string | null, approver: ApprovalPolicyApprover): boolean {
  if (group === null) return true;
  const members = policy.approverGroups?.[group] ?? [];
  return members.some((member) => (member.tenant === undefined || member.tenant === approver.tenant) && (member.subject === undefined || member.subject === approver.subject) && (member.surface === undefined || member.surface === approver.surface));
}
