import type { PersistentValueStore } from "../../../ports/persistent-value-store.js";
import { createPersistentValueStore } from "../kernel/persistent-value-store.js";
import { directCall } from "../kernel/store-call.js";

/**
 * The in-memory reference persistent-value store: the kernel's port over a map per project of
 * JSON texts (so callers never share objects with the store).
 *
 * @example
 * const values = createMemoryPersistentValueStore();
 * await values.set("p", "lastRun", { ok: true });
 */
export function createMemoryPersistentValueStore(): PersistentValueStore {
  const projects = new Map<string, Map<string, string>>();
  const valuesOf = (projectId: string): Map<string, string> => {
    let values = projects.get(projectId);
    if (!values) projects.set(projectId, (values = new Map()));
    return values;
  };
  return createPersistentValueStore(
    {
      get: (projectId, name) => projects.get(projectId)?.get(name),
      set: (projectId, name, json) => void valuesOf(projectId).set(name, json),
      delete: (projectId, name) => projects.get(projectId)?.delete(name) ?? false,
      names: (projectId) => [...(projects.get(projectId)?.keys() ?? [])],
    },
    directCall,
  );
}
