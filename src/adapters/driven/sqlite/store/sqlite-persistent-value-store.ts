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
  // get and set run on every workflow run (its configuration snapshot, CFG-2): each is prepared
  // on first use and kept, so they skip drizzle's query building and SQLite's statement parse.
  let getStatement: ReturnType<typeof prepareGet> | undefined;
  let setStatement: ReturnType<typeof prepareSet> | undefined;
  const prepareGet = () => db.select({ value: values.value }).from(values).where(and(eq(values.projectId, sql.placeholder("projectId")), eq(values.name, sql.placeholder("name")))).prepare();
  const prepareSet = () =>
    db
      .insert(values)
      .values({ projectId: sql.placeholder("projectId"), name: sql.placeholder("name"), value: sql.placeholder("value"), updatedAt: sql.placeholder("updatedAt") })
      .onConflictDoUpdate({ target: [values.projectId, values.name], set: { value: sql`excluded.value`, updatedAt: sql`excluded.updated_at` } })
      .prepare();
  return createPersistentValueStore(
    {
      get: (projectId, name) => (getStatement ??= prepareGet()).get({ projectId, name })?.value,
      set: (projectId, name, json) => void (setStatement ??= prepareSet()).run({ projectId, name, value: json, updatedAt: clock.now() }),
      delete: (projectId, name) => db.delete(values).where(byName(projectId, name)).run().changes > 0,
      names: (projectId) => db.select({ name: values.name }).from(values).where(eq(values.projectId, projectId)).all().map((row) => row.name),
    },
    sqliteCall(state),
  );
}
