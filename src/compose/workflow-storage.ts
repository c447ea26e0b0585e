import type { Storage } from "../ports/storage.js";
import type { WorkflowDataDirs } from "../adapters/driven/worker-process/data-dirs.js";

/**
 * MCP-8: the stores of a workflow host, each in its own data dir: KV under `kvStoreDir`,
 * PersistentValue and knowledge under `persistentValueStoreDir`, managed files under
 * `fileStoreDir`, agent sessions under `agentStoreDir`. One SQLite storage is opened per distinct directory and the bundle takes
 * each port from the storage of its directory.
 *
 * @example
 * const storage = await openWorkflowStorage(resolveDataDirs({ dataDir: "/srv/sh" }, dataDirDefaults()));
 * await storage.kv.set({ projectId }, "greeting", "hi");
 * await storage.close();
 */
export async function openWorkflowStorage(dirs: WorkflowDataDirs): Promise<Storage> {
  // Loaded lazily: the CLI's `structure` never opens SQLite (a pool's host opens only what host-run-snapshots.ts needs).
  const [{ createSqliteStorage }, { createSqliteSessionBackend }] = await Promise.all([import("../adapters/driven/sqlite/store/sqlite-storage.js"), import("../adapters/driven/sqlite/sessions/sqlite-session-backend.js")]);
  const opened = new Map<string, Storage>();
  const at = async (directory: string): Promise<Storage> => {
    let storage = opened.get(directory);
    if (!storage) {
      storage = await createSqliteStorage({ directory });
      opened.set(directory, storage);
    }
    return storage;
  };
  const kvStorage = await at(dirs.kvStoreDir);
  const valueStorage = await at(dirs.persistentValueStoreDir);
  const fileStorage = await at(dirs.fileStoreDir);
  const sessions = createSqliteSessionBackend({ agentStoreDir: dirs.agentStoreDir });
  let closed = false;
  return {
    kv: kvStorage.kv,
    values: valueStorage.values,
    knowledge: valueStorage.knowledge,
    files: fileStorage.files,
    // Budgets (BUD-1) beside the values: every workflow host on the same data dir shares them.
    ...(valueStorage.budgets ? { budgets: valueStorage.budgets } : {}),
    sessions,
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([sessions.close(), ...[...opened.values()].map((storage) => storage.close())]);
    },
  };
}
