import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import htm from "htm";
import { getJson, hrefWithToken, openStream } from "./api.js";
import { formatCounts, formatTime, plural, StatusBadge } from "./parts.js";
import { ForkPanel } from "./forks.js";
import type { ViewerRunSummary } from "../../src/adapters/driving/viewer/run-index.js";
import { formatDuration } from "../../src/adapters/driving/viewer/run-timeline.js";
import type { ViewerListedProject } from "../../src/adapters/driving/viewer/viewer-listing.js";

const html = htm.bind(h);

interface ProjectsBody {
  projects: ViewerListedProject[];
}

/** A name with its id beside it (VIEW-8); the id alone where there is no name. */
function Named({ name, id, testid }: { name: string | null; id: string; testid: string }) {
  return name ? html`<span data-testid=${testid}>${name}</span><code class="name-id muted" data-testid=${`${testid}-id`}>${id}</code>` : html`<code data-testid=${`${testid}-id`}>${id}</code>`;
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
        <h2>Project <${Named} name=${project.name} id=${project.projectId} testid="project-name" /></h2>
        ${project.conversations.map(
          (conversation) => html`<div class="conversation" data-testid="conversation">
            <h3>${conversation.conversationId === null ? html`<span class="muted">no conversation</span>` : html`Conversation <${Named} name=${conversation.title} id=${conversation.conversationId} testid="conversation-title" />`}</h3>
            <ul>
              ${conversation.sessions.map(
                (session) => html`<li data-testid="session" data-waiting=${session.waiting ? "true" : "false"}><a data-testid="session-link" href=${hrefWithToken(`#/session/${session.id}`)}>${session.sessionKey}</a> <a data-testid="transcript-link" class="muted" href=${hrefWithToken(`#/session/${session.id}/transcript`)}>transcript</a>${session.waiting ? html` <span class="badge wait" data-testid="session-waiting">waiting for you</span>` : ""} <span class="muted">${formatTime(session.updatedAt)}</span></li>`,
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
  projectName: string | null;
  conversationTitle: string | null;
  lastSeq: number;
  runs: ViewerRunSummary[];
}

/** The path of a session page: Sessions › project › conversation › session, by name where there is one. */
export function Crumbs({ body, s, tail }: { body: Pick<SessionBody, "address" | "projectName" | "conversationTitle">; s?: string; tail?: unknown }) {
  const { address } = body;
  const session = s === undefined ? html`<b>${address.sessionKey}</b>` : html`<a href=${hrefWithToken(`#/session/${s}`)}>${address.sessionKey}</a>`;
  return html`<p class="crumbs" data-testid="crumbs"><a href=${hrefWithToken("#/")}>Sessions</a> › <span title=${address.projectId}>${body.projectName ?? html`<code>${address.projectId}</code>`}</span> › ${address.conversationId ? html`<span title=${address.conversationId}>${body.conversationTitle ?? html`<code>${address.conversationId}</code>`}</span> › ` : ""}${session}${tail ? html` › ${tail}` : ""}</p>`;
}

/** The JSON of `path` for session `s`, read again each time its log grows (until the page leaves it). */
export function useLiveSessionJson<T extends { lastSeq: number }>(path: string, s: string): { body: T | null; error: string | null } {
  const [body, setBody] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let close = () => {};
    let stopped = false;
    getJson<T>(path, { s }).then((first) => {
      if (stopped) return;
      setBody(first);
      close = openStream(s, first.lastSeq, () => getJson<T>(path, { s }).then(setBody, () => undefined));
    }, (e: Error) => setError(e.message));
    return () => {
      stopped = true;
      close();
    };
  }, [path, s]);
  return { body, error };
}

/** A session's runs, newest first, refreshed as the log grows. */
export function SessionView({ s }: { s: string }) {
  const { body, error } = useLiveSessionJson<SessionBody>("/api/session", s);
  if (error) return html`<p class="error">${error}</p>`;
  if (!body) return html`<p class="muted">Loading…</p>`;
  return html`<div>
    <${Crumbs} body=${body} />
    <p class="muted">${plural(body.lastSeq, "event")} · ${plural(body.runs.length, "run")} · <a data-testid="transcript-link" href=${hrefWithToken(`#/session/${s}/transcript`)}>read as a transcript</a></p>
    <${ForkPanel} s=${s} lastSeq=${body.lastSeq} />
    <table class="runs" data-testid="runs">
      <thead><tr><th>Run</th><th>Prompt</th><th>Status</th><th>Started</th><th>Duration</th><th>Tools</th><th>Tokens (turn)</th></tr></thead>
      <tbody>
        ${body.runs.map(
          (run) => html`<tr data-testid="run-row">
            <td><a data-testid="run-link" href=${hrefWithToken(`#/session/${s}/run/${encodeURIComponent(run.runId)}`)}><code>${run.runId}</code></a></td>
            <td class="prompt">${run.prompt ?? ""}</td>
            <td><${StatusBadge} status=${run.status} />${run.waits.length > 0 ? html` <span class="badge wait">${run.waits.length} waiting</span>` : ""}</td>
            <td>${formatTime(run.startedAt)}</td>
            <td class="duration" data-testid="run-duration" data-ms=${run.updatedAt - run.startedAt}>${formatDuration(run.updatedAt - run.startedAt)}${run.status === "running" ? "…" : ""}</td>
            <td>${run.toolCallCount}</td>
            <td>${formatCounts(run.usage)}</td>
          </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}
