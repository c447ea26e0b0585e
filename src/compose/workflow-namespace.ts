import { runStreamNode } from "../domain/stream-node.js";
import { createOutputItemChunk, createOutputStreamAccumulator } from "../domain/output-stream.js";
import { createToolApprovalGate } from "../domain/approval-gate.js";
import { createNodeContext } from "./node-context.js";
import { createAgentNode } from "../app/agent-node/create-agent-node.js";
import { defineWorkflow } from "../domain/workflow/workflow-definition.js";
import {
  createProjectCapabilityServer,
  createProjectCapabilityTools,
  isProjectCapabilityAvailable,
  listProjectCapabilityToolIds,
  runProjectCapabilityAction,
} from "../app/capabilities/project-capabilities.js";

/**
 * The workflow-facing functions in one namespace (WF-0): `workflow.runStreamNode(...)` and so
 * on. Each is also a named export of `steamharness`.
 *
 * @example
 * import { workflow } from "steamharness";
 * const ids = workflow.listProjectCapabilityToolIds({ globalMemory: true });
 */
export const workflow = Object.freeze({
  createNodeContext,
  createAgentNode,
  defineWorkflow,
  runStreamNode,
  createOutputItemChunk,
  createOutputStreamAccumulator,
  createToolApprovalGate,
  createProjectCapabilityTools,
  createProjectCapabilityServer,
  runProjectCapabilityAction,
  listProjectCapabilityToolIds,
  isProjectCapabilityAvailable,
});
