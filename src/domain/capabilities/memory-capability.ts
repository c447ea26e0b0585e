/**
 * `workflow-memory_global_memory`: cross-session memory (CAP-6, CAP-7), offered only with
 * `globalMemory: true`. It reuses the knowledge document store with ids `assistant-memory-<id>`,
 * so it has the knowledge store's location, retrieval and deletion semantics. `remember` refuses
 * content that looks like a credential. Cursors are `list:<…>` and `search:<…>`; a cursor of the
 * other action is refused explicitly.
 *
 * `memoryId` is optional on `remember`; the default is a hash of title and body, so remembering
 * the same note twice (or replaying the call after a crash) stores one memory.
 */
import { Type } from "@sinclair/typebox";
import { SteamharnessError } from "../errors.js";
import { stableHash } from "../stable-hash.js";
import { CAPABILITY_ADDRESSES, CAPABILITY_TOOL_IDS } from "./catalog.js";
import type { CapabilityOutcome, CapabilitySpec } from "./capability-spec.js";
import { detectCredential } from "./credential-detection.js";
import { CursorField, LimitField, MEMORY_DOCUMENT_PREFIX, QueryField, iso, searchDocuments } from "./knowledge-capability.js";
import { decodeOffsetCursor, encodeOffsetCursor, readRange, unwrapMemoryCursor } from "./paging.js";
import { StringEnum, capabilityParameters } from "./schema.js";
import { CAPABILITY_LIMITS as L } from "./text-limits.js";
import { createArgumentValidator, invalid } from "./validate-args.js";

const parameters = capabilityParameters({
  action: StringEnum(["remember", "get", "list", "search", "forget"] as const, { description: "What to do" }),
  memoryId: Type.String({ minLength: 1, maxLength: L.memoryId, description: "Memory id (get, forget; optional for remember)" }),
  title: Type.String({ maxLength: L.memoryTitle, description: "Short title (remember)" }),
  markdown: Type.String({ minLength: 1, maxLength: L.memoryMarkdown, description: "What to remember, in Markdown (remember)" }),
  query: QueryField,
  cursor: CursorField,
  limit: LimitField,
});

interface MemoryArgs {
  action: "remember" | "get" | "list" | "search" | "forget";
  memoryId?: string;
  title?: string;
  markdown?: string;
  query?: string;
  cursor?: string;
  limit?: number;
}

const validate = createArgumentValidator<MemoryArgs>(parameters, {
  remember: { required: ["markdown"], optional: ["memoryId", "title"] },
  get: { required: ["memoryId"], optional: [] },
  list: { required: [], optional: ["cursor", "limit"] },
  search: { required: ["query"], optional: ["cursor", "limit"] },
  forget: { required: ["memoryId"], optional: [] },
});

/** The global-memory capability. */
export const memoryCapability: CapabilitySpec<MemoryArgs> = {
  address: CAPABILITY_ADDRESSES.find((a) => a.toolId === CAPABILITY_TOOL_IDS.memory)!,
  label: "Global memory",
  description:
    "Remember facts across sessions. Actions: remember (markdown, title, memoryId), get (memoryId), list (cursor, limit), " +
    "search (query, cursor, limit), forget (memoryId). Never store secrets: content that looks like a password, key or token is refused. " +
    `Limits: markdown ${L.memoryMarkdown} characters, title ${L.memoryTitle}, memoryId ${L.memoryId}.`,
  parameters,
  replay: "safe",
  validate,
  async execute(args, runtime): Promise<CapabilityOutcome> {
    const { knowledge } = runtime.storage;
    switch (args.action) {
      case "remember": {
        for (const field of ["memoryId", "title", "markdown"] as const) {
          const finding = args[field] === undefined ? null : detectCredential(args[field]!);
          if (finding) {
            throw invalid(field, `${field} looks like it contains a credential (${finding.kind}); memory must never hold secrets`, { reason: "credential", kind: finding.kind });
          }
        }
        const title = args.title === undefined || args.title === "" ? firstLine(args.markdown!) : args.title;
        const memoryId = args.memoryId ?? stableHash(`${args.title ?? ""}\u0000${args.markdown}`);
        const doc = await knowledge.upsert(runtime.projectId, { documentId: MEMORY_DOCUMENT_PREFIX + memoryId, title, markdown: args.markdown! });
        return { result: { memoryId, title: doc.title, updatedAt: iso(doc.updatedAt) } };
      }
      case "get": {
        const doc = await knowledge.get(runtime.projectId, MEMORY_DOCUMENT_PREFIX + args.memoryId);
        if (!doc) throw new SteamharnessError("not_found", `no memory ${JSON.stringify(args.memoryId)}`, { field: "memoryId" });
        return { result: { memoryId: args.memoryId!, title: doc.title, markdown: doc.markdown, updatedAt: iso(doc.updatedAt) } };
      }
      case "forget": {
        const forgotten = await knowledge.delete(runtime.projectId, MEMORY_DOCUMENT_PREFIX + args.memoryId);
        return { result: { memoryId: args.memoryId!, forgotten } };
      }
      case "list": {
        const binding = `memory-list\u0000${runtime.projectId}`;
        const offset = decodeOffsetCursor(binding, unwrapMemoryCursor(args.cursor, "list"));
        const page = await readRange(
          (cursor, limit) => knowledge.list(runtime.projectId, { idPrefix: MEMORY_DOCUMENT_PREFIX, cursor, limit }),
          offset,
          args.limit ?? L.defaultPageLimit,
        );
        return {
          result: {
            memories: page.items.map((d) => ({ memoryId: memoryIdOf(d.documentId), title: d.title, updatedAt: iso(d.updatedAt) })),
            nextCursor: page.nextOffset === null ? null : `list:${encodeOffsetCursor(binding, page.nextOffset)}`,
          },
        };
      }
      case "search": {
        const page = await searchDocuments(runtime, args.query!, unwrapMemoryCursor(args.cursor, "search"), args.limit, { idPrefix: MEMORY_DOCUMENT_PREFIX });
        return {
          result: {
            hits: page.hits.map((h) => ({ memoryId: memoryIdOf(h.documentId), title: h.title, snippet: h.snippet, score: h.score })),
            nextCursor: page.nextCursor === null ? null : `search:${page.nextCursor}`,
          },
        };
      }
    }
  },
};

function memoryIdOf(documentId: string): string {
  return documentId.slice(MEMORY_DOCUMENT_PREFIX.length);
}

function firstLine(markdown: string): string {
  const line = markdown.split("\n").find((l) => l.trim() !== "") ?? "memory";
  return Array.from(line.replace(/^#+\s*/, "").trim()).slice(0, L.memoryTitle).join("") || "memory";
}
