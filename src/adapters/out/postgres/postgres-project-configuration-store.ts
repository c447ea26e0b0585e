import { eq } from "drizzle-orm";
import { emptyProjectConfigurationState, type ProjectConfigurationState } from "../../../domain/configuration/configuration-state.js";
import { createStateBackedConfigurationStore } from "../../../domain/configuration/state-backed-store.js";
import type { Clock } from "../../../ports/clock.js";
import type { ProjectConfigurationStore } from "../../../ports/project-configuration-store.js";
import { configurationRowsOf, configurationStateOf } from "../kernel/configuration-rows.js";
import { createSystemClock } from "../system/clock.js";
import { guarded, openPostgres, type PostgresConnectionOptions, type PostgresQueryable } from "./postgres-database.js";
import type { PostgresTables } from "./schema.js";

/** Options of {@link createPostgresProjectConfigurationStore}. */
export interface PostgresProjectConfigurationStoreOptions extends PostgresConnectionOptions {
  clock?: Clock;
}

type ConfigurationTables = Pick<PostgresTables, "configurationProjects" | "configurations">;

/**
 * The project configuration store (CFG-1) on PostgreSQL, in the same schema and migrations as
 * `createPostgresStorage`. A write is one transaction holding the project row's lock (a fresh
 * project gets its row first, as revision 0, the empty state): it reads the project, applies the
 * domain's rules and writes back, so two writers holding the same revision — in any process —
 * cannot both win. Reads use one REPEATABLE READ snapshot. Async because it migrates on open;
 * `close()` ends the pool it created (never a host's `pool`).
 *
 * @example
 * const store = await createPostgresProjectConfigurationStore({ connectionString: process.env.DATABASE_URL });
 * const overview = await store.read("my-project");
 * await store.close?.();
 */
export async function createPostgresProjectConfigurationStore(options: PostgresProjectConfigurationStoreOptions = {}): Promise<ProjectConfigurationStore> {
  const connection = await openPostgres(options);
  const { db, tables } = connection;
  const state = { closed: false };
  const projects = tables.configurationProjects;
  return createStateBackedConfigurationStore(
    {
      async load(projectId) {
        return guarded(state, "configuration read", () =>
          db.transaction((tx) => loadState(tx, tables, projectId), { isolationLevel: "repeatable read", accessMode: "read only" }),
        );
      },
      async transact(projectId, apply) {
        return guarded(state, "configuration write", () =>
          db.transaction(async (tx) => {
            // Lock the project row, creating it as the empty state when the project is new; a
            // concurrent creator makes the insert wait, then do nothing, and the lock is retried.
            for (;;) {
              const [locked] = await tx.select({ revision: projects.revision }).from(projects).where(eq(projects.projectId, projectId)).for("update");
              if (locked) break;
              const empty = configurationRowsOf(emptyProjectConfigurationState(projectId), []).project;
              const created = await tx.insert(projects).values(empty).onConflictDoNothing().returning({ projectId: projects.projectId });
              if (created.length > 0) break;
            }
            const { state: next, changedIds } = apply(await loadState(tx, tables, projectId));
            await saveState(tx, tables, next, changedIds);
            return next;
          }),
        );
      },
      async close() {
        if (state.closed) return;
        state.closed = true;
        await connection.release();
      },
    },
    options.clock ?? createSystemClock(),
  );
}

async function loadState(tx: PostgresQueryable, { configurationProjects, configurations }: ConfigurationTables, projectId: string): Promise<ProjectConfigurationState> {
  const [project] = await tx.select().from(configurationProjects).where(eq(configurationProjects.projectId, projectId));
  return configurationStateOf(projectId, project, project ? await tx.select().from(configurations).where(eq(configurations.projectId, projectId)) : []);
}

async function saveState(tx: PostgresQueryable, { configurationProjects, configurations }: ConfigurationTables, state: ProjectConfigurationState, changedIds: string[]): Promise<void> {
  const { project, configurations: rows } = configurationRowsOf(state, changedIds);
  await tx.insert(configurationProjects).values(project).onConflictDoUpdate({ target: configurationProjects.projectId, set: project });
  for (const row of rows) {
    await tx.insert(configurations).values(row).onConflictDoUpdate({ target: [configurations.projectId, configurations.configurationId], set: row });
  }
}
