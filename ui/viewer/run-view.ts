import { h } from "preact";
import { memo } from "preact/compat";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import htm from "htm";
import { getJson, hrefWithToken, openStream, postJson } from "./api.js";
import { formatCounts, formatNumber, Gauge, Json, plural, StatusBadge } from "./parts.js";
import { Crumbs } from "./lists.js";
import { Timeline } from "./timeline.js";
import { ReplayPanel } from "./replay.js";
import { buildRunTimeline, formatDuration } from "../../src/adapters/driving/viewer/run-timeline.js";
import { Card, type CardLike } from "../shared/card.js";
import { createRunReplay, type ViewerPendingRequest, type ViewerRunView } from "../../src/adapters/driving/viewer/run-replay.js";
import type { ViewerRunSummary } from "../../src/adapters/driving/viewer/run-index.js";
import type { SessionEvent } from "../../src/domain/agent/session-events.js";
import type { OutputItem } from "../../src/domain/output-items.js";

const html = htm.bind(h);
const PAGE = 500;

interface SessionBody {
  address: { projectId: string; conversationId?: string; sessionKey: string };
  projectName: string | null;
  conversationTitle: string | null;
  lastSeq: number;
  runs: ViewerRunSummary[];
}

type Child = { sessionKey: string; runId: string; usage: ViewerRunSummary["usage"]; status: string };

/**
 * One run drawn as a host draws it: its events are read in pages from the run's first seq (the
 * first page paints at once), replayed through the agent's projector, then followed live.
 */
