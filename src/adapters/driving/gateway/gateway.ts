/**
 * `createResponsesGateway` / `startGateway` (GW-1 … GW-4): an OpenAI-compatible HTTP gateway for
 * host-driven runs of a conversation project (or an agent node). Routes: `POST /v1/responses`,
 * `GET /v1/responses/{id}`, `POST /v1/chat/completions`, `GET /v1/models`, and the AI SDK UI chat
 * route on storages that keep sessions (`POST /v1/ui/chat`, `GET /v1/ui/chat/{id}/stream`,
 * `POST /v1/ui/chat/{id}/stop`; docs/ui-chat.md).
 *
 * Checked in this order for every request: the Host and Origin headers (403), the bearer token or
 * API key (401, after the failed-auth rate limit of the client's address, 429), the rate limit of
 * the token (429) or the key's tenant limits (BUD-4: budget `insufficient_quota`, token and request
 * rates and concurrency `rate_limit_exceeded`, 429), the route (404), the body size (413), JSON and its nesting (400), the body's schema (400,
 * TypeBox) and the model (404). Errors use OpenAI's shape `{ error: { message, type, param, code } }`.
 * A client that disconnects cancels its run; `close()` cancels every run, tells each client so,
 * and resolves once their responses ended (SEC-7).
 */
import type { HarnessRuntime } from "../../../ports/runtime.js";
import type { Telemetry, TelemetryCarrier } from "../../../ports/telemetry.js";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createAgentNode, type AgentNode, type AgentNodeOptions } from "../../../app/agent-node/create-agent-node.js";
import type { AgentConversationProject } from "../../../app/conversation/conversation-project.js";
import { SteamharnessError } from "../../../domain/errors.js";
import { listenOn } from "../shared/listen.js";
import type { ToolCatalogEntry } from "../../../domain/node-context.js";
import type { Storage } from "../../../ports/storage.js";
import type { ApiKeyStore } from "../../../ports/api-keys.js";
import type { Principal } from "../../../domain/principal.js";
import type { ApprovalGovernance } from "../../../app/approvals/answer-approval.js";
import type { BudgetLedger } from "../../../ports/budget-ledger.js";
import type { BrowserPage } from "../../../ports/browser-page.js";
import { createChatCompletionsApi } from "./chat-completions-api.js";
import { DEFAULT_MAX_HELD_BYTES } from "./gateway-budget.js";
import { createGatewayGuard } from "./gateway-guards.js";
import { GatewayHttpError, readJsonBody, sendError, sendJson, type GatewayRateLimit } from "./gateway-http.js";
import { createGatewayLog, gatewayRequestPath } from "./gateway-log.js";
import { createGatewayRuns, SHARED_TENANT, type GatewayStats, type GatewayUsage } from "./gateway-runs.js";
import { createGatewayTenants, tenantNodes } from "./gateway-tenants.js";
import { createFairQueue, type FairQueueSlot } from "../../../domain/fair-queue.js";
import { ChatCompletionsCreateSchema, ResponsesCreateSchema, validateBody } from "./gateway-schemas.js";
import { createResponsesApi } from "./responses-api.js";
import { createUiChatHandlers } from "./ui-chat.js";
import { serveUiChat, UI_CHAT_PATH } from "./ui-chat-mount.js";

/** The `agent-answer` id the gateway declares when the project declares none. */
export const DEFAULT_GATEWAY_ANSWER_ITEM_ID = "steamharness-gateway-answer";

