import type { AgentTool } from "../../../domain/agent-tool.js";
import { agentItemIdPrefix, nestedToolCallId, runEventId } from "../../../domain/agent/ids.js";
import { toolAccess, type AgentMode, type AgentPermissionPolicy } from "../../../domain/agent/permission-policy.js";
import type { SessionEvent, SessionEventInput } from "../../../domain/agent/session-events.js";
import type { JsonObject, JsonValue } from "../../../domain/json.js";
import type { NodeContext, ToolCatalogEntry } from "../../../domain/node-context.js";
import type { OutputItemStreamChunk } from "../../../domain/output-items.js";
import { createOutputItemChunk, outputChunk } from "../../../domain/output-stream.js";
import type { CodeSandbox } from "../../../ports/code-sandbox.js";
import type { ModelToolCallBlock, ModelToolSpec } from "../../../ports/model-provider.js";
import { CODEMODE, createCodeModeTool, type NestedOutcome } from "./code-mode.js";
import { createRunHooks, type RunHooks } from "./hooks.js";
import { catalogDefinition, createToolSearchTool, openRunCatalogs, TOOL_SEARCH, type RunCatalogs } from "./tool-search.js";
import type { AgentSessionOptions, AgentToolGroup } from "./types.js";

/** What the extensions see of a run (a narrow view of the agent's turn, read when needed). */
export interface ExtensionTurnView {
  runId: string;
  context: NodeContext;
  committed: Map<string, SessionEvent>;
  append(events: SessionEventInput[]): Promise<void>;
  defer(events: SessionEventInput[]): void;
}

/** A session feature tool in the registry: governed by the permission policy (AG-6). */
export interface FeatureTool {
  tool: AgentTool;
  access: "allow" | "ask";
}

/** Builds a registry from the feature tools and loaded catalog tools (the agent's `buildToolRegistry`). */
export type RegistryBuilder<R> = (features: FeatureTool[], loaded: AgentTool[], extraDefinitions: ToolCatalogEntry[]) => R;

/** Runs a tool call through the run's approval chain (the agent loop's tool step, without its message). */
export type ToolCallRunner = (call: ModelToolCallBlock) => Promise<NestedOutcome & { details?: JsonValue }>;

/** The extension layer of one run (EXT-3, EXT-4). */
export interface TurnExtensions {
  /** Changes whenever the registry must be rebuilt (a tool was loaded). */
  readonly version: number;
  /** Builds the registry of a mode with the feature tools and the loaded catalog tools. */
  buildRegistry<R extends { specs: ModelToolSpec[]; get(name: string): { governance: string } | undefined }>(mode: AgentMode, build: RegistryBuilder<R>): R;
  /** Loads a catalog tool the model called without a search; true when the registry changed. */
  loadCalled(name: string): Promise<boolean>;
  /** Where nested codemode calls run: set by the agent loop once the turn exists. */
  setToolCallRunner(runner: ToolCallRunner): void;
  /** Rows of a codemode call's nested calls (after its own row), rebuilt from the log. */
  nestedRows(parentToolCallId: string): OutputItemStreamChunk[];
  /** The catalogs (tests, diagnostics). */
  readonly catalogs: RunCatalogs | null;
  /** The hooks of `session.registry` (EXT-2). */
  readonly hooks: RunHooks;
  close(): Promise<void>;
}

const featureAccess = (policy: AgentPermissionPolicy, name: string, mode: AgentMode): "allow" | "ask" | "hidden" =>
  // Presets allow the features the session enables; an explicit list must declare them (AG-6).
  typeof policy === "string" ? "allow" : toolAccess(policy, name, mode);

const stable = (value: unknown): string => JSON.stringify(value, (_key, inner: unknown) => (inner && typeof inner === "object" && !Array.isArray(inner) ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b))) : inner));

/**
 * Opens the extension layer of a run: the catalogs of `createTools` behind `tool_search`, the
 * `codemode` tool, and — when resuming — the tools the run's log says a search loaded (EXT-3:
 * a resumed run keeps them callable).
 *
 * @example
 * const extensions = await openTurnExtensions({ session, policy, toolGroups, definitions, runId, committed, codeSandbox, view: () => turn });
 */
