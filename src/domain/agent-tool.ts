/**
 * The native tool shape an agent runs (AG-5, CAP-1). Capability tools, the built-in coding tools
 * and host `extraTools` all have it, so one agent loop drives every tool the same way.
 */
import type { TSchema } from "@sinclair/typebox";

/** One content block of a tool result; tools speak text to the model. */
export interface AgentToolTextContent {
  type: "text";
  text: string;
}

/**
 * What a tool resolves. `content` goes to the model; `details` is structured data for the host
 * (resource cards, card commands, raw results) that never enters the model's message.
 */
export interface AgentToolResult {
  content: AgentToolTextContent[];
  details?: Record<string, unknown>;
}

/** Partial progress a long-running tool may report while it runs. */
export type AgentToolUpdateCallback = (partial: AgentToolResult) => void;

/**
 * A native agent tool. `name` is the stable tool id the host authorizes, approves and resumes by;
 * `parameters` is the JSON Schema (built with TypeBox) the model sees. Failure is a thrown
 * `SteamharnessError` (`input_validation`, `not_found`, `unavailable`, `approval_denied`, …);
 * `replay` says whether a call whose outcome is unknown after a crash may be redone (SES-4,
 * default `"never"`).
 */
export interface AgentTool<TParameters extends TSchema = TSchema> {
  name: string;
  label: string;
  description: string;
  parameters: TParameters;
  replay?: "safe" | "never";
  execute(
    toolCallId: string,
    params: unknown,
    signal?: AbortSignal,
    onUpdate?: AgentToolUpdateCallback,
  ): Promise<AgentToolResult>;
}

/**
 * A text-only tool result: `value` serialised as JSON (strings are sent as they are).
 *
 * @example
 * return textToolResult({ ok: true }, { resourceCard });
 */
export function textToolResult(value: unknown, details?: Record<string, unknown>): AgentToolResult {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return details === undefined ? { content: [{ type: "text", text }] } : { content: [{ type: "text", text }], details };
}
