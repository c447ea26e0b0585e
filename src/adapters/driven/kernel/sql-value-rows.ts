/**
 * The persistent-value rows for both SQL dialects (ARCH-8): `persistent_values`, one row per
 * project and name.
 */
import type { PersistentValueRows } from "./persistent-value-store.js";
import { then, type Sql, type SqlDriver, type SqlStatement } from "./sql-driver.js";

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
 * The kernel's persistent-value rows on a SQL driver.
 *
 * @example
 * const values = createPersistentValueStore(sqlValueRows(driver), sqliteCall(state));
 */
export function sqlValueRows(driver: SqlDriver): PersistentValueRows {
  const { db, tables: { persistentValues: values }, ops: { and, eq } } = driver;
  return {
    get: (projectId, name) => then(driver.execute(GET, { projectId, name }), (row) => row?.value),
    set: (projectId, name, value) => then(driver.execute(SET, { projectId, name, value, updatedAt: driver.clock.now() }), () => undefined),
    delete: (projectId, name) => then(driver.run(db.delete(values).where(and(eq(values.projectId, projectId), eq(values.name, name)))), (count) => count > 0),
    names: (projectId) => then(driver.all(db.select({ name: values.name }).from(values).where(eq(values.projectId, projectId))), (rows) => rows.map((row) => row.name as string)),
  };
}