export function RunView({ s, runId }: { s: string; runId: string }) {
  const [view, setView] = useState<ViewerRunView | null>(null);
  const [session, setSession] = useState<SessionBody | null>(null);
  const [children, setChildren] = useState<Child[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const events = useRef<SessionEvent[]>([]);
  const [showRaw, setShowRaw] = useState(false);
  // The answers given here, by request id: an answered request shows its answer once, in place
  // of its box and buttons, and it stays after the run moves on (VIEW-8).
  const [answered, setAnswered] = useState<Record<string, string>>({});
  const onAnswered = (requestId: string, note: string) => setAnswered((before) => ({ ...before, [requestId]: note }));

  useEffect(() => {
    let stopped = false;
    let closeStream = () => {};
    let frame = 0;
    (async () => {
      const config = await getJson<{ contextWindow: number }>("/api/config");
      const body = await getJson<SessionBody>("/api/session", { s });
      if (stopped) return;
      setSession(body);
      const run = body.runs.find((entry) => entry.runId === runId);
      if (!run) throw new Error(`no run ${runId} in this session`);
      const replay = createRunReplay({ runId, sessionKey: body.address.sessionKey, projectId: body.address.projectId, contextWindow: config.contextWindow });
      const take = (page: SessionEvent[], lastSeq: number) => {
        replay.push(page);
        for (const event of page) if (event.runId === runId) events.current.push(event);
        replay.seen(Math.min(lastSeq, page.at(-1)?.seq ?? 0));
        // One render per frame however fast pages and live events arrive.
        if (frame === 0) frame = requestAnimationFrame(() => {
          frame = 0;
          if (!stopped) setView(replay.view());
        });
      };
      let after = run.startSeq - 1;
      let first = true;
      for (;;) {
        const page = await getJson<{ events: SessionEvent[]; lastSeq: number }>("/api/events", { s, after, limit: PAGE });
        if (stopped) return;
        take(page.events, page.lastSeq);
        if (first) {
          first = false;
          setView(replay.view());
          requestAnimationFrame(() => performance.mark("viewer:first-paint"));
        }
        if (page.events.length < PAGE) break;
        after = page.events.at(-1)!.seq;
      }
      setLoading(false);
      setView(replay.view());
      requestAnimationFrame(() => performance.mark("viewer:loaded"));
      const lastSeq = Math.max(after, replay.view().lastSeq);
      closeStream = openStream(s, lastSeq, (fresh, headSeq) => take(fresh as SessionEvent[], headSeq));
      getJson<{ children: Child[] }>("/api/children", { s, runId }).then((answer) => !stopped && setChildren(answer.children), () => undefined);
    })().catch((e: Error) => setError(e.message));
    return () => {
      stopped = true;
      closeStream();
      cancelAnimationFrame(frame);
    };
  }, [s, runId]);

  // Rebuilt as events arrive (the view changes with them); a wait still open lasts until now.
  const timeline = useMemo(() => buildRunTimeline(events.current, view?.status === "waiting" ? { now: Date.now() } : {}), [view]);
  if (error) return html`<p class="error">${error}</p>`;
  if (!view || !session) return html`<p class="muted">Loading run…</p>`;
  const start = view.start;
  const run = session.runs.find((entry) => entry.runId === runId);
  // Answers recorded before this page opened (another tab, a reload) that the run has not taken up yet.
  const recorded = Object.fromEntries((run?.waits ?? []).flatMap((wait) => (wait.recorded ? [[wait.requestId, `${OUTCOME_LABEL[wait.recorded]} (recorded): the run resumes when its host runs it again`]] : [])));
  const notes = { ...recorded, ...answered };
  const waiting = view.pending.filter((request) => notes[request.requestId] === undefined);
  const toolTimes = new Map(timeline.bars.filter((bar) => bar.kind === "tool" && bar.toolCallId !== undefined && bar.endedAt !== null).map((bar) => [bar.toolCallId!, bar.endedAt! - bar.startedAt]));
  const took = timeline.startedAt !== null && timeline.endedAt !== null ? timeline.endedAt - timeline.startedAt : null;
  const pinned = view.cards.filter((card) => isPinned(card.command));
  return html`<div class="run" data-testid="run" data-status=${view.status}>
    <${Crumbs} body=${session} s=${s} tail=${html`<code>${runId}</code>`} />
    <header class="run-head">
      <div class="run-title">
        <div class="prompt-bubble" data-testid="prompt">${view.prompt ?? start?.prompt ?? ""}</div>
        <div class="muted">${start ? `${start.provider} · ${start.model} · ${start.mode} · effort ${start.effort}` : ""}</div>
        <div><${StatusBadge} status=${view.status} />${view.errorCode ? html` <code>${view.errorCode}</code>` : ""}${took !== null ? html` <span class="duration" data-testid="run-took" data-ms=${took}>${view.status === "running" || view.status === "waiting" ? "so far" : "took"} ${formatDuration(took)}</span>` : ""} ${loading ? html`<span class="muted" data-testid="loading">loading…</span>` : ""}</div>
      </div>
      <${Gauge} used=${view.ring.used} total=${view.ring.total} />
    </header>
    <${ReplayPanel} s=${s} runId=${runId} settled=${view.status !== "running" && view.status !== "waiting"} />
    ${waiting.map((request) => html`<${PendingBox} key=${request.requestId} s=${s} runId=${runId} request=${request} onAnswered=${onAnswered} />`)}
    ${Object.entries(notes).map(([requestId, note]) => html`<div class="answer-note" data-testid="answer-note" data-request=${requestId} key=${requestId}>${note}</div>`)}
    <${Timeline} timeline=${timeline} />
    ${pinned.length > 0 ? html`<div class="pinned" data-testid="pinned-cards">${pinned.map((card) => html`<${Card} card=${card.command as CardLike} note="present_card" />`)}</div>` : ""}
    <div class="rows" data-testid="rows">${view.items.map((item) => html`<${MemoRow} key=${item.id} item=${item} plan=${view.plans[item.id]} command=${commandOf(view, item)} took=${toolTimes.get(toolCallOf(item) ?? "")} />`)}</div>
    <section class="usage" data-testid="usage">
      <h3>Token usage</h3>
      <p>This turn: <b data-testid="turn-usage">${formatCounts(view.usage)}</b> · ${plural(view.toolCallCount, "tool call")}</p>
      <table><thead><tr><th>Response</th><th>Model</th><th>Tokens</th></tr></thead><tbody>
        ${view.usageRows.length > USAGE_ROWS ? html`<tr><td colspan="3" class="muted">${view.usageRows.length - USAGE_ROWS} earlier responses not shown</td></tr>` : ""}
        ${view.usageRows.slice(-USAGE_ROWS).map((row, index, shown) => html`<tr><td>${view.usageRows.length - shown.length + index + 1}</td><td>${row.model}</td><td>${formatCounts(row.counts)}</td></tr>`)}
      </tbody></table>
      ${children.length > 0 ? html`<h4>Child agents</h4><table data-testid="children"><thead><tr><th>Session</th><th>Run</th><th>Status</th><th>Tokens</th></tr></thead><tbody>
        ${children.map((child) => html`<tr><td>${child.sessionKey}</td><td><code>${child.runId}</code></td><td>${child.status}</td><td>${formatCounts(child.usage)}</td></tr>`)}
      </tbody></table>` : ""}
    </section>
    ${view.budget && view.budget.budgets.length > 0 ? html`<${BudgetTable} budget=${view.budget} />` : ""}
    <section class="raw">
      <button type="button" data-testid="raw-toggle" onClick=${() => setShowRaw(!showRaw)}>${showRaw ? "Hide" : "Show"} raw events (${events.current.length})</button>
      ${showRaw ? html`<ol class="raw-events" data-testid="raw-events">${events.current.slice(0, 1000).map((event) => html`<li><code>#${event.seq} ${event.type}</code> <span class="muted">${event.eventId}</span><pre>${JSON.stringify(event.payload, null, 1)}</pre></li>`)}</ol>` : ""}
    </section>
  </div>`;
}

const USAGE_ROWS = 50;

type BudgetAmount = { tokens: number | null; costUsd: number | null };
const usd = (value: number) => `$${value.toFixed(value < 1 ? 6 : 2)}`;
const budgetCell = (amount: BudgetAmount) => [amount.tokens === null ? null : `${formatNumber(amount.tokens)} tokens`, amount.costUsd === null ? null : usd(amount.costUsd)].filter(Boolean).join(" · ") || "—";

/** Spent, limit and remaining per budget (issue 28 item 6), as the run's last stop or end recorded them. */
function BudgetTable({ budget }: { budget: NonNullable<ViewerRunView["budget"]> }) {
  return html`<section class="budget" data-testid="budget">
    <h3>Budget</h3>
    <table><thead><tr><th>Budget</th><th>Spent</th><th>Limit</th><th>Remaining</th></tr></thead><tbody>
      ${budget.budgets.map((entry) => html`<tr data-testid="budget-row" data-scope=${entry.scope} key=${`${entry.scope}:${entry.id}:${entry.window ?? ""}`}>
        <td>${entry.scope} <code>${entry.id}</code>${entry.window ? html` <span class="muted">${entry.window}</span>` : ""}</td>
        <td data-testid="budget-spent">${budgetCell(entry.spent)}</td>
        <td data-testid="budget-limit">${budgetCell(entry.limit)}</td>
        <td data-testid="budget-remaining">${budgetCell(entry.remaining)}</td>
      </tr>`)}
    </tbody></table>
    ${budget.maxModelCalls !== undefined || budget.maxToolCalls !== undefined ? html`<p class="muted">${[budget.maxModelCalls === undefined ? null : `at most ${plural(budget.maxModelCalls, "model call")}`, budget.maxToolCalls === undefined ? null : `at most ${plural(budget.maxToolCalls, "tool call")}`].filter(Boolean).join(" · ")}</p>` : ""}
  </section>`;
}

type Plan = ViewerRunView["plans"][string] | undefined;
type Command = ViewerRunView["cards"][number] | undefined;

const OUTCOME_LABEL = { approved: "Approved", denied: "Denied", answered: "Answered", declined: "Declined" } as const;

function toolCallOf(item: OutputItem): string | undefined {
  const toolCallId = (item.content as { toolCallId?: unknown } | null)?.toolCallId;
  return typeof toolCallId === "string" ? toolCallId : undefined;
}

function commandOf(view: ViewerRunView, item: OutputItem): Command {
  const toolCallId = toolCallOf(item);
  return toolCallId === undefined ? undefined : view.cards.find((card) => card.toolCallId === toolCallId);
}

// Unchanged items keep their identity between views (run-replay), so a long run re-renders only the rows that changed.
const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);
const MemoRow = memo(Row, (a, b) => a.item === b.item && a.took === b.took && same(a.plan, b.plan) && same(a.command, b.command));

