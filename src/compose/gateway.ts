/**
 * The gateway as `steamharness/gateway` exports it (EXT-1, ARCH-6): the surface with a runtime
 * built per call by the root — its telemetry the one given in the options — unless the host
 * passes its own, and the `gateway` command with services built for its process.
 */
import { createResponsesGateway as createGateway, startGateway as start, type GatewayAddress, type GatewayListenOptions, type ResponsesGateway, type ResponsesGatewayOptions } from "../adapters/driving/gateway/gateway.js";
import { runGatewayCommand as runCommand, type GatewayCommandOptions } from "../adapters/driving/gateway/gateway-command.js";
import { createUiChatHandlers as createChatHandlers, type UiChatHandlers, type UiChatOptions } from "../adapters/driving/gateway/ui-chat.js";
import type { HarnessRuntime } from "../ports/runtime.js";
import { createHarnessRuntime } from "./runtime.js";
import { createSurfaceServices } from "./surface-services.js";

/** The runtime of one gateway: the host's, else one built now with the options' telemetry. */
const runtimeOf = (options: ResponsesGatewayOptions, runtime?: HarnessRuntime): HarnessRuntime => runtime ?? createHarnessRuntime(options.telemetry ? { telemetry: options.telemetry } : {});

/**
 * Creates an OpenAI-compatible gateway over a conversation project or an agent (EXT-1); call
 * `listen` to serve it.
 *
 * @example
 * const gateway = createResponsesGateway({ project: await loadAgentConversationProject(dir), token });
 * const { url } = await gateway.listen({ port: 8787 });
 */
export function createResponsesGateway(options: ResponsesGatewayOptions, runtime?: HarnessRuntime): ResponsesGateway {
  return createGateway(options, runtimeOf(options, runtime));
}

/**
 * Creates a gateway and starts listening (default 127.0.0.1, a free port).
 *
 * @example
 * const gateway = await startGateway({ project, token, port: 8787 });
 * console.log(gateway.url); // http://127.0.0.1:8787/v1
 * await gateway.close();
 */
export function startGateway(options: ResponsesGatewayOptions & GatewayListenOptions, runtime?: HarnessRuntime): Promise<ResponsesGateway & GatewayAddress> {
  return start(options, runtimeOf(options, runtime));
}

/**
 * `steamharness gateway <project-dir>` as a function: serves until `until` resolves (default
 * SIGINT/SIGTERM), with services built for this call from `options.env`.
 *
 * @example
 * await runGatewayCommand({ projectDir: "./examples/assistant", port: 8787 });
 */
export function runGatewayCommand(options: GatewayCommandOptions): Promise<void> {
  return runCommand(options, createSurfaceServices(options.env ?? process.env));
}

/**
 * The AI SDK UI chat route's Web-standard handlers (issue 45; docs/ui-chat.md), with a runtime
 * built now unless the host passes its own.
 *
 * @example
 * const chat = createUiChatHandlers({ agent: { models }, projectId: "assistant", storage });
 * export const POST = chat.POST; // app/api/chat/route.ts
 */
export function createUiChatHandlers(options: UiChatOptions, runtime?: HarnessRuntime): UiChatHandlers {
  return createChatHandlers(options, runtime ?? createHarnessRuntime());
}
