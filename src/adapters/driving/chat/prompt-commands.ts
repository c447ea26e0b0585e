/**
 * The chat's commands at the prompt (SES-11, CONV-2): the banner's last line and the end of
 * `chat --help` say the same.
 */
export const CHAT_COMMANDS = "/compact [instructions] compacts the conversation · /exit ends the chat · Ctrl-C cancels a turn (at the prompt, ends the chat)";