/** How long a tool ran, in its row's head (VIEW-8). */
const Took = ({ ms }: { ms: number | undefined }) => (ms === undefined ? "" : html`<span class="duration" data-testid="tool-duration" data-ms=${ms}>${formatDuration(ms)}</span>`);

function Row({ item, plan, command, took }: { item: OutputItem; plan: Plan; command: Command; took: number | undefined }) {
  const meta = item.metadata;
  // The output protocol's hidden items (silent continuations: recovery, length, lost-call) are kept, never drawn (OUT-3).
  if (item.display?.type === "hidden") return null;
  const text = typeof item.content === "string" ? item.content : "";
  if (meta.kind === "agent-notice" && meta.plan === true) {
    return html`<div class="row plan" data-testid="row" data-row="plan">
      <div class="plan-head">Plan ${plan ? html`<span class=${`badge decision-${plan.decision}`} data-testid="plan-decision">${plan.decision}</span>` : ""}</div>
      <div class="md">${text}</div>
      ${plan?.feedback ? html`<div class="muted">Feedback: ${plan.feedback}</div>` : ""}
    </div>`;
  }
  if (meta.kind === "agent-notice") return html`<div class="row notice" data-testid="row" data-row="notice">${text}</div>`;
  if (meta.kind === "agent-error") return html`<div class="row error" data-testid="row" data-row="error">${text}</div>`;
  if (meta.kind === "agent-answer") return html`<div class="row text md" data-testid="row" data-row="text">${text}</div>`;
  switch (meta.partType) {
    case "text":
      return text === "" ? null : html`<div class="row text md" data-testid="row" data-row="text">${text}</div>`;
    case "reasoning":
      return html`<details class="row reasoning" data-testid="row" data-row="reasoning"><summary>Reasoning</summary><div class="md">${text}</div></details>`;
    case "retry": {
      const content = item.content as { label?: string; kind?: string; message?: string; status?: number };
      return html`<div class="row retry" data-testid="row" data-row="retry">↻ ${content.label} <span class="muted">${content.kind}${content.status ? ` · HTTP ${content.status}` : ""}</span> — ${content.message}</div>`;
    }
    case "compaction": {
      const content = item.content as { summary?: string; usedBefore?: number; usedAfter?: number };
      return html`<details class="row compaction" data-testid="row" data-row="compaction"><summary>Context compacted (${content.usedBefore} → ${content.usedAfter} tokens)</summary><div class="md">${content.summary}</div></details>`;
    }
    case "patch":
      return html`<${PatchRow} content=${item.content as FileRowContent} took=${took} />`;
    case "file":
      return html`<${FileRow} content=${item.content as FileRowContent} took=${took} />`;
    case "tool":
    case "plan": {
      const content = item.content as { tool?: string; status?: string; arguments?: unknown; result?: string; resourceCard?: CardLike; resourceCardWarning?: { message?: string } };
      return html`<div class=${`row tool status-${content.status}`} data-testid="row" data-row="tool" data-tool=${content.tool}>
        <div class="tool-head"><span class="tool-name">${content.tool}</span> <span class=${`badge status-${content.status}`}>${content.status?.replace("_", " ")}</span> <${Took} ms=${took} /></div>
        <${Json} value=${content.arguments} label="Arguments" />
        ${content.result !== undefined ? html`<details class="json"><summary>Result</summary><pre>${content.result}</pre></details>` : ""}
        ${content.resourceCard ? html`<${Card} card=${content.resourceCard} />` : ""}
        ${command && !isPinned(command.command) ? html`<${Card} card=${command.command as CardLike} note="present_card" />` : ""}
        ${content.resourceCardWarning ? html`<div class="muted">${content.resourceCardWarning.message}</div>` : ""}
      </div>`;
    }
    default:
      return html`<div class="row" data-testid="row" data-row="other"><${Json} value=${item.content} label=${String(meta.kind ?? "item")} /></div>`;
  }
}

