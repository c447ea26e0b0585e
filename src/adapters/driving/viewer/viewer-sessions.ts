import { createTranscript, type Transcript, type TranscriptEntry } from "../../../domain/agent/transcript.js";
import { SteamharnessError } from "../../../domain/errors.js";
import type { SessionBackend } from "../../../ports/session-backend.js";
import type { SessionCatalog } from "../../../ports/session-catalog.js";
import type { SessionAddress, SessionStore } from "../../../ports/session-store.js";
import type { TokenCounts } from "../../../ports/token-usage.js";
import { createSessionRunIndex, type SessionRunIndex, type ViewerRunSummary } from "./run-index.js";

/**
 * The id a session has in the viewer's URLs: its address as base64url JSON, so any session key
 * (spaces, Chinese, slashes) survives a query string and nothing needs a lookup table.
 *
 * @example
 * viewerSessionId({ projectId: "p", conversationId: "c", sessionKey: "agent" })
 */
export function viewerSessionId(address: SessionAddress): string {
  return Buffer.from(JSON.stringify([address.projectId, address.conversationId ?? null, address.sessionKey]), "utf8").toString("base64url");
}

/**
 * The address of a viewer session id; throws `input_validation` for anything else.
 *
 * @example
 * parseViewerSessionId(viewerSessionId(address)) // address
 */
export function parseViewerSessionId(id: string): SessionAddress {
  try {
    const [projectId, conversationId, sessionKey] = JSON.parse(Buffer.from(id, "base64url").toString("utf8")) as unknown[];
    if (typeof projectId === "string" && typeof sessionKey === "string" && (conversationId === null || typeof conversationId === "string")) {
      return { projectId, sessionKey, ...(conversationId === null ? {} : { conversationId }) };
    }
  } catch {
    // reported below
  }
  throw new SteamharnessError("input_validation", "not a viewer session id", { field: "s" });
}

interface OpenSession {
  address: SessionAddress;
  store: SessionStore;
  index: SessionRunIndex;
  /** Built on the first transcript request (UI-7). */
  transcript?: Transcript;
  usedAt: number;
}

/** Per-child usage of a run: the delegated child runs (`<runId>/subagent/…`) in the conversation's other sessions. */
export interface ViewerChildUsage {
  sessionKey: string;
  runId: string;
  usage: TokenCounts;
  status: ViewerRunSummary["status"];
}

/**
 * The sessions a viewer has open: unleased stores (never the run's lease, so a running or paused
 * run is not disturbed), each with its incremental run index, the least recently used closed
 * beyond `maxOpen`.
 *
 * @example
 * const sessions = createViewerSessions({ backend: storage.sessions!, catalog });
 * const { runs } = await sessions.summary(id);
 */
export function createViewerSessions(options: { backend: SessionBackend; catalog: SessionCatalog; maxOpen?: number }) {
  const open = new Map<string, OpenSession>();
  const maxOpen = options.maxOpen ?? 16;

  const get = async (id: string): Promise<OpenSession> => {
    let session = open.get(id);
    if (!session) {
      const address = parseViewerSessionId(id);
      const store = await options.backend.openUnleased({ address, create: false });
      if (!store) throw new SteamharnessError("not_found", "no such session", { field: "s" });
      session = { address, store, index: createSessionRunIndex(store), usedAt: 0 };
      open.set(id, session);
      if (open.size > maxOpen) {
        const [oldest] = [...open.entries()].sort((a, b) => a[1].usedAt - b[1].usedAt);
        if (oldest && oldest[0] !== id) {
          open.delete(oldest[0]);
          await oldest[1].store.close().catch(() => undefined);
        }
      }
    }
    session.usedAt = Date.now();
    return session;
  };

  return {
    get,
    /** The session's address, head and runs (refreshed incrementally). */
    async summary(id: string) {
      const session = await get(id);
      const runs = await session.index.refresh();
      const head = await session.store.head();
      return { id, address: session.address, lastSeq: head.lastSeq, runs };
    },
    /**
     * The session as a transcript (UI-7), kept with the open session: each call folds only the
     * events appended since the last one (pages of 1 000 from the unleased store) into the
     * domain's {@link createTranscript}, so a live page's refreshes never re-read the history.
     */
    async transcript(id: string): Promise<{ id: string; address: SessionAddress; lastSeq: number; entries: TranscriptEntry[] }> {
      const session = await get(id);
      const transcript = (session.transcript ??= createTranscript());
      const { lastSeq } = await session.store.head();
      while (transcript.lastSeq() < lastSeq) {
        const page = await session.store.readAfter(transcript.lastSeq(), { limit: 1000 });
        if (page.length === 0) break;
        transcript.push(page.filter((event) => event.seq <= lastSeq));
      }
      return { id, address: session.address, lastSeq, entries: transcript.entries() };
    },
    /** Child runs delegated by `runId`, from the other sessions of the same conversation. */
    async childUsage(id: string, runId: string): Promise<ViewerChildUsage[]> {
      const { address } = await get(id);
      if (address.conversationId === undefined) return [];
      const prefix = `${runId}/subagent/`;
      const children: ViewerChildUsage[] = [];
      for (const entry of await options.catalog.list({ projectId: address.projectId })) {
        if (entry.address.conversationId !== address.conversationId || entry.address.sessionKey === address.sessionKey) continue;
        const child = await get(viewerSessionId(entry.address));
        for (const run of await child.index.refresh()) {
          if (run.runId.startsWith(prefix)) children.push({ sessionKey: entry.address.sessionKey, runId: run.runId, usage: run.usage, status: run.status });
        }
      }
      return children;
    },
    async close(): Promise<void> {
      const sessions = [...open.values()];
      open.clear();
      await Promise.all(sessions.map((session) => session.store.close().catch(() => undefined)));
    },
  };
}

/** The session cache returned by {@link createViewerSessions}. */
export type ViewerSessions = ReturnType<typeof createViewerSessions>;
