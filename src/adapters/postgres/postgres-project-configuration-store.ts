import { eq } from "drizzle-orm";
import { emptyProjectConfigurationState, type ConfigurationRecord, type ProjectConfigurationState } from "../../domain/configuration/configuration-state.js";
import { createStateBackedConfigurationStore } from "../../domain/configuration/state-backed-store.js";
import type { Clock } from "../../ports/clock.js";
import type { ProjectConfigurationStore } from "../../ports/project-configuration-store.js";
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
              const empty = emptyProjectConfigurationState(projectId);
              const created = await tx
                .insert(projects)
                .values({ projectId, revision: empty.revision, fields: JSON.stringify(empty.fields), currentConfigurationId: empty.currentConfigurationId, updatedAt: empty.updatedAt })
                .onConflictDoNothing()
                .returning({ projectId: projects.projectId });
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
  if (!project) return emptyProjectConfigurationState(projectId);
  const rows = await tx.select().from(configurations).where(eq(configurations.projectId, projectId));
  return {
    projectId,
    revision: project.revision,
    fields: JSON.parse(project.fields),
    currentConfigurationId: project.currentConfigurationId,
    updatedAt: project.updatedAt,
    records: rows.map(
      (row): ConfigurationRecord => ({
        configurationId: row.configurationId,
        name: row.name,
        values: JSON.parse(row.values),
        revision: row.revision,
        position: row.position,
        createdAt: row.createdAt,
        updatedAt: row.updatedAt,
        deletedAt: row.deletedAt,
      }),
    ),
  };
}

async function saveState(tx: PostgresQueryable, { configurationProjects, configurations }: ConfigurationTables, state: ProjectConfigurationState, changedIds: string[]): Promise<void> {
  const project = {
    projectId: state.projectId,
    revision: state.revision,
    fields: JSON.stringify(state.fields),
    currentConfigurationId: state.currentConfigurationId,
    updatedAt: state.updatedAt,
  };
  const { projectId: _key, ...projectUpdate } = project;
  await tx.insert(configurationProjects).values(project).onConflictDoUpdate({ target: configurationProjects.projectId, set: projectUpdate });
  for (const configurationId of new Set(changedIds)) {
    const record = state.records.find((r) => r.configurationId === configurationId);
    if (!record) continue;
    const row = { ...record, projectId: state.projectId, values: JSON.stringify(record.values) };
    const { projectId: _p, configurationId: _c, ...update } = row;
    await tx.insert(configurations).values(row).onConflictDoUpdate({ target: [configurations.projectId, configurations.configurationId], set: update });
  }
}
