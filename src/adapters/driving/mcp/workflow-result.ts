import { ProtocolError, ProtocolErrorCode, type CallToolResult, type JSONRPCErrorResponse, type JSONRPCMessage } from "@modelcontextprotocol/server";
import { hideAbsolutePaths, redactSecrets } from "../../../domain/redaction.js";
import type { WorkflowRunReport } from "../../../domain/workflow/run-report.js";
import type { StructureEntrypoint } from "../../../domain/workflow/workflow-definition.js";

/** Longest error message a tool result carries. */
const MAX_ERROR_CHARS = 300;

/**
 * Replaces every occurrence of the given secret values with `[redacted]`, every absolute path
 * with `<path>` (TEN-2: the text reaches remote clients) and clips the text to a concise length,
 * so an error message never carries credentials, server paths or a wall of output.
 *
 * @example
 * redact("token sk-123 refused", ["sk-123"]) // "token [redacted] refused"
 */
export function redact(text: string, secrets: readonly string[], maxChars = MAX_ERROR_CHARS): string {
  const out = hideAbsolutePaths(redactSecrets(text, secrets)).replace(/\s+/g, " ").trim();
  return out.length > maxChars ? `${out.slice(0, maxChars - 1)}…` : out;
}

/**
 * A JSON-RPC InvalidParams error that reads `MCP error -32602: <message>` once on the client.
 * The SDK sends an error's `message` as the wire message and the client's `McpError` adds the
 * prefix again, so the message sent is the bare one.
 *
 * @example
 * throw invalidParams(`unknown tool: ${name}`);
 */
export function invalidParams(message: string): ProtocolError {
  const error = new ProtocolError(ProtocolErrorCode.InvalidParams, message);
  error.message = message;
  return error;
}

/**
 * DX-17: the tool result of a call whose arguments do not fit the entrypoint (nothing ran):
 * `isError: true`, and as structured content and text the shape `run --json` prints then,
 * `{ runId: null, status: "rejected", entrypointId, entrypointTitle, error: { code: "input_validation", message } }`,
 * so the calling model reads what to correct (the MCP spec's advice for input validation).
 *
 * @example
 * return rejectedToolResult(entrypoint, "arguments.name: required property is missing");
 */
export function rejectedToolResult(entrypoint: StructureEntrypoint, message: string): CallToolResult {
  const structuredContent = { runId: null, status: "rejected", entrypointId: entrypoint.id, entrypointTitle: entrypoint.title, error: { code: "input_validation", message } };
  return { content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent, isError: true };
}

/**
 * TEN-2: a JSON-RPC error as a remote client may see it: absolute paths in its message become
 * `<path>`, and an internal error (an exception no handler meant for the client, whose `data` is
 * the server's) loses its `data`. Any other message is returned as it is.
 *
 * @example
 * transport.send = (message, options) => send(remoteSafeError(message), options);
 */
export function remoteSafeError(message: JSONRPCMessage): JSONRPCMessage {
  // A key test, not the SDK's schema parse: every message of the connection passes here.
  if (!("error" in message)) return message;
  const { data, ...error } = (message as JSONRPCErrorResponse).error;
  const safe = { ...error, message: hideAbsolutePaths(error.message) };
  return { ...message, error: error.code === ProtocolErrorCode.InternalError || data === undefined ? safe : { ...safe, data } };
}

/**
 * MCP-7: the tool result of a run. Success: `structuredContent`
 * `{ runId, status: "success", entrypointId, entrypointTitle, output }` (output only from
 * `report.result.data.output`) and the same JSON as text — after the output itself as a first text
 * block when the entrypoint declares `outputText` and the output is a string. Anything else: `isError: true` with a
 * concise `error { code, message }` (plus, for `interaction_required`, the pending fields and
 * `answerLater`: the `_meta` a later call of the same tool answers it with) —
 * never the report, node details, stdout, stderr or credentials.
 *
 * @example
 * const result = toToolResult(report, entrypoint, [adminKey]);
 */
export function toToolResult(report: WorkflowRunReport, entrypoint: StructureEntrypoint, secrets: readonly string[] = []): CallToolResult {
  const head = { runId: report.runId, status: report.status, entrypointId: entrypoint.id, entrypointTitle: entrypoint.title };
  if (report.status === "success") {
    const output = report.result.data.output;
    const structuredContent = { ...head, output };
    const json = { type: "text" as const, text: JSON.stringify(structuredContent) };
    // The opt-in answer text leads for clients that read only the first block; the JSON result still follows.
    return { content: entrypoint.outputText === true && typeof output === "string" ? [{ type: "text", text: output }, json] : [json], structuredContent };
  }
  const code = report.error?.code ?? report.status;
  const message = redact(report.error?.message ?? `the run ended with status ${report.status}`, secrets);
  const error: Record<string, unknown> = { code, message };
  if (code === "business_error") error.errCode = report.result.data.errCode;
  if (report.pending) {
    error.pending = {
      kind: report.pending.kind,
      requestId: report.pending.requestId,
      message: redact(report.pending.message, secrets),
      fields: report.pending.fields,
    };
    // DX-10: how to answer it later, from any connection (workflow-answer.ts).
    const answer = report.pending.kind === "approval" ? { decision: "approve | deny" } : { values: "{ <field>: <value> }" };
    error.answerLater = { tool: entrypoint.id, _meta: { "steamharness/answer": { runId: report.runId, requestId: report.pending.requestId, ...answer } } };
  }
  const structuredContent = { ...head, error };
  return { content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent, isError: true };
}