export async function openTurnExtensions(input: {
  session: AgentSessionOptions | undefined;
  policy: AgentPermissionPolicy;
  toolGroups: readonly AgentToolGroup[];
  definitions: readonly ToolCatalogEntry[];
  runId: string;
  committed: Map<string, SessionEvent>;
  /** Loads the code-mode sandbox (the run's runtime, ARCH-1). */
  codeSandbox: () => Promise<CodeSandbox>;
  view: () => ExtensionTurnView;
}): Promise<TurnExtensions> {
  const { session, policy, view } = input;
  const catalogs = session?.toolSearch && input.toolGroups.length > 0 ? openRunCatalogs(input.toolGroups, input.definitions) : null;
  if (catalogs) {
    // EXT-3 durability: what earlier searches of this run loaded is callable again after a resume.
    const names: string[] = [];
    for (const event of input.committed.values()) {
      if (event.type === "extension" && event.payload.feature === "tool_search") names.push(...((event.payload.data.loaded as string[] | undefined) ?? []));
    }
    if (names.length > 0) await catalogs.load(names);
  }
  let runner: ToolCallRunner | null = null;
  const hooks = createRunHooks(session?.registry?.hooks ?? []);
  const hooked = (tool: AgentTool): AgentTool => hooks.tool(tool, input.runId);

  const recordLoaded = (toolCallId: string, query: string, loaded: string[]): void => {
    const { runId } = view();
    // Held with the search's own (deferred, safe) result: lost together, redone together.
    view().defer([{ eventId: runEventId(runId, "tool", toolCallId, "loaded"), runId, type: "extension", payload: { feature: "tool_search", data: { query, loaded } } }]);
  };

  /** The n-th nested call of a codemode snippet, recorded durably: intent before, result after. */
  const runNested = async (parentToolCallId: string, index: number, name: string, args: JsonObject): Promise<NestedOutcome> => {
    const turn = view();
    const id = nestedToolCallId(parentToolCallId, index);
    const resultId = runEventId(turn.runId, "tool", id, "nested");
    const intentId = runEventId(turn.runId, "tool", id, "nested-intent");
    const recorded = turn.committed.get(resultId);
    const intent = turn.committed.get(intentId);
    const previous = recorded ?? intent;
    if (previous?.type === "extension" && (previous.payload.data.name !== name || stable(previous.payload.data.arguments) !== stable(args))) {
      // The snippet took another path than before (it is not deterministic): never run the
      // recorded call under another identity, never silently skip it.
      return { isError: true, text: `[codemode] nested call #${index} is ${name}(${JSON.stringify(args)}) but the recorded call #${index} was ${String(previous.payload.data.name)}; the snippet must make the same calls in the same order when it is resumed` };
    }
    if (recorded?.type === "extension") return { isError: recorded.payload.data.isError === true, text: String(recorded.payload.data.text ?? "") };
    if (!intent) await turn.append([{ eventId: intentId, runId: turn.runId, type: "extension", payload: { feature: "codemode", data: { kind: "intent", parentToolCallId, index, name, arguments: args } } }]);
    if (!runner) throw new Error("codemode: no tool-call runner bound");
    const outcome = await runner({ type: "toolCall", id, name, arguments: args });
    await turn.append([{ eventId: resultId, runId: turn.runId, type: "extension", payload: { feature: "codemode", data: { kind: "result", parentToolCallId, index, name, arguments: args, isError: outcome.isError, text: outcome.text, details: outcome.details ?? null } } }]);
    return outcome;
  };

  return {
    get version() {
      return catalogs?.version ?? 0;
    },
    catalogs,
    hooks,
    buildRegistry(mode, build) {
      const features: FeatureTool[] = [];
      if (catalogs) {
        const access = featureAccess(policy, TOOL_SEARCH, mode);
        if (access !== "hidden") features.push({ tool: hooked(createToolSearchTool(catalogs, session?.toolSearch ?? {}, recordLoaded)), access });
      }
      const loaded = (catalogs?.loaded() ?? []).map(hooked);
      const definitions = catalogs ? loaded.flatMap((tool) => {
        const own = input.definitions.some((entry) => entry.id === tool.name);
        const catalog = input.toolGroups.find((entry) => entry.entries.some((item) => item.name === tool.name));
        const derived = !own && catalog ? catalogDefinition(input.definitions, catalog.name, tool.name) : null;
        return derived ? [derived] : [];
      }) : [];
      const base = build(features, loaded, definitions);
      const codeAccess = session?.codeMode ? featureAccess(policy, CODEMODE, mode) : "hidden";
      if (codeAccess === "hidden") return base;
      // The snippet may call what the model may call directly, except the session's own tools.
      const callable = base.specs.filter((spec) => base.get(spec.name)?.governance !== "session" && spec.name !== TOOL_SEARCH);
      return build([...features, { tool: hooked(createCodeModeTool(callable, session!.codeMode!, runNested, input.codeSandbox)), access: codeAccess }], loaded, definitions);
    },
    async loadCalled(name) {
      if (!catalogs?.has(name)) return false;
      return (await catalogs.load([name])).length > 0;
    },
    setToolCallRunner(next) {
      runner = next;
    },
    nestedRows(parentToolCallId) {
      const turn = view();
      const prefix = agentItemIdPrefix(turn.runId);
      const chunks: OutputItemStreamChunk[] = [];
      for (const event of turn.committed.values()) {
        if (event.type !== "extension" || event.payload.feature !== "codemode") continue;
        const data = event.payload.data;
        if (data.kind !== "result" || data.parentToolCallId !== parentToolCallId) continue;
        const id = nestedToolCallId(parentToolCallId, Number(data.index));
        const rowId = `${prefix}nested:${id}`;
        const content: JsonObject = { tool: String(data.name), toolCallId: id, parentToolCallId, arguments: data.arguments ?? {}, status: data.isError ? "failed" : "completed", result: String(data.text ?? "") };
        chunks.push(createOutputItemChunk({ id: rowId, content, display: { type: "markdown", collapsed: true }, metadata: { kind: "agent-part", partType: "tool", tool: String(data.name), parentToolCallId } }), outputChunk.done(rowId));
      }
      return chunks;
    },
    async close() {
      await catalogs?.close();
    },
  };
}
