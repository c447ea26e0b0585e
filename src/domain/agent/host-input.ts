import type { JsonValue } from "../json.js";
import type { ModelMessage } from "../../ports/model-provider.js";

type UserMessage = Extract<ModelMessage, { role: "user" }>;

/**
 * The text the model is shown for a run's `hostInput` (SES-6): a string as given, anything else
 * as indented JSON, fenced in a `<host-input>` block so the model can tell it from the prompt.
 *
 * @example
 * hostInputText({ instructions: "Answer in French." }) // "<host-input>\n{\n  \"instructions\": …\n}\n</host-input>"
 */
export function hostInputText(hostInput: JsonValue): string {
  const body = typeof hostInput === "string" ? hostInput : JSON.stringify(hostInput, null, 2);
  return `<host-input>\n${body}\n</host-input>`;
}

/**
 * The user message a run sends the model: the prompt as recorded in the session, preceded — when
 * the run carries `hostInput` — by the host input as its own text block. Only the recorded prompt
 * is ever written to the session log, so host input reaches the model of this run (and its
 * resumptions, which bring the same input) but never the conversation history (SES-6).
 *
 * @example
 * promptForModel({ role: "user", content: "hi" }, { channel: "gateway" })
 * // { role: "user", content: [{ type: "text", text: "<host-input>…" }, { type: "text", text: "hi" }] }
 */
export function promptForModel(recorded: UserMessage, hostInput: JsonValue | undefined): UserMessage {
  if (hostInput === undefined) return recorded;
  const prompt = typeof recorded.content === "string" ? [{ type: "text" as const, text: recorded.content }] : recorded.content;
  return { role: "user", content: [{ type: "text", text: hostInputText(hostInput) }, ...prompt] };
}
