import type { JsonValue } from "../json.js";
import type { NodeContext, NodeLogger } from "../node-context.js";
import type { ProjectConfigurationSnapshot } from "../configuration/snapshot.js";
import type { KnowledgeStore } from "../../ports/knowledge-store.js";
import type { KvStore } from "../../ports/kv-store.js";
import type { ManagedFileStore } from "../../ports/managed-file-store.js";
import type { PersistentValueStore } from "../../ports/persistent-value-store.js";
import type { Storage } from "../../ports/storage.js";
import type { TokenUsageRecorder } from "../../ports/token-usage.js";
import type { ToolPermissions } from "../../ports/tool-permissions.js";
import type { InferUserInput, WorkflowInputField } from "./param-types.js";
import type { WorkflowRoot, WorkflowSampling, WorkflowSamplingOptions } from "./sampling.js";

export type { WorkflowFileParamValue } from "./param-types.js";

/** What a run asks a person for: a message and the form fields to fill. */
export interface WorkflowInputRequest<F extends readonly WorkflowInputField[] = readonly WorkflowInputField[]> {
  message: string;
  fields?: F;
  /** Stable id of this question within the run; defaults to `input-<n>` (the n-th question). */
  requestId?: string;
}

/**
 * `context.userInput` of a workflow run. `request` pauses the run (`waiting_for_input`) until a
 * person answers, then resolves the answered values, typed from the fields (DX-2, see
 * {@link InferUserInput}): answers are checked against their fields, and a field left out that
 * has a `default` gets it. A refusal or cancellation rejects with a `cancelled`
 * SteamharnessError, which ends the run unless the workflow catches it.
 */
export interface WorkflowUserInput {
  request<const F extends readonly WorkflowInputField[] = readonly []>(request: WorkflowInputRequest<F>): Promise<InferUserInput<F>>;
}

/** A project bound with `--related-project alias=dir`. */
export interface RelatedProject {
  alias: string;
  projectId: string;
  directory: string;
}

/** Everything a workflow entrypoint runs with (WF-1). The stores are the data-dir stores (MCP-8). */
export interface WorkflowRunContext {
  runId: string;
  projectId: string;
  entrypointId: string;
  kv: KvStore;
  knowledge: KnowledgeStore;
  files: ManagedFileStore;
  values: PersistentValueStore;
  storage: Storage;
  userInput: WorkflowUserInput;
  /**
   * Asks the model of the MCP client that called this run for a completion (MCP sampling); only
   * during an MCP call from a client with the `sampling` capability, else `sampling_unavailable`.
   */
  sampling: WorkflowSampling;
  /**
   * MCP-19: the roots (`file://` folders) the MCP client that called this run shares (`roots/list`);
   * only during an MCP call from a client with the `roots` capability, else `unavailable`.
   */
  roots: { list(options?: WorkflowSamplingOptions): Promise<WorkflowRoot[]> };
  toolPermissions: ToolPermissions;
  tokenUsage: TokenUsageRecorder;
  signal: AbortSignal;
  log: NodeLogger;
  /** Directory where the run may create files (`--file-create-store-dir`). */
  fileCreateDir: string;
  relatedProjects: Record<string, RelatedProject>;
  /** The project configuration the run started with (CFG-2): values, `STEAMHARNESS_AGENT_MODELS`, model policy. */
  configuration: ProjectConfigurationSnapshot;
  /** The same run as a WF-0 `NodeContext`, for running agent and stream nodes. */
  node: NodeContext;
}

/**
 * A managed file a run hands back beside its output: the run stores it (`context.files.put`)
 * and names it with its media type. Over MCP it becomes a content block after the result's
 * JSON text: `image/*` an image, `audio/*` an audio clip, anything else an embedded resource.
 */
export interface WorkflowRunAttachment {
  fileId: string;
  mimeType: string;
}

/** The business result an entrypoint may return; any other value is taken as the output. */
export interface WorkflowRunResult {
  errCode: number;
  errMessage: string;
  output: JsonValue;
  /** Files handed back with the output (see {@link WorkflowRunAttachment}); only in this form of result. */
  attachments?: WorkflowRunAttachment[];
}
