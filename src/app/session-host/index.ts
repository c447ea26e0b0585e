/**
 * The resident session host (HOST-1 … HOST-6): what `steamharness/agent` exports from here.
 */
export type { AgentSessionStoredCommand } from "./control.js";
export type { AgentSessionHost, AgentSessionCommandResult, AgentSessionBackgroundWork } from "./types.js";
export { AgentSessionCommandSchema, AGENT_SESSION_COMMAND_TYPES, parseAgentSessionCommand } from "../../domain/session-host/commands.js";
export type {
  AgentSessionCommand,
  AgentSessionCommandType,
  AgentSessionSubmitCommand,
  AgentSessionCancelCommand,
  AgentSessionCompactCommand,
  AgentSessionResetCommand,
  AgentSessionForkCommand,
  AgentSessionContinueCommand,
  AgentSessionSteerCommand,
  AgentSessionSelectCommand,
} from "../../domain/session-host/commands.js";
export type { AgentSessionHostStatus, AgentSessionTaskStatus, AgentSessionTaskRecord, AgentSessionContextKind, AgentSessionContextRecord } from "../../domain/session-host/host-state.js";
export { SUBAGENT_TOOL } from "./delegation.js";
