import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import htm from "htm";
import { getJson, hrefWithToken, openStream } from "./api.js";
import { formatCounts, formatTime, StatusBadge } from "./parts.js";
import type { ViewerRunSummary } from "../../src/adapters/in/viewer/run-index.js";

const html = htm.bind(h);

interface ProjectsBody {
  projects: Array<{ projectId: string; updatedAt: number; conversations: Array<{ conversationId: string | null; updatedAt: number; sessions: Array<{ id: string; sessionKey: string; updatedAt: number }> }> }>;
}

/** Projects → conversations → sessions, from the session catalog. */
export function ProjectList() {
  const [body, setBody] = useState<ProjectsBody | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    getJson<ProjectsBody>("/api/projects").then(setBody, (e: Error) => setError(e.message));
  }, []);
  if (error) return html`<p class="error">${error}</p>`;
  if (!body) return html`<p class="muted">Loading…</p>`;
  if (body.projects.length === 0) return html`<p class="muted">No sessions in this store yet.</p>`;
  return html`<div class="projects">
    ${body.projects.map(
      (project) => html`<section class="project" data-testid="project">
        <h2>Project <code>${project.projectId}</code></h2>
        ${project.conversations.map(
          (conversation) => html`<div class="conversation" data-testid="conversation">
            <h3>${conversation.conversationId === null ? html`<span class="muted">no conversation</span>` : html`Conversation <code>${conversation.conversationId}</code>`}</h3>
            <ul>
              ${conversation.sessions.map(
                (session) => html`<li><a data-testid="session-link" href=${hrefWithToken(`#/session/${session.id}`)}>${session.sessionKey}</a> <span class="muted">${formatTime(session.updatedAt)}</span></li>`,
              )}
            </ul>
          </div>`,
        )}
      </section>`,
    )}
  </div>`;
}

interface SessionBody {
  id: string;
  address: { projectId: string; conversationId?: string; sessionKey: string };
  lastSeq: number;
  runs: ViewerRunSummary[];
}

/** A session's runs, newest first, refreshed as the log grows. */
export function SessionView({ s }: { s: string }) {
  const [body, setBody] = useState<SessionBody | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let close = () => {};
    let stopped = false;
    getJson<SessionBody>("/api/session", { s }).then((first) => {
      if (stopped) return;
      setBody(first);
      close = openStream(s, first.lastSeq, () => getJson<SessionBody>("/api/session", { s }).then(setBody, () => undefined));
    }, (e: Error) => setError(e.message));
    return () => {
      stopped = true;
      close();
    };
  }, [s]);
  if (error) return html`<p class="error">${error}</p>`;
  if (!body) return html`<p class="muted">Loading…</p>`;
  const { address } = body;
  return html`<div>
    <p class="crumbs"><a href=${hrefWithToken("#/")}>Sessions</a> › <code>${address.projectId}</code> › ${address.conversationId ? html`<code>${address.conversationId}</code> › ` : ""}<b>${address.sessionKey}</b></p>
    <p class="muted">${body.lastSeq} events · ${body.runs.length} runs</p>
    <table class="runs" data-testid="runs">
      <thead><tr><th>Run</th><th>Prompt</th><th>Status</th><th>Started</th><th>Tools</th><th>Tokens (turn)</th></tr></thead>
      <tbody>
        ${body.runs.map(
          (run) => html`<tr data-testid="run-row">
            <td><a data-testid="run-link" href=${hrefWithToken(`#/session/${s}/run/${encodeURIComponent(run.runId)}`)}><code>${run.runId}</code></a></td>
            <td class="prompt">${run.prompt ?? ""}</td>
            <td><${StatusBadge} status=${run.status} />${run.waits.length > 0 ? html` <span class="badge wait">${run.waits.length} waiting</span>` : ""}</td>
            <td>${formatTime(run.startedAt)}</td>
            <td>${run.toolCallCount}</td>
            <td>${formatCounts(run.usage)}</td>
          </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}
