import type { JsonValue } from "../domain/json.js";

/**
 * Named JSON values a workflow keeps between runs (a project's "PersistentValue"). Names follow
 * the KV key rules; values the KV value rules. Invalid input fails with `input_validation`.
 */
export interface PersistentValueStore {
  /** The value, or `null` when the name is absent. */
  get(projectId: string, name: string): Promise<JsonValue | null>;
  /** Creates or replaces the value. */
  set(projectId: string, name: string, value: JsonValue): Promise<void>;
  /** Removes the value; `true` when it existed. */
  delete(projectId: string, name: string): Promise<boolean>;
  /** Every name in ascending order. */
  names(projectId: string): Promise<string[]>;
}
