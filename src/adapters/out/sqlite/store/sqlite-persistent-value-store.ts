import type { PersistentValueStore } from "../../../../ports/persistent-value-store.js";
import { createPersistentValueStore } from "../../kernel/persistent-value-store.js";
import { drizzleOrm } from "../shared/drizzle-modules.js";
import { storeTables } from "./schema.js";
import type { SqliteStoreContext } from "./sqlite-kv-store.js";
import { sqliteCall } from "./sqlite-support.js";

/**
 * The persistent-value port on SQLite (`persistent_values`, one row per project and name): the
 * kernel's port over these rows.
 *
 * @example
 * const store = createSqlitePersistentValueStore({ db, clock, state: { closed: false } });
 */
export function createSqlitePersistentValueStore({ db, clock, state }: SqliteStoreContext): PersistentValueStore {
  const { and, eq, sql } = drizzleOrm();
  const { persistentValues: values } = storeTables();
  const byName = (projectId: string, name: string) => and(eq(values.projectId, projectId), eq(values.name, name));
  return createPersistentValueStore(
    {
      get: (projectId, name) => db.select({ value: values.value }).from(values).where(byName(projectId, name)).get()?.value,
      set: (projectId, name, json) =>
        void db
          .insert(values)
          .values({ projectId, name, value: json, updatedAt: clock.now() })
          .onConflictDoUpdate({ target: [values.projectId, values.name], set: { value: sql`excluded.value`, updatedAt: sql`excluded.updated_at` } })
          .run(),
      delete: (projectId, name) => db.delete(values).where(byName(projectId, name)).run().changes > 0,
      names: (projectId) => db.select({ name: values.name }).from(values).where(eq(values.projectId, projectId)).all().map((row) => row.name),
    },
    sqliteCall(state),
  );
}
