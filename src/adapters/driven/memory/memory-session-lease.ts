import { canonicalJson } from "../../../domain/stable-hash.js";
import type { SessionLeaseProvider } from "../../../ports/session-lease.js";
import { createSessionLeaseProvider } from "../kernel/session-lease.js";

/**
 * The in-memory lease provider: the reference adapter of the session-lease port, for sessions
 * kept in memory (SES-6), the kernel's provider with no lock beyond it. Leases are exclusive
 * among the users of one provider object and end with the process.
 *
 * @example
 * const leases = createMemorySessionLeaseProvider();
 * const lease = await leases.acquire({ projectId: "p", sessionKey: "agent" }, { ownerId: "run-1" });
 * await lease?.release();
 */
export function createMemorySessionLeaseProvider(): SessionLeaseProvider {
  return createSessionLeaseProvider({
    keyOf: (target) =>
      "databasePath" in target ? `path:${target.databasePath}` : canonicalJson({ projectId: target.projectId ?? null, conversationId: target.conversationId ?? null, sessionKey: target.sessionKey }),
    take: async () => true,
    give: async () => {},
  });
}
