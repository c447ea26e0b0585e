import type { Tool } from "@modelcontextprotocol/server";
import { entrypointInputSchema, toJsonSchema } from "../../../domain/workflow/param-schema.js";
import type { StructureReport } from "../../../domain/workflow/workflow-definition.js";

/**
 * The MCP tools of a workflow (MCP-1, MCP-3): one per entrypoint, named by its id, with its
 * title, description and input schema: its declared `inputSchema`, or the one built from its
 * static params.
 *
 * @example
 * workflowTools(await host.structure()).map((tool) => tool.name) // ["summarize"]
 */
export function workflowTools(structure: StructureReport): Tool[] {
  return structure.entrypoints.map((entry) => ({
    name: entry.id,
    title: entry.title,
    description: entry.description || entry.title,
    // A declared JSON Schema 2020-12 input is published as declared (SEP-1613/SEP-2106 keep its keywords).
    inputSchema: (entry.inputSchema ?? toJsonSchema(entrypointInputSchema(entry.params))) as Tool["inputSchema"],
  }));
}
