import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/server";
import type { SurfaceServices } from "../../../ports/surface-services.js";
import type { WorkflowRunAttachment } from "../../../domain/workflow/run-context.js";
import type { WorkflowRunReport } from "../../../domain/workflow/run-report.js";
import type { StructureEntrypoint } from "../../../domain/workflow/workflow-definition.js";
import type { ProjectRunner } from "../../../ports/project-runner.js";
import { toToolResult } from "./workflow-result.js";

/**
 * MCP-7: the files a successful run hands back (`attachments`) as content blocks after the
 * result's JSON text, equal to `structuredContent` (first, or after the output's own text block
 * with `outputText`): `image/*` an image
 * block, `audio/*` an audio block, anything else an embedded resource (text for text and JSON
 * media types that are valid UTF-8, else a base64 blob) named
 * `steamharness://files/<projectId>/<fileId>`. The bytes are read from the managed-file store
 * (`--file-store-dir`) when the result is built, so the run report and `run --json` carry only
 * `{ fileId, mimeType }`.
 */

/** The most bytes the attachments of one result may carry together (base64 adds a third on the wire). */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

const TEXT_TYPES = /^(text\/[^;]+|application\/(json|xml|yaml|javascript)|[^/]+\/[^;]+\+(json|xml))$/;

function utf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/**
 * The content block of one attachment.
 *
 * @example
 * attachmentBlock({ fileId: "f1", mimeType: "image/png" }, png, "project-1") // { type: "image", data: "iVBOR…", mimeType: "image/png" }
 */
export function attachmentBlock(attachment: WorkflowRunAttachment, bytes: Uint8Array, projectId: string): ContentBlock {
  const { mimeType } = attachment;
  const data = Buffer.from(bytes).toString("base64");
  if (mimeType.startsWith("image/")) return { type: "image", data, mimeType };
  if (mimeType.startsWith("audio/")) return { type: "audio", data, mimeType };
  const uri = `steamharness://files/${encodeURIComponent(projectId)}/${encodeURIComponent(attachment.fileId)}`;
  const text = TEXT_TYPES.test(mimeType) ? utf8(bytes) : null;
  return { type: "resource", resource: text === null ? { uri, mimeType, blob: data } : { uri, mimeType, text } };
}

/**
 * {@link toToolResult} with the run's attachments appended as content blocks. An attachment
 * missing from the managed-file store (`not_found`), or attachments over
 * {@link MAX_ATTACHMENT_BYTES} together (`input_validation`), make the call an error result
 * naming the file; nothing of the output is sent then. A run of `dataTenant` (TEN-3) is read
 * from that tenant's file store.
 *
 * @example
 * return toWorkflowToolResult(report, entrypoint, runner, services.localStorage);
 */
export async function toWorkflowToolResult(report: WorkflowRunReport, entrypoint: StructureEntrypoint, runner: Pick<ProjectRunner, "secrets" | "dataDirs" | "location">, openStorage: SurfaceServices["localStorage"], dataTenant?: string): Promise<CallToolResult> {
  const result = toToolResult(report, entrypoint, runner.secrets);
  const attachments = report.status === "success" ? (report.result.data.attachments ?? []) : [];
  if (attachments.length === 0) return result;
  const failed = (code: string, message: string) => toToolResult({ ...report, status: "failed", error: { code, message } }, entrypoint, runner.secrets);
  // Opened only for a result with attachments: a server whose runs hand back none never opens SQLite.
  // TEN-3: a tenant's run stored its attachments in the tenant's own file store.
  const storage = await openStorage({ directory: runner.dataDirs(dataTenant).fileStoreDir });
  try {
    const projectId = runner.location.manifest.id;
    const blocks: ContentBlock[] = [];
    let total = 0;
    for (const attachment of attachments) {
      const bytes = await storage.files.read(projectId, attachment.fileId);
      if (!bytes) return failed("not_found", `the run's attachment ${attachment.fileId} is not in the managed-file store`);
      total += bytes.byteLength;
      if (total > MAX_ATTACHMENT_BYTES) return failed("input_validation", `the run's attachments exceed ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MB together (at ${attachment.fileId})`);
      blocks.push(attachmentBlock(attachment, bytes, projectId));
    }
    return { ...result, content: [...result.content, ...blocks] };
  } finally {
    await storage.close();
  }
}
