import type { Command } from "commander";
import type { SurfaceServices } from "../../../ports/surface-services.js";
import type { StartHostBridge } from "./chat-session.js";
import { CHAT_COMMANDS } from "./prompt-commands.js";

/**
 * Registers `steamharness chat <project-dir> [--conversation <id> [--new]] [--data-dir <dir>]
 * [--auth-dir <dir>] [--agent-store-dir <dir>]` (CONV-2).
 *
 * @example
 * registerChatCommand(program, services, { hostBridge: startHostBridge });
 */
export function registerChatCommand(program: Command, services: SurfaceServices, parts: { hostBridge?: StartHostBridge } = {}): void {
  program
    .command("chat")
    .description("talk to a conversation project's agent in the terminal (approvals and questions at the prompt)")
    .argument("<project-dir>", "a conversation project folder (package.json with projectType \"conversation\")")
    .option("--conversation <id>", "continue this conversation (its id is printed when a chat starts); an unknown id is refused")
    .option("--new", "with --conversation: start that conversation (refused when it exists)")
    .option("--data-dir <dir>", "root of local data (default ~/.steamharness)")
    .option("--auth-dir <dir>", "where the configuration server login (workflow-auth.json) is read (default <data-dir>)")
    .option("--agent-store-dir <dir>", "where the conversation's sessions are kept (default <project-dir>/.workflow/agents)")
    .addHelpText(
      "after",
      [
        "",
        "At the prompt:",
        `  ${CHAT_COMMANDS.split(" · ").join("\n  ")}`,
        "",
        "The model: the project's own (models, or provider + model + apiKey), else the first entry of",
        "STEAMHARNESS_AGENT_MODELS in the project's configuration (steamharness config), whose key the",
        "chat reads from the environment variable the entry's apiKeyRef names. The banner names it.",
      ].join("\n"),
    )
    .action(async (projectDir: string, flags: { conversation?: string; new?: boolean; dataDir?: string; authDir?: string; agentStoreDir?: string }) => {
      // Loaded on use: `--help` and `mcp` do not pay for the agent runtime.
      const { runChat } = await import("./chat-session.js");
      await runChat({
        projectDir,
        ...(parts.hostBridge ? { hostBridge: parts.hostBridge } : {}),
        ...(flags.conversation === undefined ? {} : { conversationId: flags.conversation }),
        ...(flags.new ? { newConversation: true } : {}),
        ...(flags.dataDir === undefined ? {} : { dataDir: flags.dataDir }),
        ...(flags.authDir === undefined ? {} : { authDir: flags.authDir }),
        ...(flags.agentStoreDir === undefined ? {} : { agentStoreDir: flags.agentStoreDir }),
      }, services);
    });
}
