/**
 * `workflow-knowledge_knowledge_documents`: the project's knowledge documents (CAP-0, CAP-4).
 * Ids starting with `assistant-memory-` belong to global memory (CAP-6): plain listings and
 * searches exclude them, and get, upsert and delete refuse them, so memory can neither leak into
 * nor be edited through this tool.
 */
import { Type } from "@sinclair/typebox";
import type { KnowledgeFilter, KnowledgeSearchHit } from "../../ports/knowledge-store.js";
import { SteamharnessError } from "../errors.js";
import type { JsonValue } from "../json.js";
import { CAPABILITY_ADDRESSES, CAPABILITY_TOOL_IDS } from "./catalog.js";
import type { CapabilityOutcome, CapabilityRuntime, CapabilitySpec } from "./capability-spec.js";
import { decodeOffsetCursor, encodeOffsetCursor, readRange } from "./paging.js";
import type { ResourceCard } from "./resource-card.js";
import { StringEnum, capabilityParameters } from "./schema.js";
import { CAPABILITY_LIMITS as L } from "./text-limits.js";
import { createArgumentValidator, invalid } from "./validate-args.js";

/** Prefix of every global-memory document id in the knowledge store. */
export const MEMORY_DOCUMENT_PREFIX = "assistant-memory-";

/** Shared field schemas (memory reuses `query`, `cursor` and `limit`). */
export const QueryField = Type.String({ minLength: 1, maxLength: L.query, description: `Full-text query, at most ${L.query} characters` });
export const CursorField = Type.String({ minLength: 1, maxLength: L.cursor, description: "nextCursor from a previous call of the same action" });
export const LimitField = Type.Integer({ minimum: 1, maximum: L.pageLimit, description: `Page size, 1–${L.pageLimit} (default ${L.defaultPageLimit})` });

const parameters = capabilityParameters({
  action: StringEnum(["list", "get", "search", "upsert", "delete"] as const, { description: "What to do" }),
  documentId: Type.String({ minLength: 1, maxLength: L.knowledgeDocumentId, description: "Document id (get, upsert, delete)" }),
  title: Type.String({ maxLength: L.knowledgeTitle, description: "Document title (upsert; defaults to the id)" }),
  markdown: Type.String({ maxLength: L.knowledgeMarkdown, description: "Document body in Markdown (upsert)" }),
  query: QueryField,
  cursor: CursorField,
  limit: LimitField,
});

interface KnowledgeArgs {
  action: "list" | "get" | "search" | "upsert" | "delete";
  documentId?: string;
  title?: string;
  markdown?: string;
  query?: string;
  cursor?: string;
  limit?: number;
}

const validate = createArgumentValidator<KnowledgeArgs>(parameters, {
  list: { required: [], optional: ["cursor", "limit"] },
  get: { required: ["documentId"], optional: [] },
  search: { required: ["query"], optional: ["cursor", "limit"] },
  upsert: { required: ["documentId", "markdown"], optional: ["title"] },
  delete: { required: ["documentId"], optional: [] },
});

