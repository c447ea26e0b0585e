import { existsSync, readdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import type Database from "better-sqlite3";
import type { WorkflowRunIndex, WorkflowRunMark } from "../../../../ports/workflow-run-stores.js";
import { openMigratedSqlite } from "../shared/migrations.js";
import { sqliteStoreOn } from "../shared/sqlite-sql-driver.js";
import { conversationSessionsDirectory, hasForeignForks, sessionLockPath } from "../sessions/session-database-path.js";
import { SESSION_FILE_EXTENSION } from "../sessions/session-file-names.js";
import { openLockFile, tryLock } from "../sessions/sqlite-session-lease.js";
import { retainedRuns } from "./run-retention-schema.js";

/** The index file of a session folder. */
export const RUN_RETENTION_DATABASE_FILE = "_runs.sqlite";

/**
 * The run-retention index of a session folder: the port's {@link WorkflowRunIndex}, plus a run's
 * row and how long a run whose session is held right now is put off (`deferMs`, default one hour).
 */
export interface SqliteRunRetention extends WorkflowRunIndex {
  readonly agentStoreDir: string;
  /** The row of a run, or `null`. */
  get(projectId: string, runId: string): Promise<WorkflowRunMark | null>;
  prune(request: Parameters<WorkflowRunIndex["prune"]>[0] & { deferMs?: number }): ReturnType<WorkflowRunIndex["prune"]>;
}

/** Options of {@link createSqliteRunRetention}. */
export interface SqliteRunRetentionOptions {
  /** The session folder (`<agentStoreDir>/<conversation>/<session>.sqlite`); the index is `_runs.sqlite` in it. */
  agentStoreDir: string;
  /** How long a write waits for another process's write lock (default 5000 ms). */
  busyTimeoutMs?: number;
}

/** Takes the leases of every session file of a folder; `null` (nothing kept) when one is held. */
function holdAll(folder: string): Database.Database[] | null {
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => name.endsWith(SESSION_FILE_EXTENSION));
  } catch {
    return [];
  }
  const held: Database.Database[] = [];
  for (const name of names) {
    const lock = openLockFile(sessionLockPath(join(folder, name)));
    if (tryLock(lock)) held.push(lock);
    else {
      lock.close();
      for (const other of held) other.close();
      return null;
    }
  }
  return held;
}

/**
 * The run-retention index of a SQLite session folder (SES-12): a row per workflow run whose agents
 * keep their sessions in `<agentStoreDir>/<run id>/` (the run is their conversation), saying
 * whether it runs, waits for an answer or finished, and when its sessions may go. `prune` reads
 * due rows through an index (a batch costs its own rows, never the whole history), takes every
 * session's lease of a due run (a held one puts the run off: someone is running it), removes the
 * row only if unchanged since it was read, then the folder. Migrations from `drizzle/run-retention`.
 *
 * @example
 * const retention = await createSqliteRunRetention({ agentStoreDir: "/srv/project/.workflow/agents" });
 * retention.mark({ projectId, runId, state: "finished", at: Date.now(), expiresAt: Date.now() + 7 * 86_400_000 });
 * await retention.prune({ projectId, now: Date.now(), limit: 16 });
 */
export async function createSqliteRunRetention(options: SqliteRunRetentionOptions): Promise<SqliteRunRetention> {
  const agentStoreDir = resolve(options.agentStoreDir);
  const opened = openMigratedSqlite(join(agentStoreDir, RUN_RETENTION_DATABASE_FILE), { migrations: "run-retention", what: "the run-retention index", ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }) });
  const { driver, call, close } = sqliteStoreOn(opened, { retainedRuns });
  const { db, ops: { and, asc, eq, isNotNull, lt, sql } } = driver;
  const t = retainedRuns;
  type Row = typeof t.$inferSelect;
  // The statements of every run (a mark as it starts and ends, a look for due runs) are prepared
  // once: building drizzle's SQL costs more than running it.
  const p = (name: string) => sql.placeholder(name);
  const markRun = db
    .insert(t)
    .values({ projectId: p("projectId"), runId: p("runId"), state: p("state"), updatedAt: p("at"), expiresAt: p("expiresAt") })
    .onConflictDoUpdate({ target: [t.projectId, t.runId], set: { state: sql`excluded.state`, updatedAt: sql`excluded.updated_at`, expiresAt: sql`excluded.expires_at` } })
    .prepare();
  const dueRuns = db.select().from(t).where(and(eq(t.projectId, p("projectId")), isNotNull(t.expiresAt), lt(t.expiresAt, p("now")))).orderBy(asc(t.expiresAt)).limit(p("limit")).prepare();
  const oldRuns = db.select().from(t).where(and(eq(t.projectId, p("projectId")), eq(t.state, "finished"), lt(t.updatedAt, p("before")))).orderBy(asc(t.updatedAt)).limit(p("limit")).prepare();
  return {
    agentStoreDir,
    mark: (mark) => call("run retention mark", () => void markRun.run(mark)),
    get: (projectId, runId) =>
      call("run retention read", () => {
        const row = driver.get(db.select().from(t).where(and(eq(t.projectId, projectId), eq(t.runId, runId))));
        return row ? { projectId: row.projectId, runId: row.runId, state: row.state, at: row.updatedAt, expiresAt: row.expiresAt } : null;
      }),
    async prune(request) {
      const limit = Math.max(1, Math.floor(request.limit));
      const due: Row[] = await call("run retention due runs", () => dueRuns.all({ projectId: request.projectId, now: request.now, limit }));
      if (request.finishedBefore !== undefined && due.length < limit) {
        const seen = new Set(due.map((row) => row.runId));
        const old: Row[] = await call("run retention finished runs", () => oldRuns.all({ projectId: request.projectId, before: request.finishedBefore!, limit }));
        for (const row of old) if (!seen.has(row.runId) && due.length < limit) due.push(row);
      }
      const removed: string[] = [];
      const deferred: string[] = [];
      for (const row of due) {
        const sessions = conversationSessionsDirectory({ agentStoreDir, conversationId: row.runId });
        // FORK-1: a fork in another conversation reads through to one of its sessions: kept, like a held one, while the fork exists.
        const held = !existsSync(sessions) ? [] : hasForeignForks(agentStoreDir, sessions) ? null : holdAll(sessions);
        const unchanged = and(eq(t.projectId, row.projectId), eq(t.runId, row.runId), eq(t.state, row.state), eq(t.updatedAt, row.updatedAt));
        if (held === null) {
          // A live owner holds one of its sessions (someone runs it now), or a fork reads through to one: look again later.
          await call("run retention defer", () => driver.run(db.update(t).set({ expiresAt: request.now + (request.deferMs ?? 3_600_000) }).where(unchanged)));
          deferred.push(row.runId);
          continue;
        }
        try {
          // Only a row nobody marked since it was read (a paused task answered meanwhile is kept).
          if ((await call("run retention remove", () => driver.run(db.delete(t).where(unchanged)))) === 0) continue;
          rmSync(sessions, { recursive: true, force: true });
          removed.push(row.runId);
        } finally {
          for (const lock of held) lock.close();
        }
      }
      return { removed, deferred, more: due.length === limit };
    },
    close: () => void close(),
  };
}
