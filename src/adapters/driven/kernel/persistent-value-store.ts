/**
 * The persistent-value port written once (ARCH-3, ARCH-8) on the SQL row driver: name and value
 * checks, JSON text in and out, names in UTF-16 order (no SQL collation gives it), over
 * `persistent_values`, one row per project and name.
 */
import { checkKvKey, checkProjectId, compareUtf16, serializeKvValue, type JsonValue } from "../../../domain/store-input.js";
import type { PersistentValueStore } from "../../../ports/persistent-value-store.js";
import { then, type Sql, type SqlDriver, type SqlStatement } from "./sql-driver.js";
import type { StoreCall } from "./store-call.js";

type NameParams = { projectId: string; name: string };
const byName = ({ tables: { persistentValues: values }, ops: { and, eq } }: SqlDriver, param: (name: keyof NameParams) => Sql) =>
  and(eq(values.projectId, param("projectId")), eq(values.name, param("name")));

// get and set run on every workflow run (its configuration snapshot, CFG-2): SQLite prepares each once.
const GET: SqlStatement<NameParams> = { mode: "get", build: (on, param) => on.db.select({ value: on.tables.persistentValues.value }).from(on.tables.persistentValues).where(byName(on, param)) };
const SET: SqlStatement<NameParams & { value: string; updatedAt: number }> = {
  mode: "run",
  build: ({ db, tables: { persistentValues: values }, ops: { sql } }, param) =>
    db
      .insert(values)
      .values({ projectId: param("projectId"), name: param("name"), value: param("value"), updatedAt: param("updatedAt") })
      .onConflictDoUpdate({ target: [values.projectId, values.name], set: { value: sql`excluded.value`, updatedAt: sql`excluded.updated_at` } }),
};

/**
 * The persistent-value port on a SQL driver, each step run through `call`.
 *
 * @example
 * const values = createPersistentValueStore(driver, sqliteCall(state));
 */
export function createPersistentValueStore(driver: SqlDriver, call: StoreCall): PersistentValueStore {
  const { db, tables: { persistentValues: values }, ops: { and, eq } } = driver;
  const checked = (projectId: unknown, name: unknown): NameParams => ({ projectId: checkProjectId(projectId), name: checkKvKey(name, "name") });
  return {
    async get(projectInput, nameInput) {
      const params = checked(projectInput, nameInput);
      const row = await call("value get", () => driver.execute(GET, params));
      return row ? (JSON.parse(row.value) as JsonValue) : null;
    },

    async set(projectInput, nameInput, value) {
      const params = { ...checked(projectInput, nameInput), value: serializeKvValue(value), updatedAt: driver.clock.now() };
      await call("value set", () => driver.execute(SET, params));
    },

    async delete(projectInput, nameInput) {
      const { projectId, name } = checked(projectInput, nameInput);
      return call("value delete", () => then(driver.run(db.delete(values).where(and(eq(values.projectId, projectId), eq(values.name, name)))), (count) => count > 0));
    },

    async names(projectInput) {
      const projectId = checkProjectId(projectInput);
      const rows = await call("value names", () => driver.all(db.select({ name: values.name }).from(values).where(eq(values.projectId, projectId))));
      return rows.map((row) => row.name as string).sort(compareUtf16);
    },
  };
}
