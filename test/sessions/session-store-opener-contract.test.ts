import { afterAll, describe, expect, it } from "@jest/globals";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createSqliteSessionBackend } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-backend.js";
import { runSessionStoreOpenerContract } from "../../src/testing/session-store-opener.contract.js";

const root = mkdtempSync(join(tmpdir(), "sh-opener-contract-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

runSessionStoreOpenerContract({ describe, it, expect }, () => {
  const dir = join(root, `backend-${n++}`);
  const sessions = createSqliteSessionBackend({ agentStoreDir: join(dir, "agents") });
  return { store: sessions, inspect: { databasePath: (name) => join(dir, "explicit", `${name}.sqlite`) }, dispose: () => sessions.close() };
});

// The storage's own opener, with no idle sessions kept: every run opens its file.
runSessionStoreOpenerContract({ describe, it, expect }, () => {
  const dir = join(root, `storage-${n++}`);
  const storage = createSqliteStorage({ directory: dir, maxIdleSessions: 0 });
  return { store: storage.sessions!, inspect: { databasePath: (name) => join(dir, "explicit", `${name}.sqlite`) }, dispose: () => storage.close() };
});
