import { describe, expect, it } from "@jest/globals";
import { createMemorySessionStore } from "../../src/adapters/driven/memory/memory-session-store.js";
import { runSessionStoreContract } from "../../src/testing/session-store.contract.js";

// "persistence" is skipped: the memory store lives only as long as its object (SES-6).
runSessionStoreContract({ describe, it, expect }, () => ({ store: createMemorySessionStore() }), { skip: ["persistence"] });