/** What a `patch` row (an edit: path and unified diff) or a `file` row (a write: path, size, new or not) holds (OUT-9). */
interface FileRowContent {
  tool?: string;
  status?: string;
  arguments?: { path?: string };
  result?: string;
  path?: string | null;
  diff?: string;
  bytes?: number;
  created?: boolean;
}

function FileHead({ content, kind, took }: { content: FileRowContent; kind: string; took: number | undefined }) {
  const path = content.path ?? content.arguments?.path ?? "";
  return html`<div class="tool-head"><span class="file-kind">${kind}</span> <code class="file-path" data-testid="file-path">${path}</code> <span class=${`badge status-${content.status}`}>${content.status?.replace("_", " ")}</span> <${Took} ms=${took} /></div>`;
}

/** An edit as a diff: one line per diff line, added and removed lines marked. */
function PatchRow({ content, took }: { content: FileRowContent; took: number | undefined }) {
  const lines = content.diff === undefined ? [] : content.diff.replace(/\n$/, "").split("\n");
  const classOf = (line: string) => (line.startsWith("+++") || line.startsWith("---") ? "meta" : line.startsWith("@@") ? "hunk" : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "ctx");
  return html`<div class=${`row patch status-${content.status}`} data-testid="row" data-row="patch" data-tool=${content.tool}>
    <${FileHead} content=${content} kind="Edit" took=${took} />
    ${lines.length > 0 ? html`<pre class="diff" data-testid="diff">${lines.map((line) => html`<div class=${`diff-${classOf(line)}`} data-line=${classOf(line)}>${line}</div>`)}</pre>` : ""}
    ${content.status === "failed" && content.result !== undefined ? html`<div class="error">${content.result}</div>` : ""}
  </div>`;
}

