/**
 * The project configuration store on a SQL driver (ARCH-3, ARCH-8): the domain's
 * `createStateBackedConfigurationStore` owns the port's rules; the rows read a project's rows into
 * its state and write the records a command changed.
 */
import { emptyProjectConfigurationState, type ConfigurationRecord, type ProjectConfigurationState } from "../../../domain/configuration/configuration-state.js";
import { createStateBackedConfigurationStore } from "../../../domain/configuration/state-backed-store.js";
import type { ProjectConfigurationStore } from "../../../ports/project-configuration-store.js";
import { then, type Sql, type SqlDriver, type SqlStatement, type SqlSteps, type SqlStore } from "./sql-driver.js";
import type { Awaitable } from "./store-call.js";

type ProjectParams = { accountId: string; projectId: string };
const PROJECT: SqlStatement<ProjectParams> = {
  mode: "get",
  build: ({ db, tables: { configurationProjects: projects }, ops: { and, eq } }, param) =>
    db.select().from(projects).where(and(eq(projects.accountId, param("accountId")), eq(projects.projectId, param("projectId")))),
};
const RECORDS: SqlStatement<ProjectParams> = {
  mode: "all",
  build: ({ db, tables: { configurations }, ops: { and, eq } }, param) =>
    db.select().from(configurations).where(and(eq(configurations.accountId, param("accountId")), eq(configurations.projectId, param("projectId")))),
};

/** A project's state from its rows (the empty state without a project row); JSON columns are text. */
function* loadState(tx: SqlDriver, accountId: string, projectId: string): SqlSteps<ProjectConfigurationState> {
  const project = yield tx.execute(PROJECT, { accountId, projectId });
  if (!project) return emptyProjectConfigurationState(projectId);
  const rows: Sql[] = yield tx.execute(RECORDS, { accountId, projectId });
  const records = rows.map(({ accountId: _account, projectId: _project, values, ...record }): ConfigurationRecord => ({ ...record, values: JSON.parse(values) }));
  return { projectId, revision: project.revision, fields: JSON.parse(project.fields), currentConfigurationId: project.currentConfigurationId, updatedAt: project.updatedAt, records };
}

/** The project row of a state, keyed by the account that owns it ("" for a host's own store). */
const projectRow = ({ projectId, revision, fields, currentConfigurationId, updatedAt }: ProjectConfigurationState, accountId: string) => ({ accountId, projectId, revision, fields: JSON.stringify(fields), currentConfigurationId, updatedAt });

/** Projects whose state one store keeps in memory at most (a worker reads one). */
const CACHED_PROJECTS = 64;

/**
 * The project configuration port (CFG-1) on an open database, scoped to one account's projects;
 * its `close` is what the store's `close()` runs (the owner of the connection decides what it releases). A
 * write is one transaction holding the project's lock (PostgreSQL: its row's, a fresh project
 * getting its row first as the empty state): it reads the project, applies the domain's rules and
 * writes back, so two writers holding the same revision, in any process, cannot both win. A read
 * is one read-only snapshot.
 *
 * `changeSignal`, when given, is a cheap read whose value changes whenever anyone but this store
 * commits (SQLite's `PRAGMA data_version` on a connection only this store writes through): reads
 * are then answered from the state loaded last while the signal keeps its value and this store
 * has not written since, so a workflow worker's per-run read (CFG-2) costs one tiny statement.
 *
 * @example
 * const store = sqlConfigurationStoreOn(await openPostgresStore(options), accountId);
 */
export function sqlConfigurationStoreOn({ driver, call, close }: SqlStore, accountId: string, changeSignal?: () => number): ProjectConfigurationStore {
  const { configurationProjects: projects, configurations } = driver.tables;
  const load = (projectId: string) => driver.transaction((tx) => loadState(tx, accountId, projectId), { readOnly: true });
  // States loaded under the signal's value `version` (the domain never mutates a loaded state: its readers and commands copy it).
  const cache = { version: Number.NaN, states: new Map<string, ProjectConfigurationState>() };
  const cachedLoad = (projectId: string): Awaitable<ProjectConfigurationState> => {
    if (!changeSignal) return load(projectId);
    // The signal is read before the state: a commit landing in between makes the next read load again.
    const version = changeSignal();
    if (version !== cache.version) cache.states.clear();
    cache.version = version;
    const cached = cache.states.get(projectId);
    if (cached) return cached;
    return then(load(projectId), (loaded) => {
      if (cache.states.size >= CACHED_PROJECTS) cache.states.clear();
      cache.states.set(projectId, loaded);
      return loaded;
    });
  };
  return createStateBackedConfigurationStore(
    {
      load: (projectId) => call("configuration read", () => cachedLoad(projectId)),
      transact(projectId, apply) {
        // This store's own commits leave `data_version` as it is: they drop what it remembers.
        cache.states.clear();
        return call("configuration write", () =>
          driver.transaction(function* (tx) {
            const key = [projects.accountId, projects.projectId];
            // Lock the project row, creating it as the empty state when the project is new: an upsert that changes
            // nothing locks a row that exists, and a concurrent creator's waits for it (SQLite's transaction holds the database).
            if (tx.dialect === "postgres") yield tx.run(tx.db.insert(projects).values(projectRow(emptyProjectConfigurationState(projectId), accountId)).onConflictDoUpdate({ target: key, set: { projectId: tx.ops.sql`excluded.project_id` } }));
            const { state: next, changedIds } = apply(yield* loadState(tx, accountId, projectId));
            const project = projectRow(next, accountId);
            yield tx.run(tx.db.insert(projects).values(project).onConflictDoUpdate({ target: key, set: project }));
            // One row per configuration the command changed.
            for (const record of next.records.filter((one) => changedIds.includes(one.configurationId))) {
              const row = { ...record, accountId, projectId, values: JSON.stringify(record.values) };
              yield tx.run(tx.db.insert(configurations).values(row).onConflictDoUpdate({ target: [configurations.accountId, configurations.projectId, configurations.configurationId], set: row }));
            }
            return next;
          }),
        );
      },
      close,
    },
    driver.clock,
  );
}
