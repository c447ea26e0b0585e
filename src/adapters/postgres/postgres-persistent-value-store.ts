import { and, eq } from "drizzle-orm";
import { checkKvKey, checkProjectId, compareUtf16, serializeKvValue, type JsonValue } from "../../domain/store-input.js";
import type { PersistentValueStore } from "../../ports/persistent-value-store.js";
import { guarded, type PostgresStoreContext } from "./postgres-database.js";

/**
 * The persistent-value port on PostgreSQL (`persistent_values`, one row per project and name).
 *
 * @example
 * const values = createPostgresPersistentValueStore({ db, tables, clock, state: { closed: false } });
 */
export function createPostgresPersistentValueStore({ db, tables, clock, state }: PostgresStoreContext): PersistentValueStore {
  const values = tables.persistentValues;
  const byName = (projectId: string, name: string) => and(eq(values.projectId, projectId), eq(values.name, name));
  return {
    async get(projectInput, nameInput) {
      const projectId = checkProjectId(projectInput);
      const name = checkKvKey(nameInput, "name");
      const [row] = await guarded(state, "value get", () => db.select({ value: values.value }).from(values).where(byName(projectId, name)));
      return row ? (JSON.parse(row.value) as JsonValue) : null;
    },

    async set(projectInput, nameInput, value) {
      const projectId = checkProjectId(projectInput);
      const name = checkKvKey(nameInput, "name");
      const json = serializeKvValue(value);
      const updatedAt = clock.now();
      await guarded(state, "value set", () =>
        db
          .insert(values)
          .values({ projectId, name, value: json, updatedAt })
          .onConflictDoUpdate({ target: [values.projectId, values.name], set: { value: json, updatedAt } }),
      );
    },

    async delete(projectInput, nameInput) {
      const projectId = checkProjectId(projectInput);
      const name = checkKvKey(nameInput, "name");
      const result = await guarded(state, "value delete", () => db.delete(values).where(byName(projectId, name)));
      return (result.rowCount ?? 0) > 0;
    },

    async names(projectInput) {
      const projectId = checkProjectId(projectInput);
      const rows = await guarded(state, "value names", () => db.select({ name: values.name }).from(values).where(eq(values.projectId, projectId)));
      // The port promises UTF-16 order, which no PostgreSQL collation gives for text: sort here.
      return rows.map((row) => row.name).sort(compareUtf16);
    },
  };
}
