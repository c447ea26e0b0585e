import { Type } from "@sinclair/typebox";
import { textToolResult, type AgentTool } from "../../domain/agent-tool.js";

// Each tool's description says what its one parameter holds (sent with every request: said once).
const UpdatePlanParams = Type.Object({ plan: Type.String() });
const AskUserParams = Type.Object({ question: Type.String() });

/**
 * `update_plan`: the model records or revises its working plan; shown as a `plan` part row. The
 * plan card of plan mode comes only from the final plan event (OUT-4), never from this tool.
 *
 * @example
 * const tool = createUpdatePlanTool();
 */
export function createUpdatePlanTool(): AgentTool {
  const tool: AgentTool<typeof UpdatePlanParams> = {
    name: "update_plan",
    label: "Update plan",
    description: "Record or revise your working plan: the whole plan in Markdown, steps with their status.",
    parameters: UpdatePlanParams,
    replay: "safe",
    async execute(_id, params) {
      return textToolResult("Plan recorded.", { plan: (params as { plan: string }).plan });
    },
  };
  return tool as AgentTool;
}

/**
 * `ask_user`: asks the user a question. The agent loop handles it (it pauses the run with
 * `user_input_required` and resumes with `askResume`); `execute` is never called directly.
 *
 * @example
 * const tool = createAskUserTool();
 */
export function createAskUserTool(): AgentTool {
  const tool: AgentTool<typeof AskUserParams> = {
    name: "ask_user",
    label: "Ask the user",
    description: "Ask the user a question when you cannot proceed without their answer.",
    parameters: AskUserParams,
    replay: "safe",
    async execute() {
      throw new Error("ask_user is handled by the agent loop");
    },
  };
  return tool as AgentTool;
}
