/**
 * `workflow-ui_present_card` (CAP-10): explicit card commands sent in the tool result to a host
 * that shows cards; the message interface gains no fields. `upsert` creates or updates the card
 * with a stable `cardId`; `remove` accepts only `cardId`. `preview` applies to kanban, project and
 * browser cards and defaults to on — and `pinned` to on — for them; other cards default to
 * unpinned without preview. `pinned` is in the command only when the model set it, so a host can
 * tell an explicit pin (or unpin) from its own default. `kanban: { mode: "preview", values }` gives temporary JSON overrides
 * for the preview only (saving goes through `manage_configurations`). Nothing is written here.
 */
import { Type } from "@sinclair/typebox";
import { isJsonValue, type JsonValue } from "../json.js";
import { CAPABILITY_ADDRESSES, CAPABILITY_TOOL_IDS } from "./catalog.js";
import type { CapabilitySpec } from "./capability-spec.js";
import { RESOURCE_CARD_KINDS, ResourceCardTargetSchema, validateCardTarget, type ResourceCardKind } from "./resource-card.js";
import { JsonObjectField, StringEnum, capabilityParameters } from "./schema.js";
import { CAPABILITY_LIMITS as L } from "./text-limits.js";
import { createArgumentValidator, invalid } from "./validate-args.js";

const PREVIEW_KINDS: readonly ResourceCardKind[] = ["kanban", "project", "browser"];

const parameters = capabilityParameters({
  action: StringEnum(["upsert", "remove"] as const, { description: "upsert creates or updates the card; remove takes only cardId" }),
  cardId: Type.String({ minLength: 1, maxLength: L.cardId, description: "Stable id of the card" }),
  kind: StringEnum(RESOURCE_CARD_KINDS, { description: "What the card shows" }),
  title: Type.String({ maxLength: L.cardTitle, description: "Card title" }),
  target: ResourceCardTargetSchema,
  pinned: Type.Boolean({ description: "Pin the card for this client's session (default on for kanban, project and browser)" }),
  preview: Type.Boolean({ description: "Expand the preview (kanban, project, browser only; default on)" }),
  kanban: Type.Object(
    {
      mode: StringEnum(["preview"] as const, { description: "Only preview: temporary overrides, never saved" }),
      values: JsonObjectField("Configuration values to preview"),
    },
    { additionalProperties: false, description: "Kanban preview overrides (kanban cards)" },
  ),
});

interface PresentCardArgs {
  action: "upsert" | "remove";
  cardId: string;
  kind?: ResourceCardKind;
  title?: string;
  target?: Record<string, unknown>;
  pinned?: boolean;
  preview?: boolean;
  kanban?: { mode: "preview"; values: Record<string, unknown> };
}

const validate = createArgumentValidator<PresentCardArgs>(parameters, {
  upsert: { required: ["cardId", "kind", "target"], optional: ["title", "pinned", "preview", "kanban"] },
  remove: { required: ["cardId"], optional: [] },
});

/** The present-card capability. */
export const presentCardCapability: CapabilitySpec<PresentCardArgs> = {
  address: CAPABILITY_ADDRESSES.find((a) => a.toolId === CAPABILITY_TOOL_IDS.presentCard)!,
  label: "Present card",
  description:
    "Show, update or remove a resource card in the conversation. upsert: cardId, kind (knowledge, kv, project, kanban, browser, file), " +
    "target, optional title, pinned, preview (kanban/project/browser; on by default) and kanban { mode: preview, values }. remove: cardId only. " +
    "Targets: source (local, server, current) and projectId; browser: http(s) url; file: project-relative filePath; kv: scope, key, " +
    "conversationId for conversation scope; knowledge: documentId; kanban/project: optional configurationId.",
  parameters,
  replay: "safe",
  validate,
  async execute(args, runtime) {
    if (args.action === "remove") {
      const command = { action: "remove", cardId: args.cardId };
      return { result: command, cardCommand: command };
    }
    const kind = args.kind!;
    const target = validateCardTarget(kind, args.target, { agentProjectId: runtime.projectId });
    const previewKind = PREVIEW_KINDS.includes(kind);
    if (args.preview !== undefined && !previewKind) throw invalid("preview", `preview applies only to ${PREVIEW_KINDS.join(", ")} cards`);
    if (args.kanban !== undefined) {
      if (kind !== "kanban") throw invalid("kanban", "kanban applies only to kanban cards");
      if (!isJsonValue(args.kanban.values)) throw invalid("kanban.values", "kanban.values must be a JSON object");
    }
    const command: { [key: string]: JsonValue } = {
      action: "upsert",
      cardId: args.cardId,
      kind,
      target: target as { [key: string]: JsonValue },
    };
    if (args.pinned !== undefined) command.pinned = args.pinned;
    if (args.title !== undefined) command.title = args.title;
    if (previewKind) command.preview = args.preview ?? true;
    if (args.kanban !== undefined) command.kanban = args.kanban as { [key: string]: JsonValue };
    return { result: command, cardCommand: command };
  },
};
