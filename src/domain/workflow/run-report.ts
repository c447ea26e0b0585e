import { SteamharnessError } from "../errors.js";
import { isJsonValue, type JsonValue } from "../json.js";
import type { WorkflowRunAttachment, WorkflowRunResult } from "./run-context.js";

/** Where a run ended. */
export type WorkflowRunStatus = "success" | "failed" | "cancelled" | "timeout" | "waiting_for_input";

/** A pending question or approval of a paused run, summarised for the caller. */
export interface PendingInteraction {
  kind: "input" | "approval";
  requestId: string;
  message: string;
  /** `name (type[, multiple][, options: a|b][, required])` per field. */
  fields: string[];
}

/** `steamharness run --json` output, and what the MCP server (`steamharness mcp`) reads the result from. */
export interface WorkflowRunReport {
  runId: string;
  projectId: string;
  entrypointId: string;
  status: WorkflowRunStatus;
  result: { data: WorkflowRunResult };
  /** A concise reason when the status is not `success`. */
  error?: { code: string; message: string };
  /** The open question of a `waiting_for_input` run. */
  pending?: PendingInteraction;
}

// type/subtype as RFC 6838 names them (parameters such as `; charset=utf-8` are not taken).
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i;

// The attachments of a result, each reduced to { fileId, mimeType }; null when any is malformed.
function attachmentsOf(value: unknown): WorkflowRunAttachment[] | null {
  if (!Array.isArray(value)) return null;
  const out: WorkflowRunAttachment[] = [];
  for (const item of value) {
    const { fileId, mimeType } = (typeof item === "object" && item !== null ? item : {}) as Record<string, unknown>;
    if (typeof fileId !== "string" || fileId === "" || typeof mimeType !== "string" || !MEDIA_TYPE.test(mimeType)) return null;
    out.push({ fileId, mimeType: mimeType.toLowerCase() });
  }
  return out;
}

/**
 * Turns whatever `run` returned into `{ errCode, errMessage, output }`: a value with a numeric
 * `errCode` is a business result, anything else is the output (`undefined` → `null`). A
 * non-JSON output is refused with errCode -1 rather than silently mangled, and so are
 * `attachments` that are not a list of `{ fileId, mimeType }`.
 *
 * @example
 * normalizeRunReturn({ answer: 42 }) // { errCode: 0, errMessage: "", output: { answer: 42 } }
 */
export function normalizeRunReturn(value: unknown): WorkflowRunResult {
  if (value === undefined) return { errCode: 0, errMessage: "", output: null };
  if (typeof value === "object" && value !== null && typeof (value as { errCode?: unknown }).errCode === "number") {
    const record = value as Record<string, unknown>;
    const output = record.output === undefined ? null : record.output;
    if (!isJsonValue(output)) return { errCode: -1, errMessage: "the run returned an output that is not JSON", output: null };
    const result: WorkflowRunResult = { errCode: record.errCode as number, errMessage: typeof record.errMessage === "string" ? record.errMessage : "", output };
    if (record.attachments === undefined) return result;
    const attachments = attachmentsOf(record.attachments);
    if (!attachments) return { errCode: -1, errMessage: "the run returned attachments that are not a list of { fileId, mimeType } (a media type such as image/png)", output: null };
    return attachments.length > 0 ? { ...result, attachments } : result;
  }
  if (!isJsonValue(value)) return { errCode: -1, errMessage: "the run returned an output that is not JSON", output: null };
  return { errCode: 0, errMessage: "", output: value };
}

/**
 * The final status of a finished run: a business errCode other than 0 is a failure.
 *
 * @example
 * statusOfResult({ errCode: 3, errMessage: "no", output: null }) // "failed"
 */
export function statusOfResult(result: WorkflowRunResult): WorkflowRunStatus {
  return result.errCode === 0 ? "success" : "failed";
}

/**
 * An empty result for runs that ended without one (crash, cancel, timeout, pause).
 *
 * @example
 * emptyRunResult() // { errCode: -1, errMessage: "", output: null }
 */
export function emptyRunResult(errMessage = ""): WorkflowRunResult {
  return { errCode: -1, errMessage, output: null as JsonValue };
}

/**
 * Ends a run that needs a person the host cannot ask: the worker is killed and the report is
 * `waiting_for_input` with an `interaction_required` error carrying the pending fields.
 *
 * @example
 * throw interactionRequired({ kind: "input", requestId: "input-1", message: "File?", fields: ["doc (file)"] }, "file fields cannot be asked");
 */
export function interactionRequired(pending: PendingInteraction, reason: string): SteamharnessError {
  return new SteamharnessError("interaction_required", reason, { data: { pending } });
}
