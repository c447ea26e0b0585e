import type { AgentTool } from "../domain/agent-tool.js";
import type { AgentApiKind } from "../domain/agent/model-selection.js";
import type { CapabilityApprove, CapabilityRuntime, CapabilitySpec } from "../domain/capabilities/capability-spec.js";
import type { HostBridgeClient, HostBridgeConfig } from "../domain/capabilities/host-bridge.js";
import type { ModelPrice } from "../domain/budget/model-price.js";
import type { BudgetLedger } from "./budget-ledger.js";
import type { Clock } from "./clock.js";
import type { CodeSandbox } from "./code-sandbox.js";
import type { IdSource } from "./id-source.js";
import type { KvNamespace, KvStore } from "./kv-store.js";
import type { McpServerHandle } from "./mcp-server.js";
import type { ModelProvider } from "./model-provider.js";
import type { SessionBackend } from "./session-backend.js";
import type { Storage } from "./storage.js";
import type { Telemetry } from "./telemetry.js";
import type { TokenUsageRecorder } from "./token-usage.js";
import type { ToolPermissions } from "./tool-permissions.js";
import type { UserInput } from "./user-input.js";

/** One model endpoint the runtime connects to (a configured entry or a node's explicit endpoint). Keys are always explicit. */
export interface RuntimeModelEndpoint {
  /** The wire protocol of the endpoint. */
  apiKind: AgentApiKind;
  /**
   * The endpoint, e.g. `https://api.openai.com/v1` (openai-*) or `https://api.anthropic.com`
   * (anthropic-messages; the SDK appends `/v1/messages`).
   */
  baseUrl: string;
  /** The API key, sent as `Authorization: Bearer` (OpenAI) or `x-api-key` (Anthropic). Required. */
  apiKey: string;
  /** The model id sent to the endpoint. */
  model: string;
  /** Provider name for the descriptor and usage records. Default: `openai` or `anthropic` by `apiKind`. */
  provider?: string;
  /** Context window in tokens (default 128000). */
  contextWindow?: number;
  /** Output token limit per response (default 16384). */
  maxTokens?: number;
  /**
   * Whether the model reasons (default false). Only then is `ModelRequest.effort` sent; a
   * request without `effort` sends no reasoning setting to OpenAI APIs (the model's default)
   * and turns Anthropic extended thinking off.
   */
  reasoning?: boolean;
  /** Prices in USD per million tokens; default the provider library's metadata for the model (BUD-2). */
  price?: ModelPrice;
  /**
   * Whether the model supports the API's native web search (default false; OUT-6). Then a
   * request with `webSearch: true` carries the OpenAI Responses `web_search` tool or the
   * Anthropic `web_search_20250305` server tool, and the searches stream as `web_search` events.
   * OpenAI Chat Completions has no native search: there it stays off.
   */
  webSearch?: boolean;
}

/** Options of the built-in coding tools (AG-6): a workdir and the folders beside it the tools may use. */
export interface RuntimeCodingToolsOptions {
  workdir: string;
  allowedDirectories?: readonly string[];
  /** bash timeout in ms (default 120000). */
  bashTimeoutMs?: number;
  /** grep's hard deadline in ms (default 30000, SEC-3). */
  grepTimeoutMs?: number;
  /** bash's environment variables. */
  env?: Readonly<Record<string, string>>;
  /** The shell bash commands run in (default `/bin/bash`). */
  shell?: string;
}

/** Options of {@link HarnessRuntime.capabilityServer}. */
export interface RuntimeCapabilityServerOptions {
  runtime: CapabilityRuntime;
  approve?: CapabilityApprove;
  viewerAssetsDirectory?: string;
}

/**
 * The driven adapters the composition root hands to the application (ARCH-1): what a node
 * context, an agent, a session host or a capability tool uses when the host gave none. The
 * library's entry points build one with `createHarnessRuntime()` and pass it down through the
 * node context (`NodeContext.runtime`) or a factory's options; application code never looks an
 * adapter up. A host replaces one member by building its own runtime
 * (`{ ...createHarnessRuntime(), codeSandbox: async () => mySandbox }`).
 *
 * State that must outlive one run (the in-memory sessions of non-durable runs, per storage) lives
 * in the runtime object, never in a module: two runtimes share nothing.
 */
export interface HarnessRuntime {
  /** A fresh wall clock. */
  clock(): Clock;
  /** A fresh random id source. */
  ids(): IdSource;
  /** The approval port when the host gives none: answers `pending` (never auto-approves). */
  toolPermissions(): ToolPermissions;
  /** The question port when the host gives none: answers `pending`. */
  userInput(): UserInput;
  /** Token usage under the reserved KV keys of a namespace, for storages with no usage table of their own. */
  tokenUsage(kv: KvStore, namespace: KvNamespace): TokenUsageRecorder;
  /** A fresh storage for a host given none: every port in memory, sessions included. */
  storage(): Storage;
  /**
   * Sessions of non-durable runs (SES-6) on a storage: the storage's own backend when it is in
   * memory, else one in-memory backend per storage object for the runtime's lifetime, so
   * re-running a run id on the same storage replays it.
   */
  ephemeralSessions(storage: Storage): SessionBackend;
  /** A fresh in-memory session backend that keeps events as objects (SEC-7): one per conversation a gateway holds. */
  conversationSessions(): SessionBackend;
  /** In-memory sessions of gateway runs beside a resident host on a storage (EXT-1); never the storage's own backend. */
  gatewaySessions(storage: Storage): SessionBackend;
  /** The backend that opens explicit session files (`databasePath`, SES-1): the storage's own when it accepts paths, else a SQLite one. */
  explicitFileSessions(storage: Storage): Promise<SessionBackend>;
  /** A session backend on a session folder (SQLite; the session-folder shorthand of the session host). The caller closes it. */
  sessionsAt(folder: string): Promise<SessionBackend>;
  /** The provider-library model of one endpoint, loading the provider library on first use. */
  providerModel(endpoint: RuntimeModelEndpoint): Promise<ModelProvider>;
  /** The code-mode sandbox (EXT-4), loading its engine on first use. */
  codeSandbox(): Promise<CodeSandbox>;
  /** The seven built-in coding tools for a workdir. */
  codingTools(options: RuntimeCodingToolsOptions): AgentTool[];
  /** Whether a folder is at `path` (links followed): a session's workdir must still be there before a run (EXT-5). False on any error; never rejects. */
  directoryExists(path: string): Promise<boolean>;
  /** One capability as an MCP server, loading the MCP SDK on first use (CAP-8). */
  capabilityServer(spec: CapabilitySpec<any>, options: RuntimeCapabilityServerOptions): Promise<McpServerHandle>;
  /** The budget ledger of a storage (BUD-2): `storage.budgets`, else one in memory per storage object. */
  budgetLedger(storage: Storage): BudgetLedger;
  /** A model's prices from the provider library's metadata (USD per million tokens), or null; loads the library on first use. */
  modelPrice(provider: string, model: string): Promise<ModelPrice | null>;
  /** The HTTP client of the host bridge (host configuration, CAP-8). */
  hostBridge(config: HostBridgeConfig): HostBridgeClient;
  /**
   * Where runs, model and tool calls, MCP and gateway requests are reported (OBS-1): a no-op by
   * default; `createOpenTelemetry()` from `steamharness/opentelemetry` for OpenTelemetry.
   */
  telemetry: Telemetry;
}
