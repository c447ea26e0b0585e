// The run's timeline (VIEW-7): one row per model request, tool call and wait, each bar placed
// and sized in proportion to the run's span, so a person sees where the seconds went.
import { h } from "preact";
import htm from "htm";
import { formatDuration, type ViewerRunTimeline, type ViewerTimelineBar } from "../../src/adapters/driving/viewer/run-timeline.js";

const html = htm.bind(h);

/** Beyond this many bars only the longest are drawn (a run of thousands of steps stays readable). */
const MAX_BARS = 300;
const KIND_LABEL = { model: "model", tool: "tool", wait: "waiting" } as const;

const lengthOf = (bar: ViewerTimelineBar, end: number): number => Math.max(0, (bar.endedAt ?? end) - bar.startedAt);

/** The waterfall of one run; nothing while it has no bar yet. */
export function Timeline({ timeline }: { timeline: ViewerRunTimeline }) {
  const { startedAt, endedAt, totals } = timeline;
  if (startedAt === null || endedAt === null || timeline.bars.length === 0) return null;
  const span = Math.max(1, endedAt - startedAt);
  let bars = timeline.bars;
  if (bars.length > MAX_BARS) {
    const kept = new Set([...bars].sort((a, b) => lengthOf(b, endedAt) - lengthOf(a, endedAt)).slice(0, MAX_BARS));
    bars = bars.filter((bar) => kept.has(bar));
  }
  const other = Math.max(0, endedAt - startedAt - totals.model - totals.tool - totals.wait);
  return html`<section class="timeline" data-testid="timeline" data-span=${span}>
    <h3>Timeline <span class="muted" data-testid="timeline-totals">${formatDuration(endedAt - startedAt)} in all · model ${formatDuration(totals.model)} · tools ${formatDuration(totals.tool)} · waiting ${formatDuration(totals.wait)}${other > 0 ? ` · other ${formatDuration(other)}` : ""}</span></h3>
    ${bars.length < timeline.bars.length ? html`<p class="muted">${timeline.bars.length - bars.length} shorter bars not drawn</p>` : ""}
    <div class="tl-rows">
      ${bars.map((bar) => {
        const length = lengthOf(bar, endedAt);
        const left = ((bar.startedAt - startedAt) / span) * 100;
        const width = (length / span) * 100;
        const title = `${KIND_LABEL[bar.kind]} · ${bar.label}: ${formatDuration(length)}, from +${formatDuration(bar.startedAt - startedAt)}${bar.endedAt === null ? " (still waiting)" : ""}${bar.estimated ? " (estimated from commit times)" : ""}`;
        return html`<div class="tl-row" data-testid="timeline-row" data-kind=${bar.kind} data-duration=${length} data-open=${bar.endedAt === null ? "true" : "false"} title=${title}>
          <div class="tl-label"><span class=${`tl-kind tl-${bar.kind}`}>${KIND_LABEL[bar.kind]}</span> ${bar.label}</div>
          <div class="tl-track"><div class=${`tl-bar tl-${bar.kind}${bar.outcome ? ` tl-${bar.outcome}` : ""}${bar.estimated ? " tl-estimated" : ""}`} data-testid="timeline-bar" style=${{ left: `${left}%`, width: `${width}%` }}></div></div>
          <div class="tl-time">${formatDuration(length)}${bar.endedAt === null ? "…" : ""}</div>
        </div>`;
      })}
    </div>
  </section>`;
}
