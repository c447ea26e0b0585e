/**
 * TypeBox schemas of a conversation executor declaration (CONV-1) and the checks that turn the
 * first `Value.Errors` entry into an `input_validation` error naming the exact path
 * (`executor.tools[1].autoApprove`), so a mistyped project fails at definition time with a
 * message a person can act on — not at the first turn.
 */
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { SteamharnessError } from "../../domain/errors.js";
// One schema of the catalog entry for every project type (WF-2).
import { ToolCatalogEntrySchema } from "../../domain/tool-catalog.js";
import { describeSchemaError } from "../../domain/schema-errors.js";

const Enabled = Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false });

/** The executor declaration of a conversation project. */
export const AgentConversationExecutorDeclarationSchema = Type.Object(
  {
    tools: Type.Array(ToolCatalogEntrySchema, { maxItems: 500 }),
    conversation: Type.Object(
      {
        recovery: Enabled,
        durable: Enabled,
        openai: Type.Optional(Type.Object({ outputItemId: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false })),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

/** `executor`: the host's tool catalog for this project and how its conversation runs. */
export type AgentConversationExecutorDeclaration = Static<typeof AgentConversationExecutorDeclarationSchema>;

const StringList = Type.Array(Type.String({ minLength: 1 }));

/**
 * The agent-node options this module checks by type (others pass through to `createAgentNode`
 * unchecked, so new agent options need no change here).
 */
export const CheckedAgentOptionsSchema = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  sessionKey: Type.Optional(Type.String({ minLength: 1 })),
  sessionId: Type.Optional(Type.String({ minLength: 1 })),
  outputItemId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  workdir: Type.Optional(Type.String({ minLength: 1 })),
  systemPrompt: Type.Optional(Type.String()),
  provider: Type.Optional(Type.String({ minLength: 1 })),
  model: Type.Optional(Type.String({ minLength: 1 })),
  baseUrl: Type.Optional(Type.String({ pattern: "^https?://" })),
  apiKey: Type.Optional(Type.String({ minLength: 1 })),
  apiKind: Type.Optional(Type.Union([Type.Literal("openai-responses"), Type.Literal("anthropic-messages"), Type.Literal("openai-completions")])),
  webSearch: Type.Optional(Type.Boolean()),
  effort: Type.Optional(Type.Union(["minimal", "low", "medium", "high"].map((e) => Type.Literal(e)))),
  mode: Type.Optional(Type.Union([Type.Literal("build"), Type.Literal("plan")])),
  tools: Type.Optional(StringList),
  extraToolCatalog: Type.Optional(Type.Array(ToolCatalogEntrySchema)),
  allowedDirectories: Type.Optional(StringList),
  extraTools: Type.Optional(Type.Array(Type.Object({ name: Type.String({ minLength: 1 }) }))),
  createTools: Type.Optional(Type.Function([], Type.Unknown())),
  historyLimit: Type.Optional(Type.Integer({ minimum: 1 })),
  databasePath: Type.Optional(Type.String({ minLength: 1 })),
});

/**
 * Returns `value` typed by `schema`, or throws `input_validation` with `field` set to the first
 * failing path in dotted form under `root` (`executor.tools[0].id`).
 *
 * @example
 * checkDeclaration(AgentConversationExecutorDeclarationSchema, raw, "executor");
 */
export function checkDeclaration<T extends TSchema>(schema: T, value: unknown, root: string): Static<T> {
  if (Value.Check(schema, value)) return value;
  const first = Value.Errors(schema, value).First();
  const field = dotted(root, first?.path ?? "");
  const found = first?.value === undefined ? "missing" : `found ${shorten(first.value)}`;
  throw new SteamharnessError("input_validation", `[steamharness] [conversation] ${field}: ${first ? describeSchemaError(first) : "invalid"} (${found})`, { field });
}

/**
 * A JSON pointer as a dotted path with indexes: `/tools/0/id` under `executor` →
 * `executor.tools[0].id`.
 *
 * @example
 * dotted("executor", "/tools/0/id") // "executor.tools[0].id"
 */
export function dotted(root: string, pointer: string): string {
  let path = root;
  for (const part of pointer.split("/").slice(1)) {
    path += /^\d+$/.test(part) ? `[${part}]` : path === "" ? part : `.${part}`;
  }
  return path;
}

function shorten(value: unknown): string {
  if (typeof value === "function") return "a function";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
