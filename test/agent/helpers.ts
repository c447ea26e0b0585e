import type { AgentInternalOptions } from "../../src/app/agent/types.js";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { createMemoryToolPermissions, type MemoryToolPermissions } from "../../src/adapters/driven/memory/memory-tool-permissions.js";
import { createMemoryUserInput, type MemoryUserInput } from "../../src/adapters/driven/memory/memory-user-input.js";
import { createAgentNode, type AgentNodeOptions } from "../../src/app/agent-node/create-agent-node.js";
import type { AgentInput, AgentOutputPayload } from "../../src/app/agent/types.js";
import type { NodeContext, ToolCatalogEntry } from "../../src/domain/node-context.js";
import type { OutputItem, OutputItemStreamChunk } from "../../src/domain/output-items.js";
import { createOutputStreamAccumulator } from "../../src/domain/output-stream.js";
import { runStreamNode } from "../../src/domain/stream-node.js";
import { createOfflineModel, type OfflineStep } from "../../src/testing/offline-model.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";

export interface Harness {
  storage: MemoryStorage;
  permissions: MemoryToolPermissions;
  userInput: MemoryUserInput;
  workdir: string;
  context(runId: string, extra?: { tools?: ToolCatalogEntry[]; signal?: AbortSignal; conversationId?: string }): NodeContext;
}

export function harness(): Harness {
  const storage = new MemoryStorage();
  const permissions = createMemoryToolPermissions();
  const userInput = createMemoryUserInput();
  const workdir = tempDirRemovedAfterAll("agent-test-");
  return {
    storage,
    permissions,
    userInput,
    workdir,
    context: (runId, extra = {}) =>
      createNodeContext({
        projectId: "project-1",
        storage,
        runId,
        toolPermissions: permissions,
        userInput,
        ...(extra.tools ? { toolCatalog: extra.tools } : {}),
        ...(extra.signal ? { signal: extra.signal } : {}),
        ...(extra.conversationId ? { conversationId: extra.conversationId } : {}),
      }),
  };
}

export interface RunOutcome {
  output?: AgentOutputPayload;
  chunks: OutputItemStreamChunk[];
  items: OutputItem[];
  error?: unknown;
}

/** Runs a node and never throws: the error (pause, failure) is returned with the chunks so far. */
export async function runNode(node: ReturnType<typeof createAgentNode>, input: AgentInput, context: NodeContext): Promise<RunOutcome> {
  try {
    const { output, chunks } = await runStreamNode(node, input, context);
    return { output, chunks, items: output.items };
  } catch (error) {
    const chunks = ((error as { chunks?: OutputItemStreamChunk[] }).chunks ?? []) as OutputItemStreamChunk[];
    const accumulator = createOutputStreamAccumulator();
    accumulator.pushAll(chunks);
    return { chunks, items: accumulator.items(), error };
  }
}

export function offlineNode(steps: OfflineStep[] | ((request: never) => OfflineStep), options: Partial<AgentNodeOptions> & { h: Harness }) {
  const model = createOfflineModel({ steps: steps as OfflineStep[] });
  const { h, ...rest } = options;
  const node = createAgentNode({ models: model, workdir: h.workdir, retryDelayMs: 0, ...rest });
  return { model, node };
}

export const kinds = (items: OutputItem[]) => items.map((item) => `${item.metadata.kind ?? "ring"}${item.metadata.partType ? `:${item.metadata.partType}` : ""}`);
export const ofKind = (items: OutputItem[], kind: string, partType?: string) =>
  items.filter((item) => item.metadata.kind === kind && (partType === undefined || item.metadata.partType === partType));

/**
 * Agent-node options on a session store the test opened (the application's internal
 * `sessionStore`, not a public option): lets a test read or break the store its runs write.
 *
 * @example
 * const node = createAgentNode(onStore({ models, sessionStore: createMemorySessionStore() }));
 */
export function onStore(options: AgentNodeOptions & Pick<AgentInternalOptions, "sessionStore">): AgentNodeOptions {
  return options;
}
