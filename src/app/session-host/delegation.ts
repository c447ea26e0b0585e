import { Type } from "@sinclair/typebox";
import { textToolResult, type AgentTool } from "../../domain/agent-tool.js";
import { SteamharnessError } from "../../domain/errors.js";
import type { NodeContext } from "../../domain/node-context.js";
import type { OutputItemStreamChunk } from "../../domain/output-items.js";
import type { HostContext } from "./host-contexts.js";

/** The tool id of delegation; an explicit permission list must declare it (AG-6). */
export const SUBAGENT_TOOL = "subagent";

const SubagentParams = Type.Object({
  task: Type.String({ minLength: 1, description: "What the child agent should do; it sees only this text, not your conversation" }),
  model: Type.Optional(Type.String({ description: "A model id from the allowed models (default: the current model)" })),
});

/** What the delegation tool needs from its host. */
export interface SubagentToolOptions {
  /** The parent run's context: the child runs with its tool catalog, approvals and usage recorder. */
  context: NodeContext;
  /** Opens (or reopens after a restart) the child session of one delegation call. */
  openChild(toolCallId: string): Promise<HostContext>;
  /** Child output, forwarded to the host's listeners. */
  emit(chunk: OutputItemStreamChunk): void;
  /** Called when the child's ring changed. */
  onChildUsage(child: HostContext): void;
}

/**
 * The run id of a delegation's child run: derived from the parent run and tool call, so a
 * resumed parent resumes the same child run, replaying its committed steps (SES-3).
 *
 * @example
 * childRunId("task-1", "call_0_0") // "task-1/subagent/call_0_0"
 */
export function childRunId(parentRunId: string, toolCallId: string): string {
  return `${parentRunId}/subagent/${toolCallId}`;
}

function lastAnswer(child: HostContext, runId: string): Promise<string> {
  return child.store.readRun(runId).then((events) => {
    for (let i = events.length - 1; i >= 0; i--) {
      const event = events[i]!;
      if (event.type !== "assistant_message") continue;
      const text = event.payload.message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
      if (text !== "") return text;
    }
    return "";
  });
}

/**
 * `subagent`: delegates a task to a child agent in its own session (a `child` context of the
 * snapshot, addressed by its numeric targetId). The child is built from the parent's agent
 * options minus delegation itself, so it is bound by the parent's tool permission list and
 * policy, model whitelist (a model outside it fails the call) and tool catalog, and asks the
 * parent's approval port; a pause inside the child pauses the parent run and resumes it later.
 *
 * @example
 * const tool = createSubagentTool({ context, openChild, emit, onChildUsage });
 */
export function createSubagentTool(options: SubagentToolOptions): AgentTool {
  const tool: AgentTool<typeof SubagentParams> = {
    name: SUBAGENT_TOOL,
    label: "Delegate to a child agent",
    description: "Delegate a self-contained task to a child agent with the same tools and permissions; returns its final answer.",
    parameters: SubagentParams,
    // Re-running resumes the same child run from its own log, never redoing its committed steps.
    replay: "safe",
    async execute(toolCallId, params, signal) {
      const { task, model } = params as { task: string; model?: string };
      const child = await options.openChild(toolCallId);
      const runId = childRunId(options.context.runId, toolCallId);
      const context: NodeContext = { ...options.context, runId, signal: signal ?? options.context.signal };
      try {
        for await (const chunk of child.agent.run({ prompt: task, runId, ...(model === undefined ? {} : { model }) }, context)) options.emit(chunk);
      } finally {
        options.onChildUsage(child);
      }
      const answer = await lastAnswer(child, runId);
      if (signal?.aborted) throw new SteamharnessError("cancelled", "the delegation was cancelled");
      return textToolResult(answer === "" ? "(the child agent gave no answer)" : answer, { targetId: child.record.targetId, runId });
    },
  };
  return tool as AgentTool;
}