/** Options of {@link createResponsesGateway}. */
export interface ResponsesGatewayOptions {
  /** The conversation project to serve: its agent, tool catalog, id, name and answer item id. */
  project?: AgentConversationProject;
  /**
   * An agent node to serve, or agent-node options (merged over the project's agent when both
   * are given — e.g. to inject `models`).
   */
  agent?: AgentNode | AgentNodeOptions;
  /** The project id of runs (default the project's id; required without a project). */
  projectId?: string;
  /**
   * The bearer token clients must send (`Authorization: Bearer <token>`); at least 16 characters.
   * Optional with `apiKeys` (then only keys are accepted unless a token is given too).
   */
  token?: string;
  /**
   * API keys and tenants (BUD-4; docs/gateway.md): a key the store verifies is admitted against
   * its tenant's budget, request and token rates and concurrency, kept in the store so they hold
   * across hosts. Needs a project or agent options (not a ready node) for tenant budgets.
   */
  apiKeys?: ApiKeyStore;
  /**
   * Issue 47: the governed adapter the runs' tool approvals go through: a run's principal is the
   * requester (GOV-1), and an approval answered by a client (`mcp_approval_response`, a tool
   * message) is recorded by its `decide()` with the answering principal, or refused (GOV-4).
   */
  approvals?: ApprovalGovernance;
  /**
   * The ledger tenant budgets are reserved in (default `storage.budgets`, else the runtime's); a
   * tenant's runs reserve the agent's own budgets there too.
   */
  tenantBudgets?: BudgetLedger;
  /** How long a verified key is trusted before the store is asked again: the revocation bound (default 2000 ms). */
  keyCacheMs?: number;
  /** How long a tenant's concurrency slot outlives a host that died holding it (default 30000 ms). */
  slotTtlMs?: number;
  /**
   * BUD-5: runs this gateway executes at once (default no limit). Requests beyond it wait in a
   * fair queue: tenants (API keys' tenants; the single token is one tenant) take free slots in
   * turn, so a tenant with many waiting requests does not delay another tenant's.
   */
  maxConcurrentRuns?: number;
  /** The model id clients name (default the project's name, else `"steamharness"`). */
  modelId?: string;
  /** The stores the project's tools use (KV, knowledge, files, values); default in memory. */
  storage?: Storage;
  /** The host's tool catalog (default the project's `executor.tools`). */
  toolCatalog?: ToolCatalogEntry[];
  /**
   * The `agent-answer` item id (default the project's `conversation.openai.outputItemId`, the
   * agent's `outputItemId`, else {@link DEFAULT_GATEWAY_ANSWER_ITEM_ID}; for a ready node
   * without it, the first `agent-answer` item).
   */
  outputItemId?: string;
  /** Largest request body in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /**
   * Where requests and runs are reported (OBS-3; default a no-op): the public entry builds the
   * gateway's runtime with it (ARCH-6); each request is a server span continuing the client's `traceparent` header, and its
   * runs continue that span.
   */
  telemetry?: Telemetry;
  /**
   * Requests per window (default 600 per minute), counted for the token, and for requests
   * without it per client address; `false` turns it off.
   */
  rateLimit?: GatewayRateLimit | false;
  /**
   * Conversations kept in memory (default 1000). Over it (or over `maxHeldBytes`) the least
   * recently used idle conversation of the tenant holding most is evicted first (TEN-4).
   */
  maxConversations?: number;
  /**
   * TEN-4: conversations one tenant keeps; opening more evicts that tenant's own least recently
   * used idle one, never another tenant's. Default: a tenth of `maxConversations` (at least 1)
   * with API keys, `maxConversations` with the single token only (one tenant).
   */
  maxConversationsPerTenant?: number;
  /**
   * Bytes all kept conversations may hold together — session logs and stored responses, by
   * approximate JSON size — least recently used evicted first, from the tenant holding most
   * bytes (default 256 MiB).
   */
  maxHeldBytes?: number;
  /**
   * Host names (or addresses) served besides loopback (`localhost`, `127.0.0.1`, `::1`) and the
   * address the gateway listens on; a request naming another in `Host` or `Origin` gets 403.
   */
  allowedHosts?: readonly string[];
  /**
   * UI-6: a browser page served at `/` (its script at `/web-chat.js`) without a token — the page
   * asks for one and sends it on the chat route (`steamharness gateway --ui`). Host and Origin
   * checks apply as on every route. Default: none (404).
   */
  page?: BrowserPage;
  /** How long `close()` waits for cancelled runs to end their responses (default 5000 ms). */
  closeTimeoutMs?: number;
  /** The clock (ms), for `created_at` and the rate-limit windows. */
  now?: () => number;
  /**
   * DX-9: where the request log goes — one line per request (method, path, status, ms) and one
   * per failure (code, message; an unexpected error's details, which the client is not shown).
   * The token never appears in it. Default: no log (`steamharness gateway` logs to stderr).
   */
  log?: (line: string) => void;
}

/** Where a gateway listens (`listen`, `startGateway`). */
export interface GatewayListenOptions {
  /** The port; 0 (default) picks a free one. */
  port?: number;
  /** The address to bind (default `127.0.0.1`; `0.0.0.0` or `::` listens everywhere). */
  hostname?: string;
}

/** Where a gateway listens once it does. */
export interface GatewayAddress {
  /** The base URL, `http://<hostname>:<port>/v1`. */
  url: string;
  port: number;
  /** The bound address. */
  hostname: string;
}

