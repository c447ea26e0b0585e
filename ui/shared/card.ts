import { h } from "preact";
import htm from "htm";

const html = htm.bind(h);

/** A resource card (CAP-9) or a present_card upsert (CAP-10), as both the viewer and the MCP Apps view draw it. */
export interface CardLike {
  kind?: string;
  operation?: string;
  title?: string;
  cardId?: string;
  pinned?: boolean;
  preview?: boolean;
  target?: Record<string, unknown>;
}

const LABELS: Record<string, string> = { knowledge: "Document", kv: "KV entry", project: "Project", kanban: "Kanban", browser: "Web page", file: "File" };

/** What a card points at, in one line. */
export function cardTargetText(card: CardLike): string {
  const target = card.target ?? {};
  const parts: string[] = [];
  if (typeof target.url === "string") parts.push(target.url);
  if (typeof target.filePath === "string") parts.push(target.filePath);
  if (typeof target.documentId === "string") parts.push(target.documentId);
  if (typeof target.key === "string") parts.push(`${String(target.scope ?? "project")}: ${target.key}`);
  if (typeof target.configurationId === "string") parts.push(`configuration ${target.configurationId}`);
  if (typeof target.projectId === "string") parts.push(`project ${target.projectId}`);
  if (typeof target.source === "string") parts.push(`(${target.source})`);
  return parts.join(" · ");
}

/** One card. Links open only http(s) targets; everything else is shown, never followed. */
export function Card({ card, note }: { card: CardLike; note?: string }) {
  const url = typeof card.target?.url === "string" && /^https?:\/\//.test(card.target.url) ? card.target.url : null;
  const title = card.title ?? cardTargetText(card) ?? card.cardId ?? "card";
  return html`<div class=${`card kind-${card.kind ?? "unknown"}`} data-testid="card">
    <div class="card-head">
      <span class="card-kind">${LABELS[card.kind ?? ""] ?? card.kind ?? "Card"}</span>
      ${card.operation ? html`<span class="card-op">${card.operation}</span>` : ""}
      ${card.pinned ? html`<span class="card-op">pinned</span>` : ""}
      ${note ? html`<span class="card-op">${note}</span>` : ""}
    </div>
    <div class="card-title" data-testid="card-title">${url ? html`<a href=${url} target="_blank" rel="noopener noreferrer">${title}</a>` : title}</div>
    <div class="card-target">${cardTargetText(card)}</div>
  </div>`;
}
