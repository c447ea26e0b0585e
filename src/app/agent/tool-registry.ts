import { Value } from "@sinclair/typebox/value";
import type { AgentTool } from "../../domain/agent-tool.js";
import { BUILTIN_CODING_TOOLS, toolAccess, type AgentMode, type AgentPermissionPolicy, type AgentToolAccess } from "../../domain/agent/permission-policy.js";
import type { JsonObject } from "../../domain/json.js";
import type { ToolCatalogEntry } from "../../domain/node-context.js";
import type { ModelToolSpec } from "../../ports/model-provider.js";
import { createAskUserTool, createUpdatePlanTool } from "./session-tools.js";
import { describeSchemaError } from "../../domain/schema-errors.js";

/**
 * Who governs a tool: `policy` (the built-in coding tools, by `permissionPolicy`), `catalog`
 * (capability and host tools, by the host's tool catalog through the approval gate, CAP-3), or
 * `session` (ask_user, update_plan: the loop itself).
 */
export type AgentToolGovernance = "policy" | "catalog" | "session";

/** A tool offered in a run. */
export interface RegisteredAgentTool {
  tool: AgentTool;
  governance: AgentToolGovernance;
  /** For policy tools: run or ask. Catalog tools are decided by the gate. */
  access: Exclude<AgentToolAccess, "hidden">;
}

/** The tools of one run in one mode. */
export interface AgentToolRegistry {
  specs: ModelToolSpec[];
  get(name: string): RegisteredAgentTool | undefined;
  /** The tool catalog the approval gate uses: `context.toolCatalog` plus the agent's `extraToolCatalog`. */
  catalog: ToolCatalogEntry[];
}

/** Inputs of {@link buildToolRegistry}. */
export interface ToolRegistryOptions {
  mode: AgentMode;
  policy: AgentPermissionPolicy;
  coding: AgentTool[];
  extra: AgentTool[];
  catalog: ToolCatalogEntry[];
  /** Only these names are offered when given (ask_user always is). */
  only?: readonly string[];
  /** Session feature tools (tool_search, codemode: EXT-3, EXT-4), governed by the policy's access. */
  features?: ReadonlyArray<{ tool: AgentTool; access: "allow" | "ask" }>;
  /** Catalog tools a search loaded (EXT-3): governed by the catalog like extra tools; `only` does not apply. */
  loaded?: readonly AgentTool[];
}

// Session tools are stateless: one instance each, so their specs are computed once.
const UPDATE_PLAN = createUpdatePlanTool();
const ASK_USER = createAskUserTool();

const specs = new WeakMap<AgentTool, ModelToolSpec>();
const toSpec = (tool: AgentTool): ModelToolSpec => {
  let spec = specs.get(tool);
  if (!spec) {
    // A JSON round trip drops TypeBox's symbol keys: the model sees the plain JSON Schema.
    spec = { name: tool.name, description: tool.description, parameters: JSON.parse(JSON.stringify(tool.parameters)) as JsonObject };
    specs.set(tool, spec);
  }
  return spec;
};

/**
 * Assembles the tools the model is offered: built-ins by policy (AG-6), session tools, and extra
 * tools unless the catalog disables them (`enabled: false`). A later tool with a taken name is
 * ignored, so a host cannot shadow a built-in by accident.
 *
 * @example
 * const registry = buildToolRegistry({ mode: "build", policy: "ask", coding, extra, catalog });
 */
export function buildToolRegistry(options: ToolRegistryOptions): AgentToolRegistry {
  const tools = new Map<string, RegisteredAgentTool>();
  const offered = (name: string): boolean => name === "ask_user" || options.only === undefined || options.only.includes(name);
  const add = (tool: AgentTool, governance: AgentToolGovernance, access: AgentToolAccess): void => {
    if (access === "hidden" || tools.has(tool.name) || !offered(tool.name)) return;
    tools.set(tool.name, { tool, governance, access });
  };
  for (const tool of options.coding) {
    if ((BUILTIN_CODING_TOOLS as readonly string[]).includes(tool.name)) add(tool, "policy", toolAccess(options.policy, tool.name, options.mode));
  }
  add(UPDATE_PLAN, "session", toolAccess(options.policy, "update_plan", options.mode));
  add(ASK_USER, "session", "allow");
  for (const feature of options.features ?? []) add(feature.tool, "session", feature.access);
  for (const tool of options.extra) {
    const definition = options.catalog.find((entry) => entry.id === tool.name);
    add(tool, "catalog", definition?.enabled === false ? "hidden" : "allow");
  }
  for (const tool of options.loaded ?? []) {
    const definition = options.catalog.find((entry) => entry.id === tool.name);
    if (definition?.enabled === false || tools.has(tool.name)) continue;
    tools.set(tool.name, { tool, governance: "catalog", access: "allow" });
  }
  return {
    specs: [...tools.values()].map((entry) => toSpec(entry.tool)),
    get: (name) => tools.get(name),
    catalog: options.catalog,
  };
}

/**
 * Checks arguments against a tool's TypeBox schema; returns an error message or `null`. A schema
 * TypeBox cannot check (plain JSON Schema from a host) is left to the tool itself.
 *
 * @example
 * const problem = checkToolArguments(tool, args);
 */
export function checkToolArguments(tool: AgentTool, args: unknown): string | null {
  try {
    if (Value.Check(tool.parameters, args)) return null;
    const first = [...Value.Errors(tool.parameters, args)][0];
    return `invalid arguments for ${tool.name}${first ? ` at ${first.path || "/"}: ${describeSchemaError(first)}` : ""}`;
  } catch {
    return null;
  }
}