/** A gateway: an HTTP handler and, once listening, its server. */
export interface ResponsesGateway {
  /** The model id clients name. */
  readonly modelId: string;
  /** The request handler, for a host that runs its own `http` server. */
  handle(request: IncomingMessage, response: ServerResponse): void;
  /**
   * Listens (default 127.0.0.1, a free port) and resolves the base URL
   * (`http://<hostname>:<port>/v1`). `host` is the deprecated name of `hostname` (both are
   * answered), removed in the next release.
   */
  listen(options?: GatewayListenOptions): Promise<GatewayAddress>;
  /** Runs executing now. */
  activeRuns(): number;
  /** Conversations and bytes held now, and runs executing. */
  stats(): GatewayStats;
  /**
   * Stops listening, cancels running runs — each client gets a terminal event (a streamed
   * `error` + `response.failed`, or an error) or a 503 — and resolves once their responses ended
   * (at most `closeTimeoutMs`), then drops connections and closes a storage it created.
   * Idempotent.
   */
  close(): Promise<void>;
}

function nodeOf(options: ResponsesGatewayOptions): { node: AgentNode; answerItemId?: string; nodeOptions?: AgentNodeOptions } {
  const agent = options.agent;
  if (agent && typeof (agent as AgentNode).stream === "function") {
    return { node: agent as AgentNode, ...(options.outputItemId === undefined ? {} : { answerItemId: options.outputItemId }) };
  }
  const agentOptions: AgentNodeOptions = { ...(options.project?.executor.agent ?? {}), ...((agent as AgentNodeOptions | undefined) ?? {}) };
  const answerItemId = options.outputItemId ?? options.project?.executor.conversation.openai?.outputItemId ?? agentOptions.outputItemId ?? DEFAULT_GATEWAY_ANSWER_ITEM_ID;
  const nodeOptions = { ...agentOptions, outputItemId: answerItemId };
  return { node: createAgentNode(nodeOptions), answerItemId, nodeOptions };
}

/**
 * Creates the OpenAI-compatible gateway of a conversation project (or agent node). Every request
 * is a host-driven run: the answer is read from the `agent-answer` item, the request reaches the
 * model as `hostInput` and never enters conversation history (SES-6). Throws `input_validation`
 * for a short token or a missing agent.
 *
 * @example
 * const gateway = createResponsesGateway({ project: await loadAgentConversationProject(dir), token }, createHarnessRuntime());
 * const { url } = await gateway.listen({ port: 8787 });
 * const client = new OpenAI({ baseURL: url, apiKey: token });
 * const answer = await client.responses.create({ model: gateway.modelId, input: "Hello" });
 */
