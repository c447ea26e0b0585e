import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import OpenAI from "openai";
import type { AgentNodeOptions } from "../../src/app/agent-node/create-agent-node.js";
import type { ResponsesGatewayOptions } from "../../src/adapters/driving/gateway/gateway.js";
import { startGateway } from "../../src/compose/gateway.js";
import type { ModelProvider, ModelRequest } from "../../src/ports/model-provider.js";
import { createOfflineModel, type OfflineModel, type OfflineStep } from "../../src/testing/offline-model.js";
import { cleanEnv, CLI_SOURCE, REPO, runCli } from "../cli/helpers.js";
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


/** A running `steamharness gateway <project> --approval-policy <policy>` process (GOV-1, GOV-7 tests). */
export interface GovernedGatewayProcess {
  /** The gateway's `/v1` base URL. */
  url: string;
  /** Ends it with SIGTERM and resolves its exit code (0 when it closed cleanly). */
  stop(): Promise<number | null>;
  /** The audit chain `audit export --store <the folder the gateway named>` prints, after `audit verify` passed. */
  auditChain(): Promise<{ kind: string; data: Record<string, unknown> }[]>;
  /** SIGKILLs it if it still runs (for `finally`). */
  kill(): void;
}

/** Starts `steamharness gateway` on `project` with `--approval-policy policy` and waits for its URL and audit store line. */
export async function spawnGovernedGateway(project: string, dataDir: string, policy: string, token: string): Promise<GovernedGatewayProcess> {
  const child = spawn(process.execPath, [...CLI_SOURCE, "gateway", project, "--port", "0", "--data-dir", dataDir, "--approval-policy", policy], { cwd: REPO, env: cleanEnv({ STEAMHARNESS_GATEWAY_TOKEN: token, CHAT_TEST_WORKDIR: dataDir }), stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const [url, store] = await new Promise<[string, string]>((resolve, reject) => {
    child.stderr.on("data", () => {
      const address = /at (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(stderr)?.[1];
      const audit = /audit export --store (\S+)\)/.exec(stderr)?.[1];
      if (address && audit) resolve([address, audit]);
    });
    child.once("exit", (code) => reject(new Error(`gateway exited (${code}): ${stderr}`)));
  }).catch((error: unknown) => {
    child.kill("SIGKILL");
    throw error;
  });
  return {
    url,
    stop() {
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      child.kill("SIGTERM");
      return exited;
    },
    async auditChain() {
      const verified = await runCli(["audit", "verify", "--store", store]);
      if (verified.code !== 0) throw new Error(`audit verify failed (${verified.code}): ${verified.stderr}`);
      const exported = await runCli(["audit", "export", "--store", store]);
      if (exported.code !== 0 || exported.stderr !== "") throw new Error(`audit export failed (${exported.code}): ${exported.stderr}`);
      return exported.stdout.trim().split("\n").map((line) => JSON.parse(line) as { kind: string; data: Record<string, unknown> });
    },
    kill: () => void child.kill("SIGKILL"),
  };
}
