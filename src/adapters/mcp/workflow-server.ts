import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { isSteamharnessError } from "../../domain/errors.js";
import { workflowServerName, type WorkflowManifest } from "../../domain/workflow/project-manifest.js";
import { precheckWorkflowHost } from "../workflow/host-options.js";
import type { WorkflowHost, WorkflowHostOptions } from "../workflow/workflow-host.js";
import { createElicitationHandlers } from "./workflow-elicitation.js";
import { invalidParams, toToolResult } from "./workflow-result.js";

/** How often a running call reports progress to a client that asked for it. */
export const PROGRESS_INTERVAL_MS = 2000;

/**
 * Builds the low-level MCP `Server` of a workflow project: `workflow-<id>`, a tool catalog that
 * is fixed for the connection (computed once), arguments validated against the published
 * schema (malformed → JSON-RPC InvalidParams), every call in its own worker, form elicitation
 * for runs that wait, and results as MCP-7 prescribes. `host` may still be opening: requests
 * wait for it, so the handshake does not.
 *
 * @example
 * const server = createWorkflowMcpServer(manifest, host);
 * await server.connect(new StdioServerTransport());
 */
export function createWorkflowMcpServer(manifest: WorkflowManifest, host: WorkflowHost | Promise<WorkflowHost>): Server {
  const server = new Server(
    { name: workflowServerName(manifest.id), version: manifest.version ?? "0.0.0", ...(manifest.name ? { title: manifest.name } : {}) },
    { capabilities: { tools: { listChanged: false } } },
  );
  let tools: Promise<Tool[]> | undefined;
  // TypeBox loads with the catalog, after the handshake.
  const catalog = () =>
    (tools ??= Promise.all([Promise.resolve(host).then((opened) => opened.structure()), import("./workflow-tools.js")]).then(([structure, { workflowTools }]) =>
      workflowTools(structure),
    ));

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await catalog() }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const opened = await host;
    await catalog();
    const entrypoint = (await opened.structure()).entrypoints.find((entry) => entry.id === request.params.name);
    if (!entrypoint) throw invalidParams(`unknown tool: ${request.params.name}`);
    let prepared;
    try {
      prepared = await opened.prepare(entrypoint, request.params.arguments ?? {});
    } catch (error) {
      if (isSteamharnessError(error, "input_validation")) throw invalidParams(error.message);
      throw error;
    }
    // A run may wait minutes for a person: when the client asked for progress, a heartbeat lets
    // it keep the call alive (`resetTimeoutOnProgress`) instead of timing out mid-form.
    const progressToken = request.params._meta?.progressToken;
    let beats = 0;
    const heartbeat =
      progressToken === undefined
        ? undefined
        : setInterval(() => {
            beats += 1;
            const params = { progressToken, progress: beats, message: "the workflow run is in progress" };
            extra.sendNotification({ method: "notifications/progress", params }).catch(() => undefined);
          }, PROGRESS_INTERVAL_MS);
    try {
      const report = await opened.run(entrypoint, prepared, createElicitationHandlers(server, { signal: extra.signal }), extra.signal);
      return toToolResult(report, entrypoint, opened.secrets);
    } finally {
      if (heartbeat) clearInterval(heartbeat);
    }
  });
  return server;
}

/** Options of {@link serveWorkflowOverStdio}. */
export type ServeWorkflowOptions = Omit<WorkflowHostOptions, "output" | "prechecked">;

/**
 * `steamharness mcp`: serves a workflow project over stdio until stdin closes. Stdout carries
 * only JSON-RPC: the process's own console output is sent to stderr, and worker output is
 * forwarded to stderr. The manifest, data dirs and related projects are checked before the
 * transport opens (errors exit at once); the host and its warm worker start right after the
 * handshake, so `initialize` costs little more than a bare SDK server.
 *
 * @example
 * await serveWorkflowOverStdio({ projectDir: "/abs/project", warmWorkers: 1 });
 */
export async function serveWorkflowOverStdio(options: ServeWorkflowOptions): Promise<void> {
  for (const method of ["log", "info", "debug", "warn"] as const) console[method] = (...args: unknown[]) => console.error(...args);
  const prechecked = await precheckWorkflowHost(options);
  let resolveHost!: (host: WorkflowHost) => void;
  let rejectHost!: (error: unknown) => void;
  const host = new Promise<WorkflowHost>((resolvePromise, reject) => ((resolveHost = resolvePromise), (rejectHost = reject)));
  host.catch(() => undefined);
  const server = createWorkflowMcpServer(prechecked.location.manifest, host);
  let closing = false;
  const shutdown = (code = 0) => {
    if (closing) return;
    closing = true;
    void host
      .then((opened) => opened.close(), () => undefined)
      .finally(() => process.exit(code));
  };
  process.stdin.once("end", () => shutdown());
  process.once("SIGTERM", () => shutdown());
  process.once("SIGINT", () => shutdown());
  server.onclose = () => shutdown();
  await server.connect(new StdioServerTransport());
  try {
    const { createWorkflowHost } = await import("../workflow/workflow-host.js");
    const opened = await createWorkflowHost({ warmWorkers: 1, ...options, prechecked, output: process.stderr });
    resolveHost(opened);
    await opened.structure();
  } catch (error) {
    rejectHost(error);
    process.stderr.write(`[steamharness] ${(error as Error)?.message ?? String(error)}\n`);
    shutdown(1);
  }
}
