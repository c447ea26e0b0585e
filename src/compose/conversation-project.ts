/** The library's conversation project loader: the application's, reading the machine's files (CONV-1, ARCH-9). */
import { openConversationProject, type LoadedAgentConversationProject } from "../app/conversation/conversation-project.js";
import { localTextFiles } from "../adapters/driven/system/text-files.js";

/**
 * Reads a conversation project folder: its `package.json`, then its `main` module (TypeScript
 * through tsx), whose default export must be a conversation executor. Runs project code.
 * `input_validation` for a folder without a readable `package.json`, a manifest that is not a
 * conversation project's, or a module that does not load or has no default export.
 *
 * @example
 * const project = await loadAgentConversationProject("./examples/assistant");
 * const node = createAgentNode(project.executor.agent);
 */
export function loadAgentConversationProject(directory: string): Promise<LoadedAgentConversationProject> {
  return openConversationProject(directory, localTextFiles);
}
