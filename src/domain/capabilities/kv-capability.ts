/**
 * `workflow-kv_kv_store`: the project's key-value store, in project or conversation scope
 * (CAP-0, CAP-4, CAP-5). Writes to the runtime's reserved keys are refused; conversation scope
 * needs the context's conversation.
 */
import { Type } from "@sinclair/typebox";
import type { KvNamespace } from "../../ports/kv-store.js";
import { SteamharnessError } from "../errors.js";
import { isJsonValue, type JsonValue } from "../json.js";
import { STORE_LIMITS } from "../limits.js";
import { CAPABILITY_ADDRESSES, CAPABILITY_TOOL_IDS } from "./catalog.js";
import type { CapabilityOutcome, CapabilityRuntime, CapabilitySpec } from "./capability-spec.js";
import { CursorField, LimitField, iso, truncateTitle } from "./knowledge-capability.js";
import { decodeOffsetCursor, encodeOffsetCursor, readRange } from "./paging.js";
import { assertWritableKvKey, type KvScope } from "./reserved-keys.js";
import type { ResourceCard } from "./resource-card.js";
import { StringEnum, capabilityParameters } from "./schema.js";
import { CAPABILITY_LIMITS as L } from "./text-limits.js";
import { createArgumentValidator, invalid } from "./validate-args.js";

const parameters = capabilityParameters({
  action: StringEnum(["get", "set", "delete", "list"] as const, { description: "What to do" }),
  scope: StringEnum(["project", "conversation"] as const, { description: "project (default) or conversation", default: "project" }),
  key: Type.String({ minLength: 1, maxLength: L.kvKey, description: `Key, at most ${L.kvKey} characters (get, set, delete)` }),
  value: Type.Unknown({ description: "Any JSON value (set)" }),
  prefix: Type.String({ maxLength: L.kvKey, description: "Only keys starting with this (list)" }),
  cursor: CursorField,
  limit: LimitField,
});

interface KvArgs {
  action: "get" | "set" | "delete" | "list";
  scope?: KvScope;
  key?: string;
  value?: unknown;
  prefix?: string;
  cursor?: string;
  limit?: number;
}

const validate = createArgumentValidator<KvArgs>(parameters, {
  get: { required: ["key"], optional: ["scope"] },
  set: { required: ["key", "value"], optional: ["scope"] },
  delete: { required: ["key"], optional: ["scope"] },
  list: { required: [], optional: ["scope", "prefix", "cursor", "limit"] },
});

const utf8 = new TextEncoder();

/** The KV capability. */
export const kvCapability: CapabilitySpec<KvArgs> = {
  address: CAPABILITY_ADDRESSES.find((a) => a.toolId === CAPABILITY_TOOL_IDS.kv)!,
  label: "Key-value store",
  description:
    "Store small JSON values by key. Actions: get (key), set (key, value), delete (key), list (prefix, cursor, limit). " +
    "scope is project (default, shared by every conversation) or conversation (this conversation only). " +
    `Keys are at most ${L.kvKey} characters; runtime keys (tokenUsage.total, tokenUsage.entry.*, and in conversation scope ` +
    "conversation.state and agent.*) are read-only.",
  parameters,
  replay: "safe",
  validate,
  async execute(args, runtime): Promise<CapabilityOutcome> {
    const scope: KvScope = args.scope ?? "project";
    const ns = namespaceOf(runtime, scope);
    const { kv } = runtime.storage;
    switch (args.action) {
      case "get": {
        const entry = await kv.get(ns, args.key!);
        if (!entry) throw new SteamharnessError("not_found", `no ${scope} key ${JSON.stringify(args.key)}`, { field: "key" });
        return { result: { scope, key: entry.key, value: entry.value, updatedAt: iso(entry.updatedAt) }, resourceCard: kvCard(runtime, "read", ns, scope, entry.key) };
      }
      case "set": {
        assertWritableKvKey(args.key!, scope);
        const value = checkValue(args.value);
        await kv.set(ns, args.key!, value);
        return { result: { scope, key: args.key!, stored: true }, resourceCard: kvCard(runtime, "write", ns, scope, args.key!) };
      }
      case "delete": {
        assertWritableKvKey(args.key!, scope);
        const deleted = await kv.delete(ns, args.key!);
        return { result: { scope, key: args.key!, deleted } };
      }
      case "list": {
        const prefix = args.prefix ?? "";
        const binding = `kv-list\u0000${runtime.projectId}\u0000${scope}\u0000${ns.conversationId ?? ""}\u0000${prefix}`;
        const offset = decodeOffsetCursor(binding, args.cursor);
        const page = await readRange((cursor, limit) => kv.list(ns, { prefix: prefix === "" ? undefined : prefix, cursor, limit }), offset, args.limit ?? L.defaultPageLimit);
        return {
          result: {
            scope,
            keys: page.items.map((e) => ({ key: e.key, updatedAt: iso(e.updatedAt) })),
            nextCursor: page.nextOffset === null ? null : encodeOffsetCursor(binding, page.nextOffset),
          },
        };
      }
    }
  },
};

function namespaceOf(runtime: CapabilityRuntime, scope: KvScope): KvNamespace {
  if (scope === "project") return { projectId: runtime.projectId };
  if (runtime.conversationId === undefined) throw invalid("scope", "conversation scope needs a conversation, and this run has none");
  return { projectId: runtime.projectId, conversationId: runtime.conversationId };
}

function checkValue(value: unknown): JsonValue {
  if (!isJsonValue(value)) throw invalid("value", "value must be JSON (finite numbers, plain objects and arrays, no cycles)");
  const bytes = utf8.encode(JSON.stringify(value)).length;
  if (bytes > STORE_LIMITS.kvValueBytes) {
    throw invalid("value", `value is larger than ${STORE_LIMITS.kvValueBytes} bytes as JSON: got ${bytes}`, { limit: STORE_LIMITS.kvValueBytes, length: bytes });
  }
  return value;
}

function kvCard(runtime: CapabilityRuntime, operation: "read" | "write", ns: KvNamespace, scope: KvScope, key: string): ResourceCard {
  const target: ResourceCard["target"] = { source: runtime.cardSource ?? "local", projectId: runtime.projectId, scope, key };
  if (ns.conversationId !== undefined) target.conversationId = ns.conversationId;
  return { kind: "kv", operation, title: truncateTitle(key), target };
}