export function createResponsesGateway(options: ResponsesGatewayOptions, runtime: HarnessRuntime): ResponsesGateway {
  if ((options.token !== undefined || !options.apiKeys) && (typeof options.token !== "string" || !/^[\x21-\x7e]{16,}$/.test(options.token))) {
    throw new SteamharnessError("input_validation", "[steamharness] [gateway] the token must be at least 16 printable ASCII characters", { field: "token" });
  }
  for (const [field, value] of [["maxConversations", options.maxConversations], ["maxHeldBytes", options.maxHeldBytes], ["closeTimeoutMs", options.closeTimeoutMs], ["keyCacheMs", options.keyCacheMs], ["slotTtlMs", options.slotTtlMs]] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value >= 0)) throw new SteamharnessError("input_validation", `[steamharness] [gateway] ${field} must be an integer ≥ 0`, { field });
  }
  if (options.maxConversationsPerTenant !== undefined && !(Number.isInteger(options.maxConversationsPerTenant) && options.maxConversationsPerTenant >= 1)) {
    throw new SteamharnessError("input_validation", "[steamharness] [gateway] maxConversationsPerTenant must be an integer ≥ 1", { field: "maxConversationsPerTenant" });
  }
  if (!options.project && !options.agent) throw new SteamharnessError("input_validation", "[steamharness] [gateway] give a conversation project or an agent", { field: "project" });
  const projectId = options.projectId ?? options.project?.manifest.id;
  if (!projectId) throw new SteamharnessError("input_validation", "[steamharness] [gateway] projectId is required when serving an agent without a project", { field: "projectId" });
  const modelId = options.modelId ?? options.project?.manifest.name ?? "steamharness";
  const now = options.now ?? Date.now;
  const ownStorage = options.storage ? null : runtime.storage();
  const storage = options.storage ?? ownStorage!;
  const { node, answerItemId, nodeOptions } = nodeOf(options);
  if (options.apiKeys && !nodeOptions) throw new SteamharnessError("input_validation", "[steamharness] [gateway] API keys need a project or agent options (tenant budgets are added to the agent's budget), not a ready agent node", { field: "agent" });
  const log = options.log ? createGatewayLog(options.log, options.token === undefined ? [] : [options.token], now) : null;
  // One ledger for the admission check and the runs' reservations (a storage without its own gets the runtime's, one per storage).
  const tenantBudgets: BudgetLedger = options.tenantBudgets ?? storage.budgets ?? runtime.budgetLedger(storage);
  const tenants = options.apiKeys ? createGatewayTenants({ keys: options.apiKeys, budgets: tenantBudgets, cacheMs: options.keyCacheMs ?? 2000, slotTtlMs: options.slotTtlMs ?? 30_000, now }) : null;
  const tenantNode = tenantNodes(nodeOptions, tenantBudgets);
  /** What each request's runs need: its tenant's node, and where their usage is counted (by the request's signal). */
  const scopes = new WeakMap<AbortSignal, { node: AgentNode; onUsage: (usage: GatewayUsage) => void }>();
  if (options.maxConcurrentRuns !== undefined && !(Number.isInteger(options.maxConcurrentRuns) && options.maxConcurrentRuns >= 1)) {
    throw new SteamharnessError("input_validation", "[steamharness] [gateway] maxConcurrentRuns must be an integer ≥ 1", { field: "maxConcurrentRuns" });
  }
  const maxConversations = options.maxConversations ?? 1000;
  const queue = options.maxConcurrentRuns === undefined ? null : createFairQueue({ capacity: options.maxConcurrentRuns });
  /** A run slot of the request's tenant (BUD-5), held until its response ends; none without `maxConcurrentRuns`. */
  const runSlot = async (tenant: string, response: ServerResponse, signal: AbortSignal): Promise<void> => {
    if (!queue) return;
    let slot: FairQueueSlot;
    try {
      slot = await queue.acquire(tenant, { signal });
    } catch (error) {
      if (closing) throw new GatewayHttpError(503, "The gateway is shutting down.", { type: "server_error", code: "gateway_closing", headers: { connection: "close" } });
      throw error;
    }
    if (response.closed) return slot.release();
    response.once("close", () => slot.release());
  };
  const runs = createGatewayRuns({
    ...(log ? { onRunFailure: (failure: Parameters<typeof log.failure>[0]) => log.failure(failure) } : {}),
    node,
    projectId,
    storage,
    toolCatalog: options.toolCatalog ?? [...(options.project?.executor.toolCatalog ?? [])],
    ...(answerItemId === undefined ? {} : { answerItemId }),
    maxConversations,
    maxConversationsPerTenant: options.maxConversationsPerTenant ?? (options.apiKeys ? Math.max(1, Math.floor(maxConversations / 10)) : maxConversations),
    maxHeldBytes: options.maxHeldBytes ?? DEFAULT_MAX_HELD_BYTES,
    traceOf: (signal) => traces.get(signal),
    scopeOf: (signal) => scopes.get(signal),
    principalOf: (signal) => requestPrincipals.get(signal),
    ...(options.approvals ? { approvals: options.approvals } : {}),
    runtime,
  });
  // BUD-4, TEN-4: a conversation is its opening principal's tenant's; another tenant cannot continue or read it.
  const requestPrincipals = new WeakMap<AbortSignal, Principal>();
  const tenantOf = (signal: AbortSignal) => requestPrincipals.get(signal)?.tenant ?? SHARED_TENANT;
  const responses = createResponsesApi({ runs, modelId, now, tenantOf });
  const chat = createChatCompletionsApi({ runs, modelId, now, tenantOf });
  const guard = createGatewayGuard({ token: options.token ?? null, ...(tenants ? { identify: (secret: string) => tenants.identify(secret) } : {}), rateLimit: options.rateLimit ?? { requests: 600, windowMs: 60_000 }, allowedHosts: options.allowedHosts ?? [], now });
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  // Issue 45: the AI SDK UI chat route, on storages that keep sessions (chats are durable conversations).
  const chatPrincipals = new WeakMap<Request, Principal>();
  // BUD-4: a key tenant's chat turns run on a node with its budget (the request's principal's limits), as its Responses runs do.
  let chatTenantNode: ((principal: Principal) => AgentNode | undefined) | undefined;
  const chatNodeOf = (request: Request, chatOptions: AgentNodeOptions): AgentNode | undefined => {
    const principal = chatPrincipals.get(request);
    if (!principal) return undefined;
    chatTenantNode ??= tenantNodes(chatOptions, tenantBudgets);
    return chatTenantNode(principal);
  };
  const uiChat = nodeOptions && storage.sessions ? createUiChatHandlers({ agent: nodeOptions, projectId, storage, toolCatalog: options.toolCatalog ?? [...(options.project?.executor.toolCatalog ?? [])], tenantOf: (request) => chatPrincipals.get(request)?.tenant ?? null, principalOf: (request) => chatPrincipals.get(request), ...(options.approvals ? { approvals: options.approvals } : {}) }, runtime, chatNodeOf) : null;
  const telemetry = () => runtime.telemetry;
  /** The gateway span of each request in progress, by the request's signal (its runs continue it). */
  const traces = new WeakMap<AbortSignal, TelemetryCarrier>();
  let server: Server | null = null;
  let closing: Promise<void> | null = null;
  /** Requests being answered: each settles when its response has ended (or its socket closed). */
  const inFlight = new Set<Promise<void>>();

  const checkModel = (model: string) => {
    if (model !== modelId) throw new GatewayHttpError(404, `The model '${model}' does not exist. This gateway serves '${modelId}'.`, { param: "model", code: "model_not_found" });
  };

  async function serve(request: IncomingMessage, response: ServerResponse, signal: AbortSignal): Promise<void> {
    if (options.page && request.method === "GET") {
      const asset = pageAsset(options.page, (request.url ?? "/").split("?")[0]!);
      if (asset) {
        guard.checkHost(request);
        response.writeHead(200, { "content-type": asset.type, "cache-control": "no-store", "x-content-type-options": "nosniff" });
        return void response.end(asset.body);
      }
    }
    const { principal, identity } = await guard.check(request);
    // TEN-1: everything the request opens or reads is its principal's tenant's.
    const tenantName = principal.tenant;
    requestPrincipals.set(signal, principal);
    const admission = identity && tenants ? await tenants.admit(identity.tenant) : null;
    // A tenant with no limit and no budget runs on the gateway's node and has nothing to charge when it ends.
    if (admission?.limited) {
      let tokens = 0;
      scopes.set(signal, { node: tenantNode(principal) ?? node, onUsage: (usage) => void (tokens += usage.total) });
      void new Promise<void>((resolve) => response.on("close", resolve)).then(() => admission.finish(tokens));
    }
    if (closing) throw new GatewayHttpError(503, "The gateway is shutting down.", { type: "server_error", code: "gateway_closing", headers: { connection: "close" } });
    const path = (request.url ?? "/").split("?")[0]!.replace(/\/+$/, "");
    const method = request.method ?? "GET";
    if (method === "POST" && path === "/v1/responses") {
      const body = validateBody(ResponsesCreateSchema, await readJsonBody(request, maxBodyBytes));
      checkModel(body.model);
      await runSlot(tenantName, response, signal);
      return responses.create(body, request, response, signal);
    }
    if (method === "POST" && path === "/v1/chat/completions") {
      const body = validateBody(ChatCompletionsCreateSchema, await readJsonBody(request, maxBodyBytes));
      checkModel(body.model);
      await runSlot(tenantName, response, signal);
      return chat.create(body, response, signal);
    }
    if (uiChat && (path === UI_CHAT_PATH || path.startsWith(`${UI_CHAT_PATH}/`))) {
      return serveUiChat(uiChat, request, response, path, principal, maxBodyBytes, chatPrincipals);
    }
    const responseId = /^\/v1\/responses\/([^/]+)$/.exec(path)?.[1];
    if (method === "GET" && responseId !== undefined) {
      let id: string;
      try {
        id = decodeURIComponent(responseId);
      } catch {
        throw new GatewayHttpError(400, "The response id in the URL has a malformed %-escape.", { param: "response_id", code: "invalid_value" });
      }
      return responses.get(id, response, tenantName);
    }
    if (method === "GET" && path === "/v1/models") {
      return sendJson(response, 200, { object: "list", data: [{ id: modelId, object: "model", created: 0, owned_by: "steamharness" }] });
    }
    throw new GatewayHttpError(404, `Unknown request URL: ${method} ${path}.`, { code: "unknown_url" });
  }

  const gateway: ResponsesGateway = {
    modelId,
    handle(request, response) {
      const controller = new AbortController();
      // A client that goes away before its response is complete cancels the run.
      const ended = new Promise<void>((resolve) =>
        response.on("close", () => {
          if (!response.writableFinished) controller.abort();
          resolve();
        }),
      );
      inFlight.add(ended);
      void ended.then(() => inFlight.delete(ended));
      const header = request.headers.traceparent;
      const tracestate = request.headers.tracestate;
      const span = telemetry().gatewayRequest({
        method: request.method ?? "GET",
        target: gatewayRequestPath(request).replace(/^\/v1\/responses\/[^/]+$/, "/v1/responses/{id}"),
        parent: typeof header === "string" ? { traceparent: header, ...(typeof tracestate === "string" ? { tracestate } : {}) } : null,
      });
      const carrier = span.carrier();
      if (carrier) traces.set(controller.signal, carrier);
      void ended.then(() => span.end({ ...(response.statusCode >= 500 ? { error: String(response.statusCode) } : {}), attributes: { "http.response.status_code": response.statusCode } }));
      log?.request(request, response);
      serve(request, response, controller.signal)
        .catch((error: unknown) => {
          // DX-9: a failed run was logged where it failed; an unexpected error is logged with its details.
          if (log && !(error instanceof GatewayHttpError && error.logged)) {
            const at = { method: request.method ?? "GET", path: gatewayRequestPath(request) };
            if (error instanceof GatewayHttpError) log.failure({ ...at, status: error.status, code: error.body.error.code ?? error.body.error.type, message: error.message });
            else log.failure({ ...at, status: 500, code: "internal", message: "unexpected error", detail: error instanceof Error ? (error.stack ?? error.message) : String(error) });
          }
          sendError(response, error);
        })
        .finally(() => {
          if (!response.writableEnded) response.end();
        });
    },
    async listen(listenOptions = {}) {
      if (server) throw new SteamharnessError("input_validation", "[steamharness] [gateway] already listening", { field: "listen" });
      const hostname = listenOptions.hostname ?? "127.0.0.1";
      const created = createServer((request, response) => gateway.handle(request, response));
      server = created;
      const { port, authority } = await listenOn(created, { hostname, port: listenOptions.port }).catch((error: unknown) => {
        server = null;
        throw error;
      });
      // The listening address is served too, unless it is a wildcard (0.0.0.0 is no one's name).
      if (hostname !== "0.0.0.0" && hostname !== "::") guard.allowHost(hostname);
      return { url: `http://${authority}/v1`, port, hostname };
    },
    activeRuns: () => runs.activeRuns(),
    stats: () => runs.stats(),
    close() {
      closing ??= (async () => {
        const running = server;
        server = null;
        // No new connections; idle keep-alive ones close now, the others once their response ended.
        const closed = running ? new Promise<void>((resolve) => running.close(() => resolve())) : Promise.resolve();
        runs.closeAll();
        queue?.close();
        await uiChat?.close();
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([Promise.all(inFlight), new Promise<void>((resolve) => (timer = setTimeout(resolve, options.closeTimeoutMs ?? 5000)))]);
        clearTimeout(timer);
        running?.closeAllConnections();
        await closed;
        await ownStorage?.close();
      })();
      return closing;
    },
  };
  return gateway;
}

/** The page's document or script for a request path, or null for any other path. */
function pageAsset(page: BrowserPage, path: string): { type: string; body: string } | null {
  if (path === "/") return { type: "text/html; charset=utf-8", body: page.html };
  if (path === "/web-chat.js") return { type: "text/javascript; charset=utf-8", body: page.script };
  return null;
}

/**
 * Creates a gateway and starts listening (default 127.0.0.1, a free port).
 *
 * @example
 * const gateway = await startGateway({ project, token, port: 8787 }, createHarnessRuntime());
 * console.log(gateway.url); // http://127.0.0.1:8787/v1
 * await gateway.close();
 */
export async function startGateway(options: ResponsesGatewayOptions & GatewayListenOptions, runtime: HarnessRuntime): Promise<ResponsesGateway & GatewayAddress> {
  const { port, hostname, ...rest } = options;
  const gateway = createResponsesGateway(rest, runtime);
  try {
    const address = await gateway.listen({ ...(port === undefined ? {} : { port }), ...(hostname === undefined ? {} : { hostname }) });
    return Object.assign(gateway, address);
  } catch (error) {
    await gateway.close();
    throw error;
  }
}
