import { join } from "node:path";
import { createMemorySessionBackend } from "../../src/compose/memory-session-backend.js";
import { createSqliteSessionBackend } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-backend.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { runSessionBackendContract } from "../../src/testing/session-backend.contract.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";

const api = { describe, it, expect };

describe("PORT-4 the session backend contract on memory and SQLite", () => {
  describe("memory", () => {
    runSessionBackendContract(api, () => ({ store: createMemorySessionBackend() }), { databasePaths: false, shared: false });
  });
  describe("SQLite backend", () => {
    runSessionBackendContract(
      api,
      () => {
        const dir = tempDirRemovedAfterAll("session-backend-");
        return {
          store: createSqliteSessionBackend({ agentStoreDir: dir }),
          inspect: { databasePath: (name: string) => join(dir, "explicit", `${name}.sqlite`), peer: () => createSqliteSessionBackend({ agentStoreDir: dir }) },
        };
      },
      { databasePaths: true, shared: true },
    );
  });
  describe("SQLite storage's sessions", () => {
    runSessionBackendContract(
      api,
      () => {
        const dir = tempDirRemovedAfterAll("session-storage-");
        const storage = createSqliteStorage({ directory: dir });
        return {
          store: storage.sessions,
          inspect: { databasePath: (name: string) => join(dir, "explicit", `${name}.sqlite`), peer: () => createSqliteSessionBackend({ agentStoreDir: storage.agentStoreDir }) },
          dispose: () => storage.close(),
        };
      },
      { databasePaths: true, shared: true },
    );
  });
});
