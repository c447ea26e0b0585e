/**
 * The persistent-value port written once (ARCH-3): name and value checks, JSON text in and out,
 * names in UTF-16 order (no SQL collation gives it), over a family's {@link PersistentValueRows}.
 */
import { checkKvKey, checkProjectId, compareUtf16, serializeKvValue, type JsonValue } from "../../../domain/store-input.js";
import type { PersistentValueStore } from "../../../ports/persistent-value-store.js";
import type { Awaitable, StoreCall } from "./store-call.js";

/** Row access of the persistent-value port: values as JSON text; ids arrive checked. */
export interface PersistentValueRows {
  /** The value's JSON text, or null/undefined when absent. */
  get(projectId: string, name: string): Awaitable<string | null | undefined>;
  /** Creates or replaces the value. */
  set(projectId: string, name: string, json: string): Awaitable<void>;
  /** Removes the value; `true` when it existed. */
  delete(projectId: string, name: string): Awaitable<boolean>;
  /** Every name of the project, in any order. */
  names(projectId: string): Awaitable<string[]>;
}

/**
 * The persistent-value port over `rows`, each step run through `call`.
 *
 * @example
 * const values = createPersistentValueStore(createSqlitePersistentValueRows(context), sqliteCall(state));
 */
export function createPersistentValueStore(rows: PersistentValueRows, call: StoreCall): PersistentValueStore {
  const checked = (projectId: unknown, name: unknown): [string, string] => [checkProjectId(projectId), checkKvKey(name, "name")];
  return {
    async get(projectInput, nameInput) {
      const [projectId, name] = checked(projectInput, nameInput);
      const json = await call("value get", () => rows.get(projectId, name));
      return json === null || json === undefined ? null : (JSON.parse(json) as JsonValue);
    },

    async set(projectInput, nameInput, value) {
      const [projectId, name] = checked(projectInput, nameInput);
      const json = serializeKvValue(value);
      await call("value set", () => rows.set(projectId, name, json));
    },

    async delete(projectInput, nameInput) {
      const [projectId, name] = checked(projectInput, nameInput);
      return call("value delete", () => rows.delete(projectId, name));
    },

    async names(projectInput) {
      const projectId = checkProjectId(projectInput);
      return (await call("value names", () => rows.names(projectId))).sort(compareUtf16);
    },
  };
}
