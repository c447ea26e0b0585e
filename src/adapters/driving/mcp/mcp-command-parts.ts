import type { SurfaceServices } from "../../../ports/surface-services.js";
import { addMcpHttpOptions, mcpHttpOptionsFrom, type McpHttpFlags } from "./mcp-http-options.js";
import type { ServeWorkflowOptions } from "./serve-workflow.js";
import type { ServeWorkflowHttpOptions } from "./serve-workflow-http.js";

// ARCH-9: what this surface brings to `steamharness mcp`. The CLI declares the shape it needs and
// the composition root hands this in, so neither surface imports the other. The servers load
// only when the command runs (`--help` and the stdio handshake stay fast).

/**
 * The MCP surface's part of the `mcp` command: its `--http` flags and, on demand, its servers;
 * `services.textFiles` reads `--auth-token-file` and `--oauth-scopes-config`.
 *
 * @example
 * registerMcpCommand(program, services, mcpCommandParts(services));
 */
export const mcpCommandParts = (services: SurfaceServices) => ({
  addHttpOptions: addMcpHttpOptions,
  async load() {
    const { parseMaxRunsPerWorker, parseWorkers, serveWorkflowOverStdio } = await import("./serve-workflow.js");
    return {
      parseWorkers,
      parseMaxRunsPerWorker,
      httpOptionsFrom: (flags: Record<string, unknown>) => mcpHttpOptionsFrom(flags as McpHttpFlags, services.textFiles),
      // The CLI builds the options from its flags; their shape is these servers' options.
      serveStdio: (options: Record<string, unknown>) => serveWorkflowOverStdio(options as unknown as ServeWorkflowOptions, services),
      serveHttp: async (options: Record<string, unknown>) => (await import("./serve-workflow-http.js")).serveWorkflowOverHttp(options as unknown as ServeWorkflowHttpOptions, services),
    };
  },
});
