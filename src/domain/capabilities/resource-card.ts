/**
 * Conversation resource cards (CAP-9, CAP-10). Knowledge and KV success results carry a
 * `details.resourceCard` summary; custom tools may declare one too; `workflow-ui_present_card`
 * sends explicit card commands. The host re-checks permissions when it opens a target, so a card
 * only names a resource, it grants nothing.
 *
 * Invalid custom cards (ours): the tool result stays, the card is dropped and a warning is
 * recorded (`acceptToolResultCard`), because a malformed summary must not turn a tool's real,
 * committed work into a failure. Invalid `present_card` calls fail with `input_validation`.
 */
import { Type, type Static } from "@sinclair/typebox";
import { StringEnum } from "./schema.js";
import { CAPABILITY_LIMITS, assertMaxCodePoints } from "./text-limits.js";
import { invalid } from "./validate-args.js";
import { isSteamharnessError } from "../errors.js";

/** Card kinds. */
export const RESOURCE_CARD_KINDS = ["knowledge", "kv", "project", "kanban", "browser", "file"] as const;
/** Card operations. */
export const RESOURCE_CARD_OPERATIONS = ["read", "write", "open", "show"] as const;
/** Where a target lives: this machine, the server, or the host's current project. */
export const RESOURCE_CARD_SOURCES = ["local", "server", "current"] as const;

export type ResourceCardKind = (typeof RESOURCE_CARD_KINDS)[number];
export type ResourceCardOperation = (typeof RESOURCE_CARD_OPERATIONS)[number];
export type ResourceCardSource = (typeof RESOURCE_CARD_SOURCES)[number];

/** The target object of a card; which fields apply depends on the kind. */
export const ResourceCardTargetSchema = Type.Partial(
  Type.Object({
    source: StringEnum(RESOURCE_CARD_SOURCES, { description: "local, server, or current (the host's current project)" }),
    projectId: Type.String({ minLength: 1, maxLength: CAPABILITY_LIMITS.identifier, description: "Project of the resource (not needed with source current)" }),
    documentId: Type.String({ minLength: 1, maxLength: CAPABILITY_LIMITS.knowledgeDocumentId, description: "knowledge: document id" }),
    scope: StringEnum(["project", "conversation"] as const, { description: "kv: scope" }),
    key: Type.String({ minLength: 1, maxLength: CAPABILITY_LIMITS.kvKey, description: "kv: key" }),
    conversationId: Type.String({ minLength: 1, maxLength: CAPABILITY_LIMITS.identifier, description: "kv: conversation, for conversation scope" }),
    url: Type.String({ minLength: 1, maxLength: CAPABILITY_LIMITS.url, description: "browser: http(s) URL" }),
    filePath: Type.String({ minLength: 1, maxLength: CAPABILITY_LIMITS.filePath, description: "file: project-relative path" }),
    configurationId: Type.String({ minLength: 1, maxLength: CAPABILITY_LIMITS.identifier, description: "kanban/project: configuration to preview" }),
  }),
  { additionalProperties: false, description: "The resource the card opens; fields depend on kind" },
);

export type ResourceCardTarget = Partial<Static<typeof ResourceCardTargetSchema>>;

/** A resource card summary carried in `details.resourceCard`. */
export interface ResourceCard {
  kind: ResourceCardKind;
  operation: ResourceCardOperation;
  title?: string;
  target: ResourceCardTarget;
}

const TARGET_FIELDS: Record<ResourceCardKind, { required: string[]; optional: string[] }> = {
  knowledge: { required: ["source", "documentId"], optional: ["projectId"] },
  kv: { required: ["source", "scope", "key"], optional: ["projectId", "conversationId"] },
  project: { required: ["source"], optional: ["projectId", "configurationId"] },
  kanban: { required: ["source"], optional: ["projectId", "configurationId"] },
  browser: { required: ["url"], optional: [] },
  file: { required: ["source", "filePath"], optional: ["projectId"] },
};

/** Options of target validation. */
export interface CardValidationOptions {
  /** The agent's own project id: a linked project card must name the real resource instead. */
  agentProjectId?: string;
}

/**
 * Validates `target` for `kind`, or throws `input_validation` naming `target.<field>`.
 *
 * @example
 * validateCardTarget("browser", { url: "https://example.com/board" })
 */
export function validateCardTarget(kind: ResourceCardKind, target: unknown, options: CardValidationOptions = {}): ResourceCardTarget {
  if (target === null || typeof target !== "object" || Array.isArray(target)) throw invalid("target", "target must be an object");
  const record = target as Record<string, unknown>;
  const fields = TARGET_FIELDS[kind];
  for (const [key, value] of Object.entries(record)) {
    if (value === undefined) continue;
    if (!fields.required.includes(key) && !fields.optional.includes(key)) throw invalid(`target.${key}`, `target.${key} does not apply to ${kind} cards`);
    if (typeof value !== "string" || value.length === 0) throw invalid(`target.${key}`, `target.${key} must be a non-empty string`);
    const limit = (ResourceCardTargetSchema.properties as Record<string, { maxLength?: number }>)[key]?.maxLength;
    if (limit !== undefined) assertMaxCodePoints(`target.${key}`, value, limit);
  }
  for (const key of fields.required) if (record[key] === undefined) throw invalid(`target.${key}`, `target.${key} is required for ${kind} cards`);
  if (record.source !== undefined && !(RESOURCE_CARD_SOURCES as readonly unknown[]).includes(record.source)) {
    throw invalid("target.source", `target.source must be one of ${RESOURCE_CARD_SOURCES.join(", ")}`);
  }
  if (fields.required.includes("source") && record.source !== "current" && record.projectId === undefined) {
    throw invalid("target.projectId", `target.projectId is required unless target.source is current`);
  }
  if ((kind === "project" || kind === "kanban") && options.agentProjectId !== undefined && record.projectId === options.agentProjectId) {
    throw invalid("target.projectId", "a linked project card must name the real resource's source and projectId, not the agent's own project");
  }
  if (kind === "kv") validateKvTarget(record);
  if (kind === "browser") validateBrowserUrl(record.url as string);
  if (kind === "file") validateProjectRelativePath(record.filePath as string);
  return record as ResourceCardTarget;
}

