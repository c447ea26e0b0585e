/**
 * The single description of a capability (CAP-1): a published TypeBox schema, a description, an
 * argument validator and an execute function. The native and MCP renderings both call
 * {@link runCapability}, so validation, approval and results are the same either way.
 */
import type { TObject } from "@sinclair/typebox";
import type { AgentToolResult } from "../agent-tool.js";
import { SteamharnessError, isSteamharnessError, type SteamharnessErrorCode } from "../errors.js";
import type { JsonValue } from "../json.js";
import type { KnowledgeStore } from "../../ports/knowledge-store.js";
import type { KvStore } from "../../ports/kv-store.js";
import type { CapabilityAddress } from "./catalog.js";
import type { HostBridgeClient } from "./host-bridge.js";
import type { ResourceCard } from "./resource-card.js";
import type { ArgumentValidator } from "./validate-args.js";

/** What a capability runs against: the project, the conversation, the stores and the bridge. */
export interface CapabilityRuntime {
  projectId: string;
  conversationId?: string;
  storage: { kv: KvStore; knowledge: KnowledgeStore };
  /** The host bridge (CAP-8), or `undefined` with the reason it is unavailable. */
  hostBridge?: HostBridgeClient;
  hostBridgeUnavailableReason?: string;
  /** `target.source` of cards for this project's own KV and knowledge (default `local`). */
  cardSource?: "local" | "server";
}

/** What an action produced: the JSON the model reads and, optionally, a card or card command. */
export interface CapabilityOutcome {
  result: JsonValue;
  resourceCard?: ResourceCard;
  cardCommand?: { [key: string]: JsonValue };
}

/** One capability, described once. */
export interface CapabilitySpec<A = Record<string, unknown>> {
  address: CapabilityAddress;
  label: string;
  description: string;
  parameters: TObject;
  replay: "safe" | "never";
  validate: ArgumentValidator<A>;
  execute(args: A, runtime: CapabilityRuntime, signal?: AbortSignal): Promise<CapabilityOutcome>;
}

/** `approve(toolId, args)`: resolves to allow, rejects to deny (the rejection is the tool's error). */
export type CapabilityApprove = (toolId: string, args: unknown) => Promise<void>;

/**
 * Validates, approves (when `approve` is given) and executes one call. Validation comes first so
 * that nobody is asked to approve a call that cannot run; approval comes before any store or
 * bridge access, so a denial writes nothing.
 *
 * @example
 * const result = await runCapability(kvCapability, runtime, { action: "get", key: "a" }, approve);
 */
export async function runCapability(
  spec: CapabilitySpec<any>,
  runtime: CapabilityRuntime,
  rawArgs: unknown,
  approve?: CapabilityApprove,
  signal?: AbortSignal,
): Promise<AgentToolResult> {
  const args = spec.validate(rawArgs);
  if (approve) await approve(spec.address.toolId, args);
  if (signal?.aborted) throw new SteamharnessError("cancelled", `${spec.address.toolId} was cancelled before it ran`);
  const outcome = await spec.execute(args, runtime, signal);
  return outcomeToToolResult(outcome);
}

/**
 * The tool result of an outcome: the model reads `result` as JSON text; `details` carries the
 * result, the resource card and the card command for the host.
 *
 * @example
 * outcomeToToolResult({ result: { ok: true } }) // { content: [{ type: "text", text: '{"ok":true}' }], details: { result: { ok: true } } }
 */
export function outcomeToToolResult(outcome: CapabilityOutcome): AgentToolResult {
  const details: Record<string, unknown> = { result: outcome.result };
  if (outcome.resourceCard) details.resourceCard = outcome.resourceCard;
  if (outcome.cardCommand) details.cardCommand = outcome.cardCommand;
  return { content: [{ type: "text", text: JSON.stringify(outcome.result) }], details };
}

/** The wire shape of a failure (CAP-0). */
export interface CapabilityErrorPayload {
  error: { code: SteamharnessErrorCode; message: string; field?: string };
}

/**
 * The `{ error: { code, message, field? } }` payload of any thrown value; unknown faults become
 * `internal` without leaking their message.
 *
 * @example
 * errorPayload(new SteamharnessError("not_found", "no such key")) // { error: { code: "not_found", message: "no such key" } }
 */
export function errorPayload(error: unknown): CapabilityErrorPayload {
  if (isSteamharnessError(error)) return { error: error.toJSON() };
  return { error: { code: "internal", message: "the capability failed unexpectedly" } };
}
