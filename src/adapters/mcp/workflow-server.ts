import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { isSteamharnessError } from "../../domain/errors.js";
import { entrypointInputSchema, toJsonSchema } from "../../domain/workflow/param-schema.js";
import { workflowServerName } from "../../domain/workflow/project-manifest.js";
import type { StructureReport } from "../../domain/workflow/workflow-definition.js";
import { createWorkflowHost, type WorkflowHost, type WorkflowHostOptions } from "../workflow/workflow-host.js";
import { createElicitationHandlers } from "./workflow-elicitation.js";
import { toToolResult } from "./workflow-result.js";

/**
 * The MCP tools of a workflow (MCP-1, MCP-3): one per entrypoint, named by its id, with its
 * title, description and the input schema built from its static params.
 *
 * @example
 * workflowTools(await host.structure()).map((tool) => tool.name) // ["summarize"]
 */
export function workflowTools(structure: StructureReport): Tool[] {
  return structure.entrypoints.map((entry) => ({
    name: entry.id,
    title: entry.title,
    description: entry.description || entry.title,
    inputSchema: toJsonSchema(entrypointInputSchema(entry.params)) as Tool["inputSchema"],
  }));
}

/**
 * Builds the low-level MCP `Server` of a workflow project: `workflow-<id>`, a tool catalog that
 * is fixed for the connection (computed once at start), arguments validated against the
 * published schema (malformed → JSON-RPC InvalidParams), every call in its own worker, form
 * elicitation for runs that wait, and results as MCP-7 prescribes.
 *
 * @example
 * const server = createWorkflowMcpServer(host);
 * await server.connect(new StdioServerTransport());
 */
export function createWorkflowMcpServer(host: WorkflowHost): Server {
  const { manifest } = host.location;
  const server = new Server(
    { name: workflowServerName(manifest.id), version: manifest.version ?? "0.0.0", ...(manifest.name ? { title: manifest.name } : {}) },
    { capabilities: { tools: { listChanged: false } } },
  );
  let tools: Promise<Tool[]> | undefined;
  const catalog = () => (tools ??= host.structure().then(workflowTools));

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await catalog() }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    await catalog();
    const entrypoint = (await host.structure()).entrypoints.find((entry) => entry.id === request.params.name);
    if (!entrypoint) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${request.params.name}`);
    let prepared;
    try {
      prepared = await host.prepare(entrypoint, request.params.arguments ?? {});
    } catch (error) {
      if (isSteamharnessError(error, "input_validation")) throw new McpError(ErrorCode.InvalidParams, error.message);
      throw error;
    }
    const report = await host.run(entrypoint, prepared, createElicitationHandlers(server, { signal: extra.signal }), extra.signal);
    return toToolResult(report, entrypoint, host.secrets);
  });
  return server;
}

/** Options of {@link serveWorkflowOverStdio}. */
export type ServeWorkflowOptions = Omit<WorkflowHostOptions, "output">;

/**
 * `steamharness mcp`: serves a workflow project over stdio until stdin closes. Stdout carries
 * only JSON-RPC: the process's own console output is sent to stderr, and worker output is
 * forwarded to stderr. The project is checked (manifest) before the transport opens, and the
 * warm worker loads the project in parallel with the handshake.
 *
 * @example
 * await serveWorkflowOverStdio({ projectDir: "/abs/project", warmWorkers: 1 });
 */
export async function serveWorkflowOverStdio(options: ServeWorkflowOptions): Promise<void> {
  for (const method of ["log", "info", "debug", "warn"] as const) console[method] = (...args: unknown[]) => console.error(...args);
  const host = await createWorkflowHost({ warmWorkers: 1, ...options, output: process.stderr });
  const server = createWorkflowMcpServer(host);
  host.structure().catch((error: unknown) => {
    process.stderr.write(`[steamharness] ${(error as Error).message}\n`);
    void host.close().finally(() => process.exit(1));
  });
  let closing = false;
  const shutdown = () => {
    if (closing) return;
    closing = true;
    void host.close().finally(() => process.exit(0));
  };
  process.stdin.once("end", shutdown);
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);
  server.onclose = shutdown;
  await server.connect(new StdioServerTransport());
}
