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
}

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
        .map(({ projectId, conversationId, sessionKey, updatedAt }) => ({ address: { projectId, sessionKey, ...(conversationId === null ? {} : { conversationId }) }, updatedAt }))
        .sort((a, b) => b.updatedAt - a.updatedAt);
    },
    async close() {
      if (closed) return;
      closed = true;
      await driver.close();
    },
  };
}
