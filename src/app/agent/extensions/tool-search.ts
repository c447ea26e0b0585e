import { Type } from "@sinclair/typebox";
import { textToolResult, type AgentTool } from "../../../domain/agent-tool.js";
import { buildToolIndex, type ToolIndex, type ToolIndexEntry } from "../../../domain/agent/tool-index.js";
import { SteamharnessError } from "../../../domain/errors.js";
import type { ToolCatalogEntry } from "../../../domain/node-context.js";
import type { AgentToolGroup } from "./types.js";

/** The name of the tool-search feature tool (AG-6: an explicit permission list must declare it). */
export const TOOL_SEARCH = "tool_search";

/** Tools one search loads unless `session.toolSearch.maxResults` says otherwise. */
const DEFAULT_TOOL_SEARCH_RESULTS = 3;

/**
 * The catalogs of one run (EXT-3): a BM25 index of their authorized tools, lazy connections, and
 * the tools found so far (callable from the next model request on).
 */
export interface RunCatalogs {
  readonly index: ToolIndex;
  /** Bumped whenever a tool is loaded: the run's tool registry is rebuilt then. */
  readonly version: number;
  /** Whether a catalog offers this (authorized) tool. */
  has(name: string): boolean;
  /** Loads tools by name, connecting their catalogs on first need; resolves the names loaded. */
  load(names: readonly string[]): Promise<string[]>;
  /** The tools loaded so far, in load order. */
  loaded(): AgentTool[];
  /** Which catalogs were connected (for tests and diagnostics). */
  connected(): string[];
  /** Closes the connected catalogs. */
  close(): Promise<void>;
}

/**
 * Whether a catalog tool is authorized by the host's tool catalog (CAP-3): its own entry, or
 * the catalog's entry `catalog:<name>`, which stands for every tool of that catalog. A disabled
 * entry hides the tool; a tool with neither entry is not offered at all.
 *
 * @example
 * catalogDefinition([{ id: "catalog:crm", autoApprove: true }], "crm", "crm_find_contact") // { id: "crm_find_contact", autoApprove: true }
 */
export function catalogDefinition(catalog: readonly ToolCatalogEntry[], catalogName: string, toolName: string): ToolCatalogEntry | null {
  const own = catalog.find((entry) => entry.id === toolName);
  const group = catalog.find((entry) => entry.id === `catalog:${catalogName}`);
  const found = own ?? (group ? { ...group, id: toolName } : null);
  return found && found.enabled !== false ? found : null;
}

/**
 * Opens the catalogs of a run. Nothing is connected here: a catalog's `connect()` runs when one
 * of its tools is first found or called.
 *
 * @example
 * const catalogs = openRunCatalogs([crm], context.toolCatalog);
 * await catalogs.load(catalogs.index.search("add a contact", 3).map((hit) => hit.entry.name));
 */
export function openRunCatalogs(catalogs: readonly AgentToolGroup[], definitions: readonly ToolCatalogEntry[]): RunCatalogs {
  const entries: ToolIndexEntry[] = [];
  const owner = new Map<string, AgentToolGroup>();
  for (const catalog of catalogs) {
    for (const entry of catalog.entries) {
      if (owner.has(entry.name) || !catalogDefinition(definitions, catalog.name, entry.name)) continue;
      owner.set(entry.name, catalog);
      entries.push({ name: entry.name, description: entry.description, catalog: catalog.name, ...(catalog.description ? { catalogDescription: catalog.description } : {}) });
    }
  }
  const index = buildToolIndex(entries);
  const connections = new Map<AgentToolGroup, Promise<Map<string, AgentTool>>>();
  const loaded = new Map<string, AgentTool>();
  let version = 0;
  const connect = (catalog: AgentToolGroup): Promise<Map<string, AgentTool>> => {
    let connection = connections.get(catalog);
    if (!connection) {
      connection = Promise.resolve()
        .then(() => catalog.connect())
        .then((tools) => new Map(tools.map((tool) => [tool.name, tool])))
        .catch((error: unknown) => {
          connections.delete(catalog);
          throw new SteamharnessError("unavailable", `connecting the tool catalog ${catalog.name} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        });
      connections.set(catalog, connection);
    }
    return connection;
  };
  return {
    index,
    get version() {
      return version;
    },
    has: (name) => owner.has(name),
    async load(names) {
      const added: string[] = [];
      for (const name of names) {
        if (loaded.has(name)) continue;
        const catalog = owner.get(name);
        if (!catalog) continue;
        const tool = (await connect(catalog)).get(name);
        if (!tool) continue;
        loaded.set(name, tool);
        added.push(name);
      }
      if (added.length > 0) version++;
      return added;
    },
    loaded: () => [...loaded.values()],
    connected: () => catalogs.filter((catalog) => connections.has(catalog)).map((catalog) => catalog.name),
    async close() {
      const open = [...connections.keys()];
      connections.clear();
      for (const catalog of open) await catalog.close?.();
    },
  };
}

// Only the query: how many schemas a search may add to every later request is the host's
// choice (`maxResults`), not the model's; a model that needs more searches again with other words.
const ToolSearchParams = Type.Object({
  query: Type.String({ minLength: 1, description: "The task, in a few words" }),
});

/**
 * The `tool_search` tool (EXT-3): ranks the catalogs' tools by BM25 over names and descriptions
 * and loads the best ones, which the model can call from its next request on, with their real
 * schemas. `onLoaded` records what was loaded in the session log (a resumed run restores it).
 * Safe to repeat: searching changes nothing outside the run.
 *
 * @example
 * const tool = createToolSearchTool(catalogs, { maxResults: 3 }, async (toolCallId, query, names) => record(names));
 */
export function createToolSearchTool(
  catalogs: RunCatalogs,
  options: { maxResults?: number },
  onLoaded: (toolCallId: string, query: string, names: string[]) => void | Promise<void>,
): AgentTool {
  const tool: AgentTool<typeof ToolSearchParams> = {
    name: TOOL_SEARCH,
    label: "Search tools",
    // Sent with every request of the run: kept short (the found tools bring their own schemas).
    description: `Find tools you do not see yet (${catalogs.index.size} more) by task; the best matches become callable next step.`,
    parameters: ToolSearchParams,
    replay: "safe",
    async execute(toolCallId, params) {
      const { query } = params as { query: string };
      const hits = catalogs.index.search(query, Math.max(1, options.maxResults ?? DEFAULT_TOOL_SEARCH_RESULTS));
      if (hits.length === 0) return textToolResult(`No tools match "${query}". Try other words.`, { toolSearch: { query, found: [] } });
      const found = hits.map((hit) => hit.entry.name);
      await catalogs.load(found);
      const available = new Set(catalogs.loaded().map((loaded) => loaded.name));
      const usable = found.filter((name) => available.has(name));
      await onLoaded(toolCallId, query, usable);
      // Names only, best first: each loaded tool's description and parameters arrive with its
      // schema in the next request, so repeating them here would only cost tokens on every later request.
      return textToolResult(`Loaded (best first): ${usable.join(", ")}.`, { toolSearch: { query, found: usable } });
    },
  };
  return tool as AgentTool;
}
