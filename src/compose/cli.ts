/**
 * The CLI surface as the `steamharness` bin starts it (src/cli.ts): entries reach the adapters
 * through the root. ARCH-9: the CLI hosts other surfaces' commands, so the list of commands is
 * wiring and lives here; no surface imports another.
 */
import { registerChatCommand } from "../adapters/driving/chat/chat-command.js";
import { registerAnswerCommand } from "../adapters/driving/cli/answer-command.js";
import { registerMcpCommand, registerRunCommand, registerStructureCommand } from "../adapters/driving/cli/commands.js";
import { registerConfigCommand } from "../adapters/driving/cli/config/config-command.js";
import { registerInitCommand } from "../adapters/driving/cli/init/init-command.js";
import { createProgram as createProgramWith, runCli as runCliWith, type RegisterCommand } from "../adapters/driving/cli/program.js";
import { registerRunsCommand } from "../adapters/driving/cli/runs-command.js";
import { registerServerCommands } from "../adapters/driving/config-server/server-command.js";
import { registerGatewayCommand } from "../adapters/driving/gateway/gateway-command.js";
import { mcpCommandParts } from "../adapters/driving/mcp/mcp-command-parts.js";
import { registerViewCommand } from "../adapters/driving/viewer/view-command.js";
import { readPackageManifest } from "../adapters/driven/system/package-manifest.js";
import { localTextFiles } from "../adapters/driven/system/text-files.js";

/** Every subcommand of `steamharness`, in help order. */
const COMMANDS: readonly RegisterCommand[] = [
  (program) => registerInitCommand(program, () => readPackageManifest()),
  registerStructureCommand,
  registerRunCommand,
  registerAnswerCommand,
  registerRunsCommand,
  (program) => registerMcpCommand(program, mcpCommandParts(localTextFiles)),
  // The chat serves its configuration to the project through a host bridge (loaded on use).
  (program) => registerChatCommand(program, { hostBridge: async (options) => (await import("../adapters/driving/host-bridge-server/host-bridge-server.js")).startHostBridgeServer(options) }),
  registerGatewayCommand,
  (program) => registerConfigCommand(program, localTextFiles),
  registerViewCommand,
  (program) => registerServerCommands(program, localTextFiles),
];

/**
 * The whole `steamharness` program (what `--help` lists).
 *
 * @example
 * createProgram().commands.map((command) => command.name()); // ["init", "structure", "run", …]
 */
export function createProgram(): ReturnType<typeof createProgramWith> {
  return createProgramWith(COMMANDS, readPackageManifest()?.version ?? "0.0.0");
}

/**
 * Runs the `steamharness` command line; resolves `true` when it ended on a fatal error.
 *
 * @example
 * if (await runCli(process.argv)) process.exit();
 */
export function runCli(argv: readonly string[]): Promise<boolean> {
  return runCliWith(argv, COMMANDS, readPackageManifest()?.version ?? "0.0.0");
}
