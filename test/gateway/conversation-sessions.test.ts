import { describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { createMemorySessionBackend } from "../../src/adapters/driven/memory/memory-session-backend.js";
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
