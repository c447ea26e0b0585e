/**
 * The viewer's forks (issue 46: FORK-1, FORK-2): a session's fork tree and "fork from here". The
 * tree comes from the recorded pointers: the session's own fork record gives its lineage up to the
 * root (one lookup), and the session catalog's entries carry each fork's parent and point (read
 * from what the backend keeps beside the logs — a SQLite file's meta row, PostgreSQL's session
 * row —, never from a log). A fork is made by the app's `forkSession`.
 */
import { isSteamharnessError, SteamharnessError } from "../../../domain/errors.js";
import type { ForkEffects, ForkHazard } from "../../../domain/time-travel/fork.js";
import { forkLineage, forkSession } from "../../../app/time-travel/fork-session.js";
import type { SessionBackend } from "../../../ports/session-backend.js";
import type { SessionCatalog } from "../../../ports/session-catalog.js";
import type { SessionAddress } from "../../../ports/session-store.js";
import { parseViewerSessionId, viewerSessionId } from "./viewer-sessions.js";

/** A hazard as the page shows it: without the recorded result (it may be large). */
export type ViewerHazard = Omit<ForkHazard, "result">;

/** One session of a fork tree. */
export interface ViewerForkNode {
  /** The viewer session id. */
  id: string;
  address: SessionAddress;
  /** The last parent event the fork holds; `null` for the root. */
  atSeq: number | null;
  children: ViewerForkNode[];
}

/** What GET /api/forks answers. */
export interface ViewerForks {
  /** The session's own fork record: parent, point, effects and hazards; `null` for a session that is no fork. */
  fork: { parent: { id: string; address: SessionAddress }; atSeq: number; effects: ForkEffects; hazards: ViewerHazard[] } | null;
  /** The tree the session belongs to, from its oldest ancestor; forks of forks nested, oldest first. */
  tree: ViewerForkNode;
}

const withoutResults = (hazards: readonly ForkHazard[]): ViewerHazard[] => hazards.map(({ result: _result, ...hazard }) => hazard);

/**
 * The fork tree of viewer session `id`: its lineage from its fork record, its root's descendants
 * from the catalog's fork pointers (the root's project). `not_found` for an unknown session.
 *
 * @example
 * const { fork, tree } = await viewerForks(storage.sessions!, catalog, id);
 * fork?.hazards.map((hazard) => hazard.toolName);
 */
export async function viewerForks(backend: SessionBackend, catalog: SessionCatalog, id: string): Promise<ViewerForks> {
  const address = parseViewerSessionId(id);
  const lineage = await forkLineage(backend, address).catch((error: unknown) => {
    throw isSteamharnessError(error, "not_found") ? new SteamharnessError("not_found", "no such session", { field: "s" }) : error;
  });
  const own = lineage.at(-1);
  const root = lineage[0]?.parent ?? address;
  const children = new Map<string, Array<{ address: SessionAddress; atSeq: number }>>();
  for (const entry of await catalog.list({ projectId: root.projectId })) {
    if (!entry.forkOf) continue;
    const key = viewerSessionId(entry.forkOf.address);
    children.set(key, [...(children.get(key) ?? []), { address: entry.address, atSeq: entry.forkOf.atSeq }]);
  }
  // Pointers only go to sessions that existed first, so the tree has no cycle; `seen` guards a damaged catalog anyway.
  const seen = new Set<string>();
  const node = (at: SessionAddress, atSeq: number | null): ViewerForkNode => {
    const key = viewerSessionId(at);
    seen.add(key);
    const below = (children.get(key) ?? []).filter((child) => !seen.has(viewerSessionId(child.address))).sort((a, b) => a.atSeq - b.atSeq || a.address.sessionKey.localeCompare(b.address.sessionKey));
    return { id: key, address: at, atSeq, children: below.map((child) => node(child.address, child.atSeq)) };
  };
  return {
    fork: own ? { parent: { id: viewerSessionId(own.parent), address: own.parent }, atSeq: own.atSeq, effects: own.effects, hazards: withoutResults(own.hazards) } : null,
    tree: node(root, null),
  };
}

/** What POST /api/fork takes: the session and the event to fork after. */
export interface ViewerForkRequest {
  s: string;
  seq: number;
  effects?: ForkEffects;
}

/**
 * Checks the posted body; throws `input_validation` naming the field.
 *
 * @example
 * parseViewerFork({ s, seq: 4 })
 */
export function parseViewerFork(body: unknown): ViewerForkRequest {
  const value = (body !== null && typeof body === "object" && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  if (typeof value.s !== "string" || value.s === "") throw new SteamharnessError("input_validation", "s must be a viewer session id", { field: "s" });
  if (!Number.isSafeInteger(value.seq) || (value.seq as number) < 0) throw new SteamharnessError("input_validation", "seq must be a non-negative integer", { field: "seq" });
  if (value.effects !== undefined && value.effects !== "decide" && value.effects !== "recorded") throw new SteamharnessError("input_validation", "effects must be decide or recorded", { field: "effects" });
  return { s: value.s, seq: value.seq as number, ...(value.effects === undefined ? {} : { effects: value.effects as ForkEffects }) };
}

/**
 * "Fork from here" (FORK-1): forks the session after event `seq` through the app's `forkSession`
 * (in the viewer's storage, so a tenant's scoped storage keeps the fork in the tenant) and answers
 * the fork's viewer id, point and hazard report.
 *
 * @example
 * const { s: fork, hazards } = await forkFromViewer(storage.sessions!, { s, seq: 4 });
 */
export async function forkFromViewer(backend: SessionBackend, request: ViewerForkRequest): Promise<{ s: string; atSeq: number; hazards: ViewerHazard[] }> {
  const fork = await forkSession({ sessions: backend, from: parseViewerSessionId(request.s), at: { seq: request.seq }, ...(request.effects ? { effects: request.effects } : {}) });
  return { s: viewerSessionId(fork.address), atSeq: fork.atSeq, hazards: withoutResults(fork.hazards) };
}
