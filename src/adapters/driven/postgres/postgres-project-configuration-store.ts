import { and, eq } from "drizzle-orm";
import { emptyProjectConfigurationState, type ProjectConfigurationState } from "../../../domain/configuration/configuration-state.js";
import { createStateBackedConfigurationStore } from "../../../domain/configuration/state-backed-store.js";
import type { Clock } from "../../../ports/clock.js";
import type { ProjectConfigurationStore } from "../../../ports/project-configuration-store.js";
import { configurationRowsOf, configurationStateOf } from "../kernel/configuration-rows.js";
import { createSystemClock } from "../system/clock.js";
import { guarded, openPostgres, type PostgresConnectionOptions, type PostgresDb, type PostgresQueryable } from "./postgres-database.js";
import type { PostgresTables } from "./schema.js";

/** Options of {@link createPostgresProjectConfigurationStore}. */
export interface PostgresProjectConfigurationStoreOptions extends PostgresConnectionOptions {
  clock?: Clock;
  /** The account whose projects this store reads and writes (CFG-4); default "" (a host's own store). */
  accountId?: string;
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
  const state = { closed: false };
  return postgresConfigurationStoreOn(connection.db, connection.tables, state, options.accountId ?? "", options.clock ?? createSystemClock(), async () => {
    if (state.closed) return;
    state.closed = true;
    await connection.release();
  });
}

/**
 * The port over an open connection, scoped to one account's projects; `close` is what the
 * store's `close()` runs (the owner of the connection decides what it releases).
 *
 * @example
 * const store = postgresConfigurationStoreOn(connection.db, connection.tables, { closed: false }, accountId, clock, async () => {});
 */
export function postgresConfigurationStoreOn(
  db: PostgresDb,
  tables: ConfigurationTables,
  state: { closed: boolean },
  accountId: string,
  clock: Clock,
  close: () => Promise<void>,
): ProjectConfigurationStore {
  const projects = tables.configurationProjects;
  const projectKey = (projectId: string) => and(eq(projects.accountId, accountId), eq(projects.projectId, projectId));
  return createStateBackedConfigurationStore(
    {
      async load(projectId) {
        return guarded(state, "configuration read", () =>
          db.transaction((tx) => loadState(tx, tables, accountId, projectId), { isolationLevel: "repeatable read", accessMode: "read only" }),
        );
      },
      async transact(projectId, apply) {
        return guarded(state, "configuration write", () =>
          db.transaction(async (tx) => {
            // Lock the project row, creating it as the empty state when the project is new; a
            // concurrent creator makes the insert wait, then do nothing, and the lock is retried.
            for (;;) {
              const [locked] = await tx.select({ revision: projects.revision }).from(projects).where(projectKey(projectId)).for("update");
              if (locked) break;
              const empty = configurationRowsOf(emptyProjectConfigurationState(projectId), [], accountId).project;
              const created = await tx.insert(projects).values(empty).onConflictDoNothing().returning({ projectId: projects.projectId });
              if (created.length > 0) break;
            }
            const { state: next, changedIds } = apply(await loadState(tx, tables, accountId, projectId));
            await saveState(tx, tables, accountId, next, changedIds);
            return next;
          }),
        );
      },
      close,
    },
    clock,
  );
}

async function loadState(tx: PostgresQueryable, { configurationProjects: projects, configurations }: ConfigurationTables, accountId: string, projectId: string): Promise<ProjectConfigurationState> {
  const [project] = await tx.select().from(projects).where(and(eq(projects.accountId, accountId), eq(projects.projectId, projectId)));
  const rows = project ? await tx.select().from(configurations).where(and(eq(configurations.accountId, accountId), eq(configurations.projectId, projectId))) : [];
  return configurationStateOf(projectId, project, rows);
}

async function saveState(tx: PostgresQueryable, { configurationProjects: projects, configurations }: ConfigurationTables, accountId: string, state: ProjectConfigurationState, changedIds: string[]): Promise<void> {
  const { project, configurations: rows } = configurationRowsOf(state, changedIds, accountId);
  await tx.insert(projects).values(project).onConflictDoUpdate({ target: [projects.accountId, projects.projectId], set: project });
  for (const row of rows) {
    await tx.insert(configurations).values(row).onConflictDoUpdate({ target: [configurations.accountId, configurations.projectId, configurations.configurationId], set: row });
  }
}
