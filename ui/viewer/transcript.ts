// A session as a transcript (UI-7): every run's messages, tool calls, decisions (who answered,
// how long the wait was) and compactions, in order, from GET /api/transcript, refreshed as the
// log grows. Everything is rendered as text (htm escapes), never as markup.
import { h } from "preact";
import htm from "htm";
import { hrefWithToken } from "./api.js";
import { Crumbs, useLiveSessionJson } from "./lists.js";
import { formatTime, Json, StatusBadge } from "./parts.js";
import { ForkButton } from "./forks.js";
import { formatDuration } from "../../src/adapters/driving/viewer/run-timeline.js";
import type { DecisionAnswerer } from "../../src/domain/agent/decision-answerer.js";
import type { TranscriptDecision, TranscriptEntry } from "../../src/domain/agent/transcript.js";

const html = htm.bind(h);

interface TranscriptBody {
  address: { projectId: string; conversationId?: string; sessionKey: string };
  projectName: string | null;
  conversationTitle: string | null;
  lastSeq: number;
  entries: TranscriptEntry[];
}

const KIND: Record<TranscriptDecision["kind"], string> = { tool_approval: "Approval", question: "Question", plan: "Plan" };

/** `viewer`, `gateway · key:acme / alice`. */
export const answererText = (by: DecisionAnswerer | null): string => (by === null ? "unknown" : `${by.surface}${by.tenant ? ` · ${by.tenant}` : ""}${by.subject ? ` / ${by.subject}` : ""}`);

function Entry({ entry, s }: { entry: TranscriptEntry; s: string }) {
  switch (entry.type) {
    case "run":
      return html`<div class="t-run" data-testid="t-run" data-run=${entry.runId}>
        <a href=${hrefWithToken(`#/session/${s}/run/${encodeURIComponent(entry.runId)}`)}><code>${entry.runId}</code></a> <${StatusBadge} status=${entry.status} />
        <span class="muted">${formatTime(entry.at)}${entry.model ? ` · ${entry.model}` : ""}${entry.errorCode ? ` · ${entry.errorCode}` : ""}</span>
      </div>`;
    case "message":
      return html`<div class=${`row t-message t-${entry.role}${entry.by ? " t-runtime" : ""}`} data-testid="t-message" data-role=${entry.role}>
        ${entry.reasoning ? html`<details class="t-reasoning"><summary>Reasoning</summary><div class="md">${entry.reasoning}</div></details>` : ""}
        ${entry.by ? html`<div class="muted">from the runtime</div>` : ""}
        <div class="md" data-testid="t-text">${entry.text}</div>
      </div>`;
    case "tool":
      return html`<div class="row t-tool" data-testid="t-tool" data-tool=${entry.name}>
        <div class="tool-head"><span class="tool-name">${entry.name}</span>${entry.result === null ? html`<span class="badge status-running">no result yet</span>` : entry.result.isError ? html`<span class="badge status-failed">error</span>` : ""}</div>
        <${Json} value=${entry.arguments} label="arguments" />
        ${entry.result === null ? "" : html`<details class="json"><summary>result</summary><pre data-testid="t-result">${entry.result.text}</pre></details>`}
      </div>`;
    case "decision":
      return html`<div class="row t-decision" data-testid="t-decision" data-outcome=${entry.outcome ?? "waiting"}>
        <div><b>${KIND[entry.kind]}</b> <span class="tool-name">${entry.subject}</span> <span class=${`badge decision-${entry.outcome === "approved" || entry.outcome === "answered" ? "approved" : entry.outcome === null ? "pending" : "declined"}`}>${entry.outcome ?? "waiting"}</span></div>
        ${entry.answer ? html`<div class="md">${entry.answer}</div>` : ""}
        <div class="muted">
          ${entry.outcome === null
            ? html`asked ${formatTime(entry.askedAt)}, waiting`
            : html`answered by <b data-testid="t-answered-by">${answererText(entry.answeredBy)}</b> after <span data-testid="t-wait" data-ms=${entry.waitMs}>${formatDuration(entry.waitMs ?? 0)}</span> (asked ${formatTime(entry.askedAt)})`}
        </div>
      </div>`;
    case "compaction":
      return html`<div class="row t-compaction" data-testid="t-compaction">
        <div class="muted">Context compacted (${entry.manual ? "asked for" : "automatic"}, ${entry.source === "model" ? "summary by the model" : "mechanical fold"}) at ${entry.usedBefore.toLocaleString("en-US")} tokens</div>
        <div class="md" data-testid="t-summary">${entry.summary}</div>
      </div>`;
  }
}

/** The transcript page of a session. */
export function TranscriptView({ s }: { s: string }) {
  const { body, error } = useLiveSessionJson<TranscriptBody>("/api/transcript", s);
  if (error) return html`<p class="error">${error}</p>`;
  if (!body) return html`<p class="muted">Loading…</p>`;
  return html`<div data-testid="transcript">
    <${Crumbs} body=${body} s=${s} tail="transcript" />
    ${body.entries.length === 0 ? html`<p class="muted">Nothing in this session yet.</p>` : ""}
    <div class="rows">${body.entries.map((entry) => html`<div class="t-entry" data-testid="t-entry" key=${`${entry.type}:${entry.seq}:${entry.type === "tool" ? entry.toolCallId : ""}`}><${Entry} entry=${entry} s=${s} />${entry.type === "run" ? "" : html`<${ForkButton} s=${s} seq=${entry.seq} />`}</div>`)}</div>
  </div>`;
}