/** The knowledge-documents capability. */
export const knowledgeCapability: CapabilitySpec<KnowledgeArgs> = {
  address: CAPABILITY_ADDRESSES.find((a) => a.toolId === CAPABILITY_TOOL_IDS.knowledge)!,
  label: "Knowledge documents",
  description:
    "Read and write the project's knowledge documents (Markdown). Actions: list (cursor, limit), get (documentId), " +
    "search (query, cursor, limit), upsert (documentId, markdown, title), delete (documentId). " +
    `Limits: documentId and title ${L.knowledgeTitle} characters, markdown ${L.knowledgeMarkdown}, query ${L.query}, cursor ${L.cursor}.`,
  parameters,
  replay: "safe",
  validate,
  async execute(args, runtime): Promise<CapabilityOutcome> {
    const { knowledge } = runtime.storage;
    if (args.documentId !== undefined && args.documentId.startsWith(MEMORY_DOCUMENT_PREFIX)) {
      throw invalid("documentId", `documentId must not start with ${MEMORY_DOCUMENT_PREFIX}: those documents belong to global memory`);
    }
    switch (args.action) {
      case "list": {
        const binding = `knowledge-list\u0000${runtime.projectId}`;
        const offset = decodeOffsetCursor(binding, args.cursor);
        const filter: KnowledgeFilter = { excludeIdPrefix: MEMORY_DOCUMENT_PREFIX };
        const page = await readRange((cursor, limit) => knowledge.list(runtime.projectId, { ...filter, cursor, limit }), offset, args.limit ?? L.defaultPageLimit);
        return {
          result: {
            documents: page.items.map((d) => ({ documentId: d.documentId, title: d.title, updatedAt: iso(d.updatedAt) })),
            nextCursor: page.nextOffset === null ? null : encodeOffsetCursor(binding, page.nextOffset),
          },
        };
      }
      case "search": {
        const page = await searchDocuments(runtime, args.query!, args.cursor, args.limit, { excludeIdPrefix: MEMORY_DOCUMENT_PREFIX });
        return { result: { hits: page.hits.map((h) => ({ documentId: h.documentId, title: h.title, snippet: h.snippet, score: h.score })), nextCursor: page.nextCursor } };
      }
      case "get": {
        const doc = await knowledge.get(runtime.projectId, args.documentId!);
        if (!doc) throw new SteamharnessError("not_found", `no knowledge document ${JSON.stringify(args.documentId)}`, { field: "documentId" });
        return {
          result: { documentId: doc.documentId, title: doc.title, markdown: doc.markdown, updatedAt: iso(doc.updatedAt) },
          resourceCard: knowledgeCard(runtime, "read", doc.documentId, doc.title),
        };
      }
      case "upsert": {
        const title = args.title === undefined || args.title === "" ? args.documentId! : args.title;
        const doc = await knowledge.upsert(runtime.projectId, { documentId: args.documentId!, title, markdown: args.markdown! });
        return {
          result: { documentId: doc.documentId, title: doc.title, updatedAt: iso(doc.updatedAt) },
          resourceCard: knowledgeCard(runtime, "write", doc.documentId, doc.title),
        };
      }
      case "delete": {
        const deleted = await knowledge.delete(runtime.projectId, args.documentId!);
        return { result: { documentId: args.documentId!, deleted } };
      }
    }
  },
};

/**
 * Full-text search with capability cursors bound to the query and the id filter; shared by
 * knowledge (excluding memory) and memory (only memory).
 *
 * @example
 * const page = await searchDocuments(runtime, "roadmap", undefined, 10, { excludeIdPrefix: MEMORY_DOCUMENT_PREFIX });
 */
export async function searchDocuments(
  runtime: CapabilityRuntime,
  query: string,
  cursor: string | undefined,
  limit: number | undefined,
  filter: KnowledgeFilter,
): Promise<{ hits: KnowledgeSearchHit[]; nextCursor: string | null }> {
  const binding = `knowledge-search\u0000${runtime.projectId}\u0000${filter.idPrefix ?? ""}\u0000${filter.excludeIdPrefix ?? ""}\u0000${query}`;
  const offset = decodeOffsetCursor(binding, cursor);
  const page = await readRange(
    (storeCursor, storeLimit) => runtime.storage.knowledge.search(runtime.projectId, query, { ...filter, cursor: storeCursor, limit: storeLimit }),
    offset,
    limit ?? L.defaultPageLimit,
  );
  return { hits: page.items, nextCursor: page.nextOffset === null ? null : encodeOffsetCursor(binding, page.nextOffset) };
}

function knowledgeCard(runtime: CapabilityRuntime, operation: "read" | "write", documentId: string, title: string): ResourceCard {
  return {
    kind: "knowledge",
    operation,
    title: truncateTitle(title),
    target: { source: runtime.cardSource ?? "local", projectId: runtime.projectId, documentId },
  };
}

/**
 * A card title of at most 200 code points (longer titles are cut, never rejected).
 *
 * @example
 * truncateTitle("x".repeat(300)).length // 200
 */
export function truncateTitle(title: string): string {
  const points = Array.from(title);
  return points.length <= L.cardTitle ? title : points.slice(0, L.cardTitle).join("");
}

/**
 * Epoch milliseconds as an ISO-8601 string, the form the model reads.
 *
 * @example
 * iso(0) // "1970-01-01T00:00:00.000Z"
 */
export function iso(epochMs: number): JsonValue {
  return new Date(epochMs).toISOString();
}
