/**
 * steamharness/gateway — the OpenAI-compatible HTTP gateway for host-driven runs of a
 * conversation project or agent node (GW-1 … GW-4; docs/gateway.md). A subpath of its own so the
 * root import graph never loads the HTTP server. Every export here is public API.
 */
export { DEFAULT_GATEWAY_ANSWER_ITEM_ID } from "./adapters/driving/gateway/gateway.js";
export { createResponsesGateway, startGateway, runGatewayCommand, createUiChatHandlers } from "./compose/gateway.js";
export { UI_CHAT_STREAM_HEADERS } from "./adapters/driving/gateway/ui-chat.js";
export type { UiChatHandlers, UiChatOptions } from "./adapters/driving/gateway/ui-chat.js";
export type { ResponsesGateway, ResponsesGatewayOptions, GatewayListenOptions, GatewayAddress } from "./adapters/driving/gateway/gateway.js";
export type { GatewayRateLimit, OpenAIErrorBody } from "./adapters/driving/gateway/gateway-http.js";
export type { GatewayPendingRequest, GatewayStats } from "./adapters/driving/gateway/gateway-runs.js";
export { GATEWAY_SERVER_LABEL } from "./adapters/driving/gateway/responses-api.js";
export { GATEWAY_TOKEN_ENV } from "./adapters/driving/gateway/gateway-command.js";
export type { GatewayCommandOptions } from "./adapters/driving/gateway/gateway-command.js";
