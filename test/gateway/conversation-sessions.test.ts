import { describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { createMemorySessionBackend } from "../../src/compose/memory-session-backend.js";
import { measuredSessions } from "../../src/adapters/driving/gateway/gateway-budget.js";
import { forkSession } from "../../src/app/time-travel/fork-session.js";
import { runSessionBackendContract } from "../../src/testing/session-backend.contract.js";
import { runSessionStoreContract } from "../../src/testing/session-store.contract.js";

const api = { describe, it, expect };

describe("SEC-7 a gateway conversation's sessions keep the session contracts", () => {
  describe("backend", () => {
    runSessionBackendContract(api, () => ({ store: createMemorySessionBackend({ events: "objects" }) }), { databasePaths: false, shared: false });
  });
  describe("store", () => {
    // "persistence" is skipped: a conversation's sessions live only as long as the gateway keeps it (SES-6).
    runSessionStoreContract(
      api,
      async () => {
        const sessions = createMemorySessionBackend({ events: "objects" });
        const store = await sessions.open({ address: { projectId: "p", conversationId: randomUUID(), sessionKey: "agent" }, ownerId: "owner" });
        return { store, dispose: () => store.close() };
      },
      { skip: ["persistence"] },
    );
  });
});

describe("FORK-1 a gateway conversation's sessions can be forked", () => {
  it("FORK-1 the gateway's measured sessions forward forkLog: the fork reads the prefix, and only what the fork itself stores is counted", async () => {
    let held = 0;
    const sessions = measuredSessions(createMemorySessionBackend({ events: "objects" }), (delta) => (held += delta));
    const from = { projectId: "p", conversationId: randomUUID(), sessionKey: "agent" };
    const parent = await sessions.open({ address: from, ownerId: "run-1" });
    const text = "x".repeat(10_000);
    await parent.append([
      { eventId: "run-1/user", runId: "run-1", type: "user_message", payload: { message: { role: "user", content: text } } },
      { eventId: "run-1/plan/0", runId: "run-1", type: "plan", payload: { planIndex: 0, text: "plan" } },
    ]);
    await parent.close();
    const afterParent = held;
    expect(afterParent).toBeGreaterThan(10_000);
    const { address, atSeq } = await forkSession({ sessions, from, at: { seq: 1 } });
    expect(atSeq).toBe(1);
    // The fork record only: the 10 kB prefix is the parent's, never counted twice.
    const forkBytes = held - afterParent;
    expect(forkBytes).toBeGreaterThan(0);
    expect(forkBytes).toBeLessThan(2_000);
    const fork = await sessions.open({ address, ownerId: "run-2" });
    try {
      expect((await fork.readAfter(0)).map((event) => event.eventId)).toEqual(["run-1/user", `fork/${address.sessionKey}`]);
      // A prefix id re-appended is stored already: nothing counted; a new event is.
      await fork.append([{ eventId: "run-1/user", runId: "run-1", type: "user_message", payload: { message: { role: "user", content: text } } }]);
      expect(held - afterParent).toBe(forkBytes);
      await fork.append([{ eventId: "run-2/plan/0", runId: "run-2", type: "plan", payload: { planIndex: 0, text: "fork plan" } }]);
      expect(held - afterParent).toBeGreaterThan(forkBytes);
    } finally {
      await fork.close();
    }
  });
});
