/**
 * The chat's commands at the prompt (SES-11, CONV-2, DX-18): the banner's last line, `/help` and
 * the end of `chat --help` say the same.
 */
export const CHAT_COMMANDS = "/help lists these commands · /compact [instructions] compacts the conversation · /exit ends the chat · //text sends /text as a prompt · Ctrl-C cancels a turn (at the prompt, ends the chat)";

/** What a line typed at the prompt asks for. */
export type PromptLine = { kind: "empty" } | { kind: "exit" } | { kind: "help" } | { kind: "compact"; instructions: string } | { kind: "prompt"; text: string } | { kind: "unknown"; command: string };

/**
 * Reads one line typed at the chat prompt. A line starting with `/` is a command, never a prompt:
 * an unknown one (a typo of `/exit`) is refused instead of costing a model turn; `//` sends the
 * rest, starting with one `/`, as a prompt.
 *
 * @example
 * parsePromptLine("/compact keep the colour") // { kind: "compact", instructions: "keep the colour" }
 * parsePromptLine("/foo") // { kind: "unknown", command: "/foo" }
 */
export function parsePromptLine(typed: string): PromptLine {
  const line = typed.trim();
  if (line === "") return { kind: "empty" };
  if (line.startsWith("//")) return { kind: "prompt", text: line.slice(1) };
  if (!line.startsWith("/")) return { kind: "prompt", text: line };
  const [command = "", ...rest] = line.split(/\s+/);
  if (command === "/exit" || command === "/quit") return { kind: "exit" };
  if (command === "/help") return { kind: "help" };
  if (command === "/compact") return { kind: "compact", instructions: rest.join(" ") };
  return { kind: "unknown", command };
}

/**
 * The chat's answer to `/help`: one prompt command a line.
 *
 * @example
 * out.write(chatCommandsHelp()); // "/help lists these commands\n/compact …\n"
 */
export const chatCommandsHelp = (): string => `${CHAT_COMMANDS.split(" · ").join("\n")}\n`;
