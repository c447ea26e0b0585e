import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { SteamharnessError } from "../errors.js";
import { describeSchemaError } from "../schema-errors.js";

/**
 * The typed command set of a resident session host (HOST-1). Commands are plain JSON so they can
 * travel through the durable inbox to a host in another process. `targetId` addresses a context
 * of the snapshot (0 = the main context, forks and child sessions get the next numbers); it
 * defaults to the host's active context.
 */

const TargetId = Type.Integer({ minimum: 0, description: "The numeric targetId of a context in the snapshot" });
const Prompt = Type.String({ minLength: 1, maxLength: 200_000 });
const TaskId = Type.String({ minLength: 1, maxLength: 200 });

/** `submit`: queue new input. `mode: "reject"` refuses it with `session_busy` while the session has active work. */
export const SubmitCommandSchema = Type.Object(
  {
    type: Type.Literal("submit"),
    prompt: Prompt,
    mode: Type.Optional(Type.Union([Type.Literal("queue"), Type.Literal("reject")])),
    targetId: Type.Optional(TargetId),
    /** A caller-chosen id; re-submitting the same id returns the existing task (idempotent). */
    taskId: Type.Optional(TaskId),
    effort: Type.Optional(Type.Union([Type.Literal("minimal"), Type.Literal("low"), Type.Literal("medium"), Type.Literal("high")])),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

/** `cancel`: the user stops work. Persists the cancel intent, stops the worker; never retried. */
export const CancelCommandSchema = Type.Object(
  {
    type: Type.Literal("cancel"),
    /** Only this task; default every active task of the session. */
    taskId: Type.Optional(TaskId),
    reason: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);

/**
 * `compact`: waits for active durable work, then the context's own model summarises its older
 * messages (SES-7, SES-11; the mechanical fold only when the model fails). An appended event
 * and a snapshot; the transcript is never overwritten.
 */
export const CompactCommandSchema = Type.Object(
  {
    type: Type.Literal("compact"),
    targetId: Type.Optional(TargetId),
    /** How many recent messages stay verbatim (default 6). */
    keepLast: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
    /** What the summary should keep or focus on (`/compact <instructions>`). */
    instructions: Type.Optional(Type.String({ maxLength: 4000 })),
  },
  { additionalProperties: false },
);

/** `reset`: waits for active work, then starts the context over with an empty transcript. */
export const ResetCommandSchema = Type.Object(
  { type: Type.Literal("reset"), targetId: Type.Optional(TargetId) },
  { additionalProperties: false },
);

/** `fork`: copies a context's transcript into a new context, which becomes the active one. */
export const ForkCommandSchema = Type.Object(
  {
    type: Type.Literal("fork"),
    /** The context to copy (default the active one). */
    targetId: Type.Optional(TargetId),
    /** Make the fork the active context (default true). */
    activate: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** `continue`: re-runs a task that paused for input (SES-8), with the answer of a pending question. */
export const ContinueCommandSchema = Type.Object(
  {
    type: Type.Literal("continue"),
    /** Default: the waiting task. */
    taskId: Type.Optional(TaskId),
    answer: Type.Optional(Type.String({ maxLength: 200_000 })),
    requestId: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    /** Who gave the answer (UI-7); the run keeps it with its decision. */
    answeredBy: Type.Optional(
      Type.Object(
        { surface: Type.String({ minLength: 1, maxLength: 256 }), tenant: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })), subject: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })), at: Type.Optional(Type.Number()) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/**
 * `steer` (UI-5): input for the turn running now, delivered at its next step boundary (after
 * the tool results of a model response, before the next model call) as a user message of that
 * run. Kept as a queued task until then, so nothing is lost: a turn that ends before a boundary
 * leaves it to run as the next turn (a follow-up), and with nothing running it is a normal turn.
 */
export const SteerCommandSchema = Type.Object(
  {
    type: Type.Literal("steer"),
    prompt: Prompt,
    targetId: Type.Optional(TargetId),
    /** A caller-chosen id; steering with the same id again returns the existing task (idempotent). */
    taskId: Type.Optional(TaskId),
  },
  { additionalProperties: false },
);

/** `select`: makes another context the active one. */
export const SelectCommandSchema = Type.Object(
  { type: Type.Literal("select"), targetId: TargetId },
  { additionalProperties: false },
);

/** Every command a host accepts. */
export const AgentSessionCommandSchema = Type.Union([
  SubmitCommandSchema,
  CancelCommandSchema,
  CompactCommandSchema,
  ResetCommandSchema,
  ForkCommandSchema,
  ContinueCommandSchema,
  SteerCommandSchema,
  SelectCommandSchema,
]);

export type AgentSessionSubmitCommand = Static<typeof SubmitCommandSchema>;
export type AgentSessionCancelCommand = Static<typeof CancelCommandSchema>;
export type AgentSessionCompactCommand = Static<typeof CompactCommandSchema>;
export type AgentSessionResetCommand = Static<typeof ResetCommandSchema>;
export type AgentSessionForkCommand = Static<typeof ForkCommandSchema>;
export type AgentSessionContinueCommand = Static<typeof ContinueCommandSchema>;
export type AgentSessionSteerCommand = Static<typeof SteerCommandSchema>;
export type AgentSessionSelectCommand = Static<typeof SelectCommandSchema>;
/** A command of {@link AgentSessionCommandSchema}. */
export type AgentSessionCommand = Static<typeof AgentSessionCommandSchema>;
/** The command names. */
export type AgentSessionCommandType = AgentSessionCommand["type"];

const SCHEMAS: Record<AgentSessionCommandType, (typeof AgentSessionCommandSchema)["anyOf"][number]> = {
  submit: SubmitCommandSchema,
  cancel: CancelCommandSchema,
  compact: CompactCommandSchema,
  reset: ResetCommandSchema,
  fork: ForkCommandSchema,
  continue: ContinueCommandSchema,
  steer: SteerCommandSchema,
  select: SelectCommandSchema,
};

/** The command names, in documentation order. */
export const AGENT_SESSION_COMMAND_TYPES = Object.keys(SCHEMAS) as AgentSessionCommandType[];

/**
 * Checks a command (it may come from another process through the inbox) and returns it typed.
 * Throws `input_validation` naming the field for an unknown `type` or a bad field.
 *
 * @example
 * parseAgentSessionCommand({ type: "submit", prompt: "hi", mode: "reject" })
 */
export function parseAgentSessionCommand(value: unknown): AgentSessionCommand {
  const type = (value as { type?: unknown } | null)?.type;
  if (typeof value !== "object" || value === null || typeof type !== "string" || !(type in SCHEMAS)) {
    throw new SteamharnessError("input_validation", `unknown session command type; expected one of ${AGENT_SESSION_COMMAND_TYPES.join(", ")}`, { field: "type" });
  }
  const schema = SCHEMAS[type as AgentSessionCommandType];
  if (!Value.Check(schema, value)) {
    const first = [...Value.Errors(schema, value)][0];
    const field = first?.path.replace(/^\//, "") || "command";
    throw new SteamharnessError("input_validation", `invalid ${type} command at ${field}: ${first ? describeSchemaError(first) : "invalid"}`, { field });
  }
  return value as AgentSessionCommand;
}
