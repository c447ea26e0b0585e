// The worked example of docs/storage-backends.md ("Writing your own backend"): a host's own
// session backend — here a decorator that records who took which session — proved with the
// contract suite from steamharness/testing. The doc quotes this file; CI runs it.
import { createMemorySessionBackend } from "../../src/compose/memory-session-backend.js";
import type { SessionBackend } from "../../src/ports/session-backend.js";
import { runSessionBackendContract } from "../../src/testing/session-backend.contract.js";

/** A session backend that keeps an audit trail of every lease taken through `open`. */
function createAuditedBackend(inner: SessionBackend, audit: string[]): SessionBackend {
  return {
    ...inner,
    kind: `audited-${inner.kind}`,
    async open(request) {
      const store = await inner.open(request);
      audit.push(`${request.ownerId} took ${request.address.conversationId ?? "-"}/${request.address.sessionKey}`);
      return store;
    },
  };
}

describe("PORT-4 a host's own session backend passes the contract suite (docs/storage-backends.md)", () => {
  runSessionBackendContract({ describe, it, expect }, () => ({ store: createAuditedBackend(createMemorySessionBackend(), []) }), { databasePaths: false, shared: false });

  it("PORT-4 the audit trail names each lease taken", async () => {
    const audit: string[] = [];
    const backend = createAuditedBackend(createMemorySessionBackend(), audit);
    const store = await backend.open({ address: { projectId: "p", conversationId: "c1", sessionKey: "agent" }, ownerId: "run-1" });
    await store.close();
    expect(audit).toEqual(["run-1 took c1/agent"]);
    await backend.close();
  });
});
