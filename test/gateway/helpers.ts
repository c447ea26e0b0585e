import { randomUUID } from "node:crypto";
import OpenAI from "openai";
import type { AgentNodeOptions } from "../../src/app/agent-node/create-agent-node.js";
import type { ResponsesGatewayOptions } from "../../src/adapters/driving/gateway/gateway.js";
import { startGateway } from "../../src/compose/gateway.js";
import type { ModelProvider, ModelRequest } from "../../src/ports/model-provider.js";
import { createOfflineModel, type OfflineModel, type OfflineStep } from "../../src/testing/offline-model.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";

export const TOKEN = "test-token-0123456789abcdef";
export const MODEL = "test-assistant";

/** Text of a model message's content. */
export const textOf = (content: unknown): string =>
  typeof content === "string" ? content : Array.isArray(content) ? content.map((block) => (block as { text?: string }).text ?? "").join("") : "";

/** The last user message text the model saw (host input included). */
export const lastUserText = (request: ModelRequest): string => textOf([...request.messages].reverse().find((message) => message.role === "user")?.content);

/** Gateways of the current test, closed after it. */
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const gateway of open.splice(0)) await gateway.close();
});

/**
 * A gateway on 127.0.0.1 (random port) serving an offline-model agent, and an official OpenAI
 * client for it. Closed after the test.
 */
export async function gatewayWith(steps: OfflineStep[] | ((request: ModelRequest) => OfflineStep), options: Partial<ResponsesGatewayOptions> & { agentOptions?: AgentNodeOptions } = {}) {
  const model: OfflineModel = createOfflineModel({ steps: steps as OfflineStep[] });
  const { agentOptions, ...rest } = options;
  const gateway = await startGateway({
    agent: { models: model, retryDelayMs: 0, workdir: tempDirRemovedAfterAll("gateway-"), ...agentOptions },
    projectId: randomUUID(),
    modelId: MODEL,
    token: TOKEN,
    ...rest,
  });
  open.push(gateway);
  const client = new OpenAI({ baseURL: gateway.url, apiKey: TOKEN, maxRetries: 0 });
  return { gateway, client, model };
}

/** Waits until `check` holds (polling), failing after a generous deadline. */
export async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`never happened: ${what}`);
}

/** An offline model whose every call first waits for `gate()`. */
export function gatedModel(gate: () => Promise<void>): ModelProvider {
  const offline = createOfflineModel({ steps: () => ({ text: "ok", usage: { input: 1, output: 1 } }) });
  return {
    descriptor: offline.descriptor,
    async *stream(request, signal) {
      await gate();
      yield* offline.stream(request, signal);
    },
  };
}

