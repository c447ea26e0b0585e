/**
 * The CLI as the `steamharness` bin starts it (src/cli.ts): the one place its process's services
 * are built (ARCH-6) and the list of its commands (ARCH-9: the CLI hosts other surfaces'
 * commands, so the list is wiring and lives here; no surface imports another).
 */
import { registerChatCommand } from "../adapters/driving/chat/chat-command.js";
import { registerAnswerCommand } from "../adapters/driving/cli/answer-command.js";
import { registerAuditCommand } from "../adapters/driving/cli/audit-command.js";
import { registerMcpCommand, registerRunCommand, registerStructureCommand } from "../adapters/driving/cli/commands.js";
import { registerConfigCommand } from "../adapters/driving/cli/config/config-command.js";
import { registerInitCommand } from "../adapters/driving/cli/init/init-command.js";
import { createProgram as createProgramWith, runCli as runCliWith, type RegisterCommand } from "../adapters/driving/cli/program.js";
import { registerRunsCommand } from "../adapters/driving/cli/runs-command.js";
import { registerTimeTravelCommands } from "../adapters/driving/cli/time-travel-commands.js";
import { registerServerCommands } from "../adapters/driving/config-server/server-command.js";
import { registerGatewayCommand } from "../adapters/driving/gateway/gateway-command.js";
import { mcpCommandParts } from "../adapters/driving/mcp/mcp-command-parts.js";
import { registerViewCommand } from "../adapters/driving/viewer/view-command.js";
import { registerForkCommand } from "../adapters/driving/viewer/fork-command.js";
import { readPackageManifest } from "../adapters/driven/system/package-manifest.js";
import type { SurfaceServices } from "../ports/surface-services.js";
import { createSurfaceServices } from "./surface-services.js";

/** Every subcommand of `steamharness`, in help order, on the process's services. */
function commandsOf(services: SurfaceServices): readonly RegisterCommand[] {
  return [
    (program) => registerInitCommand(program, () => readPackageManifest(), services.textFiles),
    (program) => registerStructureCommand(program, services),
    (program) => registerRunCommand(program, services),
    (program) => registerAnswerCommand(program, services),
    (program) => registerRunsCommand(program, services),
    (program) => registerMcpCommand(program, services, mcpCommandParts(services)),
    // The chat serves its configuration to the project through a host bridge (loaded on use).
    (program) => registerChatCommand(program, services, { hostBridge: async (options) => (await import("../adapters/driving/host-bridge-server/host-bridge-server.js")).startHostBridgeServer(options) }),
    (program) => registerGatewayCommand(program, services),
    (program) => registerConfigCommand(program, services),
    (program) => registerViewCommand(program, services),
    (program) => registerForkCommand(program, services),
    (program) => registerTimeTravelCommands(program, services),
    (program) => registerServerCommands(program, services),
    (program) => registerAuditCommand(program, services),
  ];
}

const version = (): string => readPackageManifest()?.version ?? "0.0.0";

/**
 * The whole `steamharness` program (what `--help` lists) on `services` (default: this process's).
 *
 * @example
 * createProgram().commands.map((command) => command.name()); // ["init", "structure", "run", …]
 */
export function createProgram(services: SurfaceServices = createSurfaceServices(process.env)): ReturnType<typeof createProgramWith> {
  return createProgramWith(commandsOf(services), version());
}

/**
 * Runs the `steamharness` command line with this process's services; resolves `true` when it ended on a fatal error.
 *
 * @example
 * if (await runCli(process.argv)) process.exit();
 */
export function runCli(argv: readonly string[]): Promise<boolean> {
  return runCliWith(argv, commandsOf(createSurfaceServices(process.env)), version());
}
