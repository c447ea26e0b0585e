import { and, eq } from "drizzle-orm";
import type { PersistentValueStore } from "../../../ports/persistent-value-store.js";
import { createPersistentValueStore } from "../kernel/persistent-value-store.js";
import { postgresCall, type PostgresStoreContext } from "./postgres-database.js";

/**
 * The persistent-value port on PostgreSQL (`persistent_values`, one row per project and name):
 * the kernel's port over these rows.
 *
 * @example
 * const values = createPostgresPersistentValueStore({ db, tables, clock, state: { closed: false } });
 */
export function createPostgresPersistentValueStore({ db, tables, clock, state }: PostgresStoreContext): PersistentValueStore {
  const values = tables.persistentValues;
  const byName = (projectId: string, name: string) => and(eq(values.projectId, projectId), eq(values.name, name));
  return createPersistentValueStore(
    {
      get: async (projectId, name) => (await db.select({ value: values.value }).from(values).where(byName(projectId, name)))[0]?.value,
      async set(projectId, name, json) {
        const updatedAt = clock.now();
        await db.insert(values).values({ projectId, name, value: json, updatedAt }).onConflictDoUpdate({ target: [values.projectId, values.name], set: { value: json, updatedAt } });
      },
      delete: async (projectId, name) => ((await db.delete(values).where(byName(projectId, name))).rowCount ?? 0) > 0,
      names: async (projectId) => (await db.select({ name: values.name }).from(values).where(eq(values.projectId, projectId))).map((row) => row.name),
    },
    postgresCall(state),
  );
}
