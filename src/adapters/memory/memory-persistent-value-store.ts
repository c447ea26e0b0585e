import { checkKvKey, checkProjectId, compareUtf16, serializeKvValue, type JsonValue } from "../../domain/store-input.js";
import type { PersistentValueStore } from "../../ports/persistent-value-store.js";

/**
 * The in-memory reference persistent-value store (values kept serialised, so callers never
 * share objects with the store).
 *
 * @example
 * const values = createMemoryPersistentValueStore();
 * await values.set("p", "lastRun", { ok: true });
 */
export function createMemoryPersistentValueStore(): PersistentValueStore {
  const projects = new Map<string, Map<string, string>>();
  return {
    async get(projectId, name) {
      const json = projects.get(checkProjectId(projectId))?.get(checkKvKey(name, "name"));
      return json === undefined ? null : (JSON.parse(json) as JsonValue);
    },

    async set(projectInput, nameInput, value) {
      const projectId = checkProjectId(projectInput);
      const name = checkKvKey(nameInput, "name");
      const json = serializeKvValue(value);
      let values = projects.get(projectId);
      if (!values) projects.set(projectId, (values = new Map()));
      values.set(name, json);
    },

    async delete(projectId, name) {
      return projects.get(checkProjectId(projectId))?.delete(checkKvKey(name, "name")) ?? false;
    },

    async names(projectId) {
      return [...(projects.get(checkProjectId(projectId))?.keys() ?? [])].sort(compareUtf16);
    },
  };
}
