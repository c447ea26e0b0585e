import { drizzleOrm } from "../shared/drizzle-modules.js";
import {
  checkKvKey,
  checkProjectId,
  compareUtf16,
  serializeKvValue,
  type JsonValue,
} from "../../../domain/store-input.js";
import type { PersistentValueStore } from "../../../ports/persistent-value-store.js";
import { storeTables } from "./schema.js";
import type { SqliteStoreContext } from "./sqlite-kv-store.js";
import { assertOpen, withSqliteRetry } from "./sqlite-support.js";

/**
 * The persistent-value port on SQLite (`persistent_values`, one row per project and name).
 *
 * @example
 * const store = createSqlitePersistentValueStore({ db, clock, state: { closed: false } });
 */
export function createSqlitePersistentValueStore({ db, clock, state }: SqliteStoreContext): PersistentValueStore {
  const { and, eq, sql } = drizzleOrm();
  const { persistentValues: values } = storeTables();
  const byName = (projectId: string, name: string) => and(eq(values.projectId, projectId), eq(values.name, name));
  return {
    async get(projectInput, nameInput) {
      const projectId = checkProjectId(projectInput);
      const name = checkKvKey(nameInput, "name");
      assertOpen(state.closed);
      const row = withSqliteRetry("value get", () =>
        db.select({ value: values.value }).from(values).where(byName(projectId, name)).get(),
      );
      return row ? (JSON.parse(row.value) as JsonValue) : null;
    },

    async set(projectInput, nameInput, value) {
      const projectId = checkProjectId(projectInput);
      const name = checkKvKey(nameInput, "name");
      const json = serializeKvValue(value);
      assertOpen(state.closed);
      const updatedAt = clock.now();
      withSqliteRetry("value set", () =>
        db
          .insert(values)
          .values({ projectId, name, value: json, updatedAt })
          .onConflictDoUpdate({
            target: [values.projectId, values.name],
            set: { value: sql`excluded.value`, updatedAt: sql`excluded.updated_at` },
          })
          .run(),
      );
    },

    async delete(projectInput, nameInput) {
      const projectId = checkProjectId(projectInput);
      const name = checkKvKey(nameInput, "name");
      assertOpen(state.closed);
      return withSqliteRetry("value delete", () => db.delete(values).where(byName(projectId, name)).run()).changes > 0;
    },

    async names(projectInput) {
      const projectId = checkProjectId(projectInput);
      assertOpen(state.closed);
      const rows = withSqliteRetry("value names", () =>
        db.select({ name: values.name }).from(values).where(eq(values.projectId, projectId)).all(),
      );
      // TEXT sorts by UTF-8 bytes in SQLite; the port promises UTF-16 order, so sort here.
      return rows.map((row) => row.name).sort(compareUtf16);
    },
  };
}
