/**
 * The host's tool catalog (`executor.tools`, CAP-3) as a project declares it: one TypeBox schema
 * for conversation executors (CONV-1) and workflow definitions (WF-2), and the checks both
 * apply, so a mistyped catalog fails when the project loads, naming the entry at fault.
 */
import { Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { SteamharnessError } from "./errors.js";
import type { ToolCatalogEntry } from "./node-context.js";
import { describeSchemaError } from "./schema-errors.js";

/** One catalog entry (`executor.tools`): a tool id the project declares, exposed and/or auto-approved. */
export const ToolCatalogEntrySchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 200, description: "Tool id (e.g. workflow-kv_kv_store)" }),
    enabled: Type.Optional(Type.Boolean({ description: "Exposed to the model (default true)" })),
    autoApprove: Type.Optional(Type.Boolean({ description: "Approved without asking a person (default false)" })),
  },
  { additionalProperties: false },
);

/** The catalog: at most 500 entries. */
export const ToolCatalogSchema = Type.Array(ToolCatalogEntrySchema, { maxItems: 500 });

/**
 * Checks a declared catalog and returns it with `enabled` and `autoApprove` filled in. Throws
 * `input_validation` with `field` naming the entry (`executor.tools[1].autoApprove`): a malformed
 * entry, an id declared twice, or a disabled entry that asks for auto-approval.
 *
 * @example
 * parseToolCatalog([{ id: "workflow-kv_kv_store", autoApprove: true }], "executor.tools", "[steamharness] [workflow]")
 * // [{ id: "workflow-kv_kv_store", enabled: true, autoApprove: true }]
 */
export function parseToolCatalog(value: unknown, root: string, prefix: string): ToolCatalogEntry[] {
  const invalid = (field: string, message: string) => new SteamharnessError("input_validation", `${prefix} ${field}: ${message}`, { field });
  if (!Value.Check(ToolCatalogSchema, value)) {
    const first = Value.Errors(ToolCatalogSchema, value).First();
    const at = (first?.path ?? "").split("/").slice(1).map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`)).join("");
    throw invalid(`${root}${at}`, `${first ? describeSchemaError(first) : "invalid"} (a list of { id, enabled?, autoApprove? })`);
  }
  const seen = new Set<string>();
  return value.map((tool, index) => {
    if (seen.has(tool.id)) throw invalid(`${root}[${index}].id`, `tool "${tool.id}" is declared twice`);
    seen.add(tool.id);
    const enabled = tool.enabled ?? true;
    if (!enabled && tool.autoApprove === true) {
      throw invalid(`${root}[${index}].autoApprove`, `tool "${tool.id}" is disabled; autoApprove would never apply — remove one of them`);
    }
    return { id: tool.id, enabled, autoApprove: tool.autoApprove ?? false };
  });
}
