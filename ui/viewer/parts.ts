import { h } from "preact";
import htm from "htm";

const html = htm.bind(h);

export interface Counts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
}

export const formatNumber = (value: number): string => value.toLocaleString("en-US");
export const formatCounts = (counts: Counts): string => `${formatNumber(counts.total)} (in ${formatNumber(counts.input)} · out ${formatNumber(counts.output)}${counts.cacheRead ? ` · cache ${formatNumber(counts.cacheRead)}` : ""})`;
/** `1 tool call`, `2 tool calls` (VIEW-8). */
export const plural = (count: number, noun: string): string => `${formatNumber(count)} ${noun}${count === 1 ? "" : "s"}`;
export const formatTime = (at: number): string => new Date(at).toLocaleString("en-GB", { hour12: false });

export function StatusBadge({ status }: { status: string }) {
  return html`<span class=${`badge status-${status}`} data-testid="status">${status}</span>`;
}

/** The context ring (AG-7) as a gauge: used of total tokens. */
export function Gauge({ used, total }: { used: number; total: number }) {
  const share = total > 0 ? Math.min(1, used / total) : 0;
  const radius = 26;
  const length = 2 * Math.PI * radius;
  const percent = Math.round(share * 1000) / 10;
  return html`<div class="gauge" data-testid="gauge" data-value=${used} data-total=${total} title=${`${formatNumber(used)} of ${formatNumber(total)} tokens`}>
    <svg viewBox="0 0 64 64" width="64" height="64" role="img" aria-label=${`context ${percent}% used`}>
      <circle cx="32" cy="32" r=${radius} class="gauge-track" />
      <circle cx="32" cy="32" r=${radius} class=${`gauge-fill ${share > 0.9 ? "hot" : ""}`} stroke-dasharray=${`${share * length} ${length}`} transform="rotate(-90 32 32)" />
      <text x="32" y="36" text-anchor="middle">${percent}%</text>
    </svg>
    <div class="gauge-text"><b data-testid="gauge-used">${formatNumber(used)}</b><span class="muted"> / ${formatNumber(total)} tokens</span></div>
  </div>`;
}

/** A JSON value, compact, in a folded block. */
export function Json({ value, label }: { value: unknown; label: string }) {
  return html`<details class="json"><summary>${label}</summary><pre>${JSON.stringify(value, null, 2)}</pre></details>`;
}
