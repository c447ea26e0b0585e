import type { HarnessRuntime } from "../../ports/runtime.js";
import type { AgentTool } from "../../domain/agent-tool.js";
import type { AgentMode, AgentPermissionPolicy } from "../../domain/agent/permission-policy.js";
import type { SessionEvent } from "../../domain/agent/session-events.js";
import type { NodeContext } from "../../domain/node-context.js";
import { buildToolRegistry, type AgentToolRegistry } from "./tool-registry.js";
import { openTurnExtensions, type ExtensionTurnView, type TurnExtensions } from "./extensions/turn-extensions.js";
import type { AgentSessionEnvironment, AgentToolGroup } from "./extensions/types.js";
import type { AgentOptions, AgentToolSet } from "./types.js";

/** What the tool setup of a run needs: the agent's options, the run's context and where it runs. */
export interface TurnToolsInput {
  options: AgentOptions;
  context: NodeContext;
  /** The built-in tools per workdir, kept by the agent across runs. */
  codingTools: Map<string, AgentTool[]>;
  runId: string;
  policy: AgentPermissionPolicy;
  /** The run's workdir (from its start), unless the session's environment says otherwise (EXT-5). */
  workdir: string;
  environment: AgentSessionEnvironment | undefined;
  committed: Map<string, SessionEvent>;
  /** The run, once it exists: what the extensions read and append through. */
  view: () => ExtensionTurnView;
}

/** The tools of one run: its extension layer and the registry of each mode. */
export interface TurnTools {
  extensions: TurnExtensions;
  /** The registry of a mode; rebuilt when the extensions loaded tools (EXT-3). */
  registryFor(mode: AgentMode): AgentToolRegistry;
  /** Closes the extensions, then the tools `createTools` made. */
  close(): Promise<void>;
}

/** The built-in tools for a workdir, kept per agent: the path guard resolves its roots once. */
function codingToolsFor(cache: Map<string, AgentTool[]>, runtime: HarnessRuntime, options: AgentOptions, workdir: string, shell: { env?: Record<string, string>; shell?: string } = {}): AgentTool[] {
  const key = JSON.stringify([workdir, options.allowedDirectories ?? [], options.bashTimeoutMs ?? null, options.grepTimeoutMs ?? null, shell.env ?? null, shell.shell ?? null]);
  let tools = cache.get(key);
  if (!tools) {
    tools = runtime.codingTools({
      workdir,
      ...(options.allowedDirectories ? { allowedDirectories: options.allowedDirectories } : {}),
      ...(options.bashTimeoutMs === undefined ? {} : { bashTimeoutMs: options.bashTimeoutMs }),
      ...(options.grepTimeoutMs === undefined ? {} : { grepTimeoutMs: options.grepTimeoutMs }),
      ...(shell.env === undefined ? {} : { env: shell.env }),
      ...(shell.shell === undefined ? {} : { shell: shell.shell }),
    });
    cache.set(key, tools);
  }
  return tools;
}

async function toolsOf(options: AgentOptions, context: NodeContext): Promise<{ tools: AgentTool[]; toolGroups: AgentToolGroup[]; close: () => Promise<void> }> {
  const created = options.createTools ? await options.createTools(context) : [];
  const set: AgentToolSet = Array.isArray(created) ? { tools: created } : created;
  return { tools: [...(options.extraTools ?? []), ...set.tools], toolGroups: set.toolGroups ?? [], close: async () => void (await set.close?.()) };
}

/**
 * Sets up the tools of a run: the built-in coding tools for its workdir, the host's tool catalog
 * with `extraToolCatalog`, the tools `createTools` makes, the session's extension layer (tool
 * search, code mode, hooks: EXT-2..EXT-4) and a registry per mode built from them (AG-6, CAP-3).
 *
 * @example
 * const tools = await openTurnTools({ options, context, codingTools: cache.codingTools, runId, policy: "ask", workdir, environment: undefined, committed, view: () => turn });
 */
export async function openTurnTools(input: TurnToolsInput): Promise<TurnTools> {
  const { options, context, runId, policy, environment } = input;
  const coding = codingToolsFor(
    input.codingTools,
    context.runtime,
    environment?.allowedDirectories ? { ...options, allowedDirectories: environment.allowedDirectories } : options,
    environment?.workdir ?? input.workdir,
    { ...(environment?.env ? { env: environment.env } : {}), ...(environment?.shell ? { shell: environment.shell } : {}) },
  );
  const catalog = [...context.toolCatalog, ...(options.extraToolCatalog ?? [])];
  // The tools' own context carries the same catalog the runtime approves against, so a tool
  // declared only in `extraToolCatalog` that asks the gate itself (CAP-11) is found there.
  const tools = await toolsOf(options, options.extraToolCatalog?.length ? { ...context, toolCatalog: catalog } : context);
  const extensions = await openTurnExtensions({ session: options.session, policy, toolGroups: tools.toolGroups, definitions: catalog, runId, committed: input.committed, codeSandbox: () => context.runtime.codeSandbox(), view: input.view }).catch(async (error: unknown) => {
    await tools.close();
    throw error;
  });
  const registries = new Map<string, AgentToolRegistry>();
  const registryFor = (forMode: AgentMode): AgentToolRegistry => {
    const key = `${forMode}:${extensions.version}`;
    let registry = registries.get(key);
    if (!registry) {
      registry = extensions.buildRegistry(forMode, (features, loaded, definitions) =>
        buildToolRegistry({ mode: forMode, policy, coding: coding.map((tool) => extensions.hooks.tool(tool, runId)), extra: tools.tools.map((tool) => extensions.hooks.tool(tool, runId)), catalog: [...catalog, ...definitions], features, loaded, ...(options.tools ? { only: options.tools } : {}) }),
      );
      registries.set(key, registry);
    }
    return registry;
  };
  return {
    extensions,
    registryFor,
    async close() {
      try {
        await extensions.close();
      } finally {
        await tools.close();
      }
    },
  };
}
