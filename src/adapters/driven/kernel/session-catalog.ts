/**
 * The session-catalog port written once (ARCH-8, VIEW-1): the project filter, newest first,
 * addresses without a conversation, `unavailable` after close, over a family's listing of its
 * session index (SQLite: the session files' meta rows; PostgreSQL: `agent_sessions`).
 */
import { SteamharnessError } from "../../../domain/errors.js";
import type { SessionCatalog } from "../../../ports/session-catalog.js";
import type { Awaitable, StoreCall } from "./store-call.js";

/** One session as a family's index lists it: its address columns and its last write time (VIEW-8). */
export interface SessionCatalogRow {
  projectId: string;
  conversationId: string | null;
  sessionKey: string;
  updatedAt: number;
  /** A fork's pointer (FORK-1): its parent's address columns and the last parent seq it holds; absent or null for no fork. */
  baseProjectId?: string | null; baseConversationId?: string | null; baseSessionKey?: string | null; baseSeq?: number | null;
}

const addressOf = (projectId: string, conversationId: string | null, sessionKey: string) => ({ projectId, sessionKey, ...(conversationId === null ? {} : { conversationId }) });

/**
 * The catalog over `rows` (which may already apply the project filter); `close` runs once.
 *
 * @example
 * const catalog = createSessionCatalog({ rows: () => [], close: () => {} }, directCall, "memory");
 */
export function createSessionCatalog(driver: { rows(projectId: string | undefined): Awaitable<SessionCatalogRow[]>; close(): Awaitable<void> }, call: StoreCall, family: string): SessionCatalog {
  let closed = false;
  return {
    async list(filter = {}) {
      if (closed) throw new SteamharnessError("unavailable", `[steamharness] [${family}] the session catalog is closed`);
      const rows = await call("listing sessions", () => driver.rows(filter.projectId));
      return rows
        .filter((row) => filter.projectId === undefined || row.projectId === filter.projectId)
        .map((row) => ({ address: addressOf(row.projectId, row.conversationId, row.sessionKey), updatedAt: row.updatedAt, ...(row.baseProjectId == null || row.baseSessionKey == null || row.baseSeq == null ? {} : { forkOf: { address: addressOf(row.baseProjectId, row.baseConversationId ?? null, row.baseSessionKey), atSeq: Number(row.baseSeq) } }) }))
        .sort((a, b) => b.updatedAt - a.updatedAt);
    },
    async close() {
      if (closed) return;
      closed = true;
      await driver.close();
    },
  };
}
