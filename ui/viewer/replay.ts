// A run's replays (issue 46 item 5, REPLAY-2): on a replay's page, its structured diff beside the
// original (the one `replayRun` returns: status, final text, tool sequence, approvals, tokens,
// cost, latency, steps) with a link to the original run; on an original's page, links to its
// replays. Everything is rendered as text (htm escapes).
import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import htm from "htm";
import { getJson, hrefWithToken } from "./api.js";
import { formatCounts } from "./parts.js";
import { formatDuration } from "../../src/adapters/driving/viewer/run-timeline.js";
import type { ViewerReplay } from "../../src/adapters/driving/viewer/viewer-replays.js";
import type { RunDiff } from "../../src/domain/time-travel/replay-diff.js";

const html = htm.bind(h);

const runHref = (s: string, runId: string) => hrefWithToken(`#/session/${s}/run/${encodeURIComponent(runId)}`);
const tokens = (counts: RunDiff["tokens"]["original"]) => formatCounts({ ...counts, cacheRead: 0, cacheWrite: 0 });
const cost = (usd: number | null) => (usd === null ? "—" : `$${usd.toFixed(6)}`);
const lines = (values: string[]) => (values.length === 0 ? html`<span class="muted">none</span>` : html`<ol>${values.map((value, index) => html`<li key=${index}><code>${value}</code></li>`)}</ol>`);

/** The diff's rows: a label and how each side is drawn. */
function rows(diff: RunDiff) {
  return [
    { field: "status", label: "Status", equal: diff.status.equal, original: diff.status.original, replay: diff.status.replay },
    { field: "finalText", label: "Final text", equal: diff.finalText.equal, original: diff.finalText.original, replay: diff.finalText.replay },
    { field: "toolSequence", label: "Tool sequence", equal: diff.toolSequence.equal, original: lines(diff.toolSequence.original), replay: lines(diff.toolSequence.replay) },
    { field: "approvals", label: "Approvals", equal: diff.approvals.equal, original: lines(diff.approvals.original), replay: lines(diff.approvals.replay) },
    { field: "tokens", label: "Tokens", equal: diff.tokens.equal, original: tokens(diff.tokens.original), replay: `${tokens(diff.tokens.replay)} (${diff.tokens.delta >= 0 ? "+" : ""}${diff.tokens.delta})` },
    { field: "costUsd", label: "Cost", equal: diff.costUsd.equal, original: cost(diff.costUsd.original), replay: cost(diff.costUsd.replay) },
    { field: "latencyMs", label: "Latency", equal: diff.latencyMs.equal, original: formatDuration(diff.latencyMs.original), replay: formatDuration(diff.latencyMs.replay) },
    { field: "steps", label: "Steps", equal: diff.steps.equal, original: String(diff.steps.original), replay: String(diff.steps.replay) },
  ];
}

/** The replay facts of run `runId` of session `s` (nothing for a run that is no replay and has none). */
export function ReplayPanel({ s, runId, settled }: { s: string; runId: string; settled: boolean }) {
  const [body, setBody] = useState<ViewerReplay | null>(null);
  // Read again when the run settles, so a replay watched live ends with its final diff.
  useEffect(() => {
    getJson<ViewerReplay>("/api/replay", { s, runId }).then(setBody, () => undefined);
  }, [s, runId, settled]);
  if (!body || (body.replayOf === null && body.replays.length === 0)) return "";
  const { replayOf } = body;
  return html`<section class="replay" data-testid="replay">
    ${replayOf
      ? html`<h3>Replay of <a data-testid="replay-original" href=${runHref(replayOf.s, replayOf.runId)}>${replayOf.address.sessionKey} · ${replayOf.runId}</a> <span class="muted">tools ${replayOf.tools}</span></h3>
          <p data-testid="replay-same">${replayOf.diff.same ? "Behaved as the original (same status, final text and tool sequence)." : "Differs from the original."}</p>
          <table class="replay-diff" data-testid="replay-diff"><thead><tr><th></th><th>Original</th><th>Replay</th></tr></thead><tbody>
            ${rows(replayOf.diff).map((row) => html`<tr key=${row.field} data-testid="diff-row" data-field=${row.field} data-equal=${String(row.equal)} class=${row.equal ? "" : "differs"}><th>${row.label}</th><td data-testid="diff-original">${row.original}</td><td data-testid="diff-replay">${row.replay}</td></tr>`)}
          </tbody></table>`
      : ""}
    ${body.replays.length > 0
      ? html`<p>Replays of this run: ${body.replays.map((replay, index) => html`${index > 0 ? ", " : ""}<a data-testid="replay-link" href=${runHref(replay.s, replay.runId)} key=${replay.s}>${replay.runId}</a>`)}</p>`
      : ""}
  </section>`;
}
