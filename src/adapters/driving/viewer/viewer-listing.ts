import type { SessionCatalog, SessionCatalogEntry } from "../../../ports/session-catalog.js";
import type { SessionAddress } from "../../../ports/session-store.js";
import type { Storage } from "../../../ports/storage.js";
import type { ViewerRunSummary } from "./run-index.js";
import { conversationTitle, type SessionFacts, type ViewerSessionFacts } from "./session-facts.js";
import { createStoredDecisions, type StoredDecision } from "./stored-decisions.js";
import { viewerSessionId } from "./viewer-sessions.js";

/** One session of the list. */
export interface ViewerListedSession {
  id: string;
  sessionKey: string;
  updatedAt: number;
  /** It stopped to wait for a person's answer (VIEW-8). */
  waiting: boolean;
}

/** A conversation of the list: its title (its first prompt) beside its id. */
export interface ViewerListedConversation {
  conversationId: string | null;
  title: string | null;
  updatedAt: number;
  sessions: ViewerListedSession[];
}

/** A project of the list: its name beside its id. */
export interface ViewerListedProject {
  projectId: string;
  name: string | null;
  updatedAt: number;
  conversations: ViewerListedConversation[];
}

/**
 * The session list (VIEW-1, VIEW-8): projects → conversations → sessions, newest first as the
 * catalog lists them, with project names, conversation titles and which sessions wait.
 *
 * @example
 * const entries = await catalog.list();
 * const projects = listProjects(entries, await facts.of(entries), facts);
 */
export function listProjects(entries: readonly SessionCatalogEntry[], facts: ReadonlyMap<string, ViewerSessionFacts>, names: Pick<SessionFacts, "projectName">): ViewerListedProject[] {
  const projects = new Map<string, ViewerListedProject & { byConversation: Map<string, ViewerListedConversation & { first: ViewerSessionFacts | null }> }>();
  for (const entry of entries) {
    const { projectId, conversationId, sessionKey } = entry.address;
    let project = projects.get(projectId);
    if (!project) projects.set(projectId, (project = { projectId, name: null, updatedAt: entry.updatedAt, conversations: [], byConversation: new Map() }));
    const key = conversationId ?? "";
    let conversation = project.byConversation.get(key);
    if (!conversation) project.byConversation.set(key, (conversation = { conversationId: conversationId ?? null, title: null, updatedAt: entry.updatedAt, sessions: [], first: null }));
    const id = viewerSessionId(entry.address);
    const fact = facts.get(id) ?? null;
    conversation.sessions.push({ id, sessionKey, updatedAt: entry.updatedAt, waiting: fact?.waiting ?? false });
    // The conversation began with the earliest first run of its sessions.
    if (fact?.firstAt != null && fact.firstPrompt !== null && (conversation.first?.firstAt == null || fact.firstAt < conversation.first.firstAt)) conversation.first = fact;
  }
  return [...projects.values()].map(({ byConversation, ...project }) => ({
    ...project,
    name: names.projectName(project.projectId),
    conversations: [...byConversation.values()].map(({ first, ...conversation }) => ({ ...conversation, title: conversation.conversationId === null || first?.firstPrompt == null ? null : conversationTitle(first.firstPrompt) })),
  }));
}

/**
 * The project name and conversation title of one session's address (for its page's path).
 *
 * @example
 * const { projectName, conversationTitle } = await namesOf(address, catalog, facts);
 */
export async function namesOf(address: SessionAddress, catalog: SessionCatalog, facts: SessionFacts): Promise<{ projectName: string | null; conversationTitle: string | null }> {
  const entries = (await catalog.list({ projectId: address.projectId })).filter((entry) => entry.address.conversationId === address.conversationId);
  const listed = listProjects(entries, await facts.of(entries), facts)[0];
  return { projectName: listed?.name ?? facts.projectName(address.projectId), conversationTitle: listed?.conversations[0]?.title ?? null };
}

/** How a recorded decision reads in the page. */
export type ViewerRecordedOutcome = "approved" | "denied" | "answered" | "declined";

function outcomeOf(decision: StoredDecision): ViewerRecordedOutcome {
  if (decision.kind === "tool_approval") return decision.decision.outcome;
  const { response } = decision;
  if (decision.kind === "plan") return response.outcome === "answered" && response.values.approved === true ? "approved" : "declined";
  return response.outcome === "answered" ? "answered" : "declined";
}

/**
 * The runs with, on each wait, the decision already recorded for it (VIEW-8): a request
 * answered in the page but not yet taken up by its run shows that answer, not its buttons again.
 *
 * @example
 * const runs = await withRecordedDecisions(storage, projectId, summary.runs);
 */
export async function withRecordedDecisions(storage: Storage, projectId: string, runs: ViewerRunSummary[]): Promise<ViewerRunSummary[]> {
  if (!runs.some((run) => run.waits.length > 0)) return runs;
  const decisions = createStoredDecisions({ values: storage.values, projectId });
  for (const run of runs) {
    for (const wait of run.waits) {
      const recorded = await decisions.get(wait.requestId).catch(() => null);
      if (recorded) wait.recorded = outcomeOf(recorded);
    }
  }
  return runs;
}
