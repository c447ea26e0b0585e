import { afterAll, describe, expect, it } from "@jest/globals";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteSessionStore } from "../../src/adapters/sqlite-session/sqlite-session-store.js";
import { runSessionStoreContract } from "../../src/testing/session-store.contract.js";

const root = mkdtempSync(join(tmpdir(), "sh-session-store-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

runSessionStoreContract({ describe, it, expect }, () => {
  const path = join(root, `contract-${n++}`, "session.sqlite");
  const address = { projectId: "p", conversationId: "c", sessionKey: "agent" };
  return {
    store: createSqliteSessionStore({ path, address }),
    reopen: async () => createSqliteSessionStore({ path, address }),
  };
});