/** A file write as a file row: the path, whether it is new, its size. */
function FileRow({ content, took }: { content: FileRowContent; took: number | undefined }) {
  const facts = [content.created === undefined ? null : content.created ? "new file" : "overwritten", content.bytes === undefined ? null : `${content.bytes.toLocaleString("en-US")} bytes`].filter(Boolean).join(" · ");
  return html`<div class=${`row file status-${content.status}`} data-testid="row" data-row="file" data-tool=${content.tool}>
    <${FileHead} content=${content} kind="Write" took=${took} />
    ${facts ? html`<div class="muted" data-testid="file-facts">${facts}</div>` : ""}
    ${content.status === "failed" && content.result !== undefined ? html`<div class="error">${content.result}</div>` : ""}
  </div>`;
}

/** A waiting request, answered here through the viewer's answer endpoint (VIEW-3). */
function PendingBox({ s, runId, request, onAnswered }: { s: string; runId: string; request: ViewerPendingRequest; onAnswered: (requestId: string, note: string) => void }) {
  const [text, setText] = useState("");
  const [state, setState] = useState<string | null>(null);
  const answer = (outcome: string, extra: Record<string, string> = {}) => {
    setState("sending…");
    postJson<{ resumed: string }>("/api/answer", { s, runId, requestId: request.requestId, outcome, ...extra }).then(
      (result) => {
        const how = result.resumed === "host" ? "the session host resumes the run" : result.resumed === "queued" ? "queued for the session host" : "the run resumes when its host runs it again";
        // The answer shows once, in place of this box (VIEW-8).
        onAnswered(request.requestId, `${OUTCOME_LABEL[outcome as keyof typeof OUTCOME_LABEL] ?? outcome}: ${how}`);
      },
      (e: Error) => setState(`failed: ${e.message}`),
    );
  };
  const title = request.kind === "tool_approval" ? `Approve ${request.toolName ?? "tool"}?` : request.kind === "question" ? "The agent asks" : "Approve the plan?";
  // One answer per request: the buttons stay pressed while it is being sent.
  const busy = state === "sending…";
  return html`<div class="pending" data-testid="pending" data-kind=${request.kind}>
    <div class="pending-title">Waiting for you — ${title}</div>
    ${request.kind === "tool_approval" ? html`<div class="muted">Arguments</div><pre class="arguments" data-testid="pending-arguments">${JSON.stringify(request.arguments ?? {}, null, 2)}</pre>` : html`<div class="md">${request.message ?? ""}</div>`}
    ${request.kind !== "tool_approval" ? html`<textarea data-testid="pending-text" placeholder=${request.kind === "question" ? "Your answer" : "Feedback (to revise the plan)"} value=${text} onInput=${(e: Event) => setText((e.target as HTMLTextAreaElement).value)}></textarea>` : ""}
    <div class="actions">
      ${request.kind === "tool_approval" ? html`<button data-testid="approve" disabled=${busy} onClick=${() => answer("approved")}>Approve</button><button class="secondary" data-testid="deny" disabled=${busy} onClick=${() => answer("denied")}>Deny</button>` : ""}
      ${request.kind === "question" ? html`<button data-testid="answer" disabled=${busy} onClick=${() => answer("answered", { answer: text })}>Answer</button><button class="secondary" disabled=${busy} onClick=${() => answer("declined")}>Decline</button>` : ""}
      ${request.kind === "plan" ? html`<button data-testid="approve" disabled=${busy} onClick=${() => answer("approved")}>Approve plan</button><button class="secondary" data-testid="revise" disabled=${busy} onClick=${() => answer("declined", { reason: text })}>${text.trim() ? "Revise" : "Decline"}</button>` : ""}
    </div>
    ${state ? html`<div class="muted" data-testid="pending-state">${state}</div>` : ""}
  </div>`;
}

/**
 * Whether a present_card command shows pinned: its explicit `pinned`, else the capability's
 * default — on for the preview kinds (kanban, project, browser: their commands carry `preview`),
 * off for the rest (CAP-10; the command carries `pinned` only when the model set it).
 */
function isPinned(command: { pinned?: unknown; preview?: unknown }): boolean {
  return typeof command.pinned === "boolean" ? command.pinned : command.preview !== undefined;
}