function validateKvTarget(record: Record<string, unknown>): void {
  if (record.scope !== "project" && record.scope !== "conversation") throw invalid("target.scope", "target.scope must be project or conversation");
  if (record.scope === "conversation" && record.conversationId === undefined) {
    throw invalid("target.conversationId", "target.conversationId is required for conversation scope");
  }
  if (record.scope === "project" && record.conversationId !== undefined) {
    throw invalid("target.conversationId", "target.conversationId applies only to conversation scope");
  }
}

/**
 * Accepts only absolute `http:` / `https:` URLs with a host and without credentials.
 *
 * @example
 * validateBrowserUrl("https://example.com") // returns; "file:///etc/passwd" throws
 */
export function validateBrowserUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid("target.url", "target.url must be an absolute http(s) URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw invalid("target.url", "target.url must use http or https");
  if (parsed.hostname === "") throw invalid("target.url", "target.url must name a host");
  if (parsed.username !== "" || parsed.password !== "") throw invalid("target.url", "target.url must not contain credentials");
}

/**
 * Accepts a path relative to the project that stays inside it: not absolute (`/x`, `\x`, `C:x`,
 * `~/x`), no `..` segment that climbs above the project root, no control characters.
 *
 * @example
 * validateProjectRelativePath("docs/plan.md")   // returns
 * validateProjectRelativePath("docs/../../etc") // throws input_validation
 */
export function validateProjectRelativePath(filePath: string): void {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f]/.test(filePath)) throw invalid("target.filePath", "target.filePath must not contain control characters");
  if (/^(?:[\\/]|[A-Za-z]:|~(?:[\\/]|$))/.test(filePath) || /^[a-z][a-z0-9+.-]*:/i.test(filePath)) {
    throw invalid("target.filePath", "target.filePath must be relative to the project (no absolute paths)");
  }
  let depth = 0;
  for (const segment of filePath.split(/[\\/]/)) {
    if (segment === "..") depth--;
    else if (segment !== "" && segment !== ".") depth++;
    if (depth < 0) throw invalid("target.filePath", "target.filePath must stay inside the project (.. escapes it)");
  }
  if (depth === 0) throw invalid("target.filePath", "target.filePath must name a file inside the project");
}

/**
 * Validates a whole resource card, or throws `input_validation` naming the field.
 *
 * @example
 * validateResourceCard({ kind: "kv", operation: "read", target: { source: "local", projectId: "p", scope: "project", key: "a" } })
 */
export function validateResourceCard(card: unknown, options: CardValidationOptions = {}): ResourceCard {
  if (card === null || typeof card !== "object" || Array.isArray(card)) throw invalid("resourceCard", "resourceCard must be an object");
  const record = card as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!["kind", "operation", "title", "target"].includes(key)) throw invalid(`resourceCard.${key}`, `unknown card field ${key}`);
  }
  if (!(RESOURCE_CARD_KINDS as readonly unknown[]).includes(record.kind)) throw invalid("kind", `kind must be one of ${RESOURCE_CARD_KINDS.join(", ")}`);
  if (!(RESOURCE_CARD_OPERATIONS as readonly unknown[]).includes(record.operation)) {
    throw invalid("operation", `operation must be one of ${RESOURCE_CARD_OPERATIONS.join(", ")}`);
  }
  if (record.title !== undefined) {
    if (typeof record.title !== "string") throw invalid("title", "title must be a string");
    assertMaxCodePoints("title", record.title, CAPABILITY_LIMITS.cardTitle);
  }
  validateCardTarget(record.kind as ResourceCardKind, record.target, options);
  return record as unknown as ResourceCard;
}

/** A dropped card's reason, recorded in place of the card. */
export interface ResourceCardWarning {
  code: string;
  message: string;
  field?: string;
}

/**
 * Passes a tool result's `details.resourceCard` through unchanged when valid. When invalid, the
 * result stays, the card is dropped and `details.resourceCardWarning` records why (ours, CAP-9).
 * A failed result never carries a card: call this only for successes.
 *
 * @example
 * const { details, warning } = acceptToolResultCard(result.details, { agentProjectId: context.projectId });
 * if (warning) context.log.warn("resource card dropped", { ...warning });
 */
export function acceptToolResultCard(
  details: Record<string, unknown> | undefined,
  options: CardValidationOptions = {},
): { details: Record<string, unknown> | undefined; warning?: ResourceCardWarning } {
  if (details === undefined || details.resourceCard === undefined) return { details };
  try {
    validateResourceCard(details.resourceCard, options);
    return { details };
  } catch (error) {
    const warning: ResourceCardWarning = isSteamharnessError(error)
      ? { code: error.code, message: `resource card dropped: ${error.message}`, ...(error.field ? { field: error.field } : {}) }
      : { code: "internal", message: "resource card dropped" };
    const { resourceCard: _dropped, ...rest } = details;
    return { details: { ...rest, resourceCardWarning: warning }, warning };
  }
}
