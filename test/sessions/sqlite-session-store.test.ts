import { afterAll, describe, expect, it } from "@jest/globals";
import Database from "better-sqlite3";
import { execFile, execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { isSteamharnessError } from "../../src/domain/errors.js";
import type { SessionEventInput } from "../../src/ports/session-store.js";
import { conversationSessionsDirectory, resolveSessionDatabasePath } from "../../src/adapters/driven/sqlite/sessions/session-database-path.js";
import { findMigrationsFolder } from "../../src/adapters/driven/system/migrations-folder.js";
import { migrateSqlite, seedSqliteFile } from "../../src/adapters/driven/sqlite/shared/migrations.js";
import { SESSION_READS } from "../../src/adapters/driven/kernel/sql-session-rows.js";
import { sqliteSqlDriver } from "../../src/adapters/driven/sqlite/shared/sqlite-sql-driver.js";
import { sessionTables } from "../../src/adapters/driven/sqlite/sessions/session-schema.js";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import { createSqliteSessionStore } from "../../src/adapters/driven/sqlite/sessions/sqlite-session-store.js";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { runSessionStoreContract } from "../../src/testing/session-store.contract.js";
import { bundledFixture } from "../fixtures/bundled-fixture.js";

const root = mkdtempSync(join(tmpdir(), "sh-session-store-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

runSessionStoreContract({ describe, it, expect }, () => {
  const path = join(root, `contract-${n++}`, "session.sqlite");
  const address = { projectId: "p", conversationId: "c", sessionKey: "agent" };
  return {
    store: createSqliteSessionStore({ path, address }),
    reopen: async () => createSqliteSessionStore({ path, address }),
  };
});

const address = (sessionKey: string, conversationId?: string) => ({ projectId: "p", conversationId, sessionKey });
const plan = (run: string, n: number): SessionEventInput => ({ eventId: `${run}/plan/${n}`, runId: run, type: "plan", payload: { planIndex: n, text: `plan ${n}` } });

describe("SQLite session store extras", () => {
  it("SES-1 migrations run on open: tables, one recorded migration, WAL; reopening applies nothing", async () => {
    const path = join(root, "migrations", "s.sqlite");
    await createSqliteSessionStore({ path, address: address("agent") }).close();
    await createSqliteSessionStore({ path, address: address("agent") }).close();
    const raw = new Database(path, { readonly: true });
    try {
      const tables = raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
      expect(tables).toEqual(expect.arrayContaining(["session_events", "session_meta", "session_snapshots", "__drizzle_migrations"]));
      const journal = JSON.parse(readFileSync(join(findMigrationsFolder("session")!, "meta", "_journal.json"), "utf8")) as { entries: unknown[] };
      expect(raw.prepare("SELECT count(*) FROM __drizzle_migrations").pluck().get()).toBe(journal.entries.length);
      expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(raw.pragma("user_version", { simple: true })).toBe(journal.entries.length);
      const indexes = raw.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'session_events'").pluck().all();
      expect(indexes).toEqual(expect.arrayContaining(["session_events_event_id_unique", "session_events_run_seq_idx"]));
    } finally {
      raw.close();
    }
  });

  it("SES-1 a new session file is written whole from a migrated image: the schema a migration makes, WAL, its meta row from the start, no temporary file left; an existing file is kept", async () => {
    const seeded = join(root, "seeded", "s.sqlite");
    await createSqliteSessionStore({ path: seeded, address: address("agent", "c1") }).close();
    // The same schema as a file migrated the ordinary way.
    const migrated = join(root, "seeded", "migrated.sqlite");
    const client = new Database(migrated);
    migrateSqlite(client, findMigrationsFolder("session")!);
    const schemaOf = (raw: Database.Database) => raw.prepare("SELECT type, name, sql FROM sqlite_master ORDER BY name").all();
    const raw = new Database(seeded, { readonly: true });
    try {
      expect(schemaOf(raw)).toEqual(schemaOf(client));
      expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(raw.prepare("SELECT project_id, conversation_id, session_key, last_seq FROM session_meta").all()).toEqual([{ project_id: "p", conversation_id: "c1", session_key: "agent", last_seq: 0 }]);
    } finally {
      raw.close();
      client.close();
    }
    expect(readdirSync(dirname(seeded)).filter((name) => name.endsWith(".seed"))).toEqual([]);
    expect(seedSqliteFile(seeded, findMigrationsFolder("session")!)).toBe(false);
    const reopened = createSqliteSessionStore({ path: seeded, address: address("agent", "c1") });
    expect((await reopened.append([plan("r1", 0)])).events[0]!.seq).toBe(1);
    await reopened.close();
  });

  it("UI-1 a new file comes with a first WAL commit that SQLite recovers (so a new chat's first commit starts no WAL and syncs nothing); the file stays whole when that WAL is lost", async () => {
    const folder = findMigrationsFolder("session")!;
    const seeded = join(root, "first-wal", "s.sqlite");
    expect(seedSqliteFile(seeded, folder)).toBe(true);
    expect(readdirSync(dirname(seeded)).sort()).toEqual(["s.sqlite", "s.sqlite-wal"]);
    const client = new Database(seeded);
    try {
      // The WAL holds one valid commit: a checkpoint finds one frame (SQLite ignores a WAL whose checksums fail).
      expect(client.pragma("wal_checkpoint(PASSIVE)")).toEqual([{ busy: 0, log: 1, checkpointed: 1 }]);
      expect(client.pragma("integrity_check", { simple: true })).toBe("ok");
    } finally {
      client.close();
    }
    const store = createSqliteSessionStore({ path: seeded, address: address("agent", "c1") });
    expect((await store.append([plan("r1", 0)])).events[0]!.seq).toBe(1);
    await store.close();
    // Without its WAL (a crash before it reached the disk) the file is the same database.
    const lost = join(root, "first-wal", "lost.sqlite");
    expect(seedSqliteFile(lost, folder)).toBe(true);
    rmSync(`${lost}-wal`);
    const reopened = createSqliteSessionStore({ path: lost, address: address("agent", "c2") });
    expect((await reopened.append([plan("r1", 0)])).events[0]!.seq).toBe(1);
    await reopened.close();
  });

  it("SES-1 query plans: head and get are key lookups, readRun an index range already in seq order, readAfter a rowid range", async () => {
    const path = join(root, "plans", "s.sqlite");
    await createSqliteSessionStore({ path, address: address("agent") }).close();
    const client = new Database(path);
    try {
      const { sessionMeta, sessionEvents, sessionSnapshots } = sessionTables();
      const driver = sqliteSqlDriver(drizzle({ client }), { heads: sessionMeta, events: sessionEvents, snapshots: sessionSnapshots }, { now: () => 0 });
      const plan = (statement: (typeof SESSION_READS)[keyof typeof SESSION_READS]) => {
        const { sql, params } = new SQLiteSyncDialect().sqlToQuery(statement.build(driver, (name) => driver.ops.sql.placeholder(name)));
        const args = params.map((p) => (typeof p === "object" && p !== null ? 1 : p));
        return (client.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as Array<{ detail: string }>).map((row) => row.detail).join(" | ");
      };
      const head = plan(SESSION_READS.head);
      expect(head).toMatch(/SEARCH session_meta USING INTEGER PRIMARY KEY/);
      expect(head).toMatch(/SEARCH .*session_snapshots.* USING INTEGER PRIMARY KEY/);
      expect(head).not.toMatch(/SCAN/);
      expect(plan(SESSION_READS.byId)).toMatch(/SEARCH session_events USING INDEX session_events_event_id_unique/);
      const byRun = plan(SESSION_READS.byRun);
      expect(byRun).toMatch(/SEARCH session_events USING INDEX session_events_run_seq_idx \(run_id=\?\)/);
      expect(byRun).not.toMatch(/TEMP B-TREE/);
      const after = plan(SESSION_READS.after);
      expect(after).toMatch(/SEARCH session_events USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/);
      expect(after).not.toMatch(/TEMP B-TREE/);
    } finally {
      client.close();
    }
  });

  it("SES-1 the migration folder is found from the source tree and from a dist/ folder beside drizzle/", () => {
    expect(findMigrationsFolder("session")).toBe(join(process.cwd(), "drizzle", "session"));
    expect(findMigrationsFolder("session", join(process.cwd(), "dist"))).toBe(join(process.cwd(), "drizzle", "session"));
    expect(findMigrationsFolder("session", tmpdir())).toBeNull();
  });

  it("SES-1 events, head and snapshot persist across reopen and writes continue the seq", async () => {
    const path = join(root, "reopen", "s.sqlite");
    const first = createSqliteSessionStore({ path, address: address("agent", "c") });
    await first.append([plan("r1", 0), plan("r1", 1)]);
    await first.append([{ eventId: "r2/start", runId: "r2", type: "run_started", payload: { prompt: "p", mode: "build", workdir: "/w", effort: "low", provider: "x", model: "y", modelSource: {}, configuration: null, answerItemId: null } }]);
    await first.putSnapshot({ atSeq: 2, state: { messages: ["a"] } });
    await first.close();
    const second = createSqliteSessionStore({ path, address: address("agent", "c") });
    expect(await second.head()).toEqual({ lastSeq: 3, snapshot: { atSeq: 2, state: { messages: ["a"] } }, lastRunId: "r2" });
    expect((await second.readAfter(2)).map((e) => e.eventId)).toEqual(["r2/start"]);
    expect((await second.append([plan("r2", 0)])).events[0]!.seq).toBe(4);
    expect((await second.readRun("r1")).map((e) => e.seq)).toEqual([1, 2]);
    await second.close();
  });

  it("SES-1 a file whose meta row was lost continues its seqs after the stored events", async () => {
    const path = join(root, "lost-meta", "s.sqlite");
    const first = createSqliteSessionStore({ path, address: address("agent") });
    await first.append([plan("r1", 0), plan("r1", 1)]);
    await first.putSnapshot({ atSeq: 2, state: { kept: 2 } });
    await first.close();
    const raw = new Database(path);
    raw.prepare("DELETE FROM session_meta").run();
    raw.close();
    const second = createSqliteSessionStore({ path, address: address("agent") });
    expect(await second.head()).toEqual({ lastSeq: 2, snapshot: { atSeq: 2, state: { kept: 2 } }, lastRunId: null });
    expect((await second.append([plan("r1", 2)])).events[0]!.seq).toBe(3);
    expect(await second.head()).toEqual({ lastSeq: 3, snapshot: { atSeq: 2, state: { kept: 2 } }, lastRunId: null });
    expect((await second.putSnapshot({ atSeq: 1, state: null }).catch((e: unknown) => e) as { code?: string }).code).toBe("input_validation");
    await second.close();
  });

  it("SES-5 a read-only session file rejects with storage_failure and nothing is written", async () => {
    const dir = join(root, "readonly");
    const path = join(dir, "s.sqlite");
    {
      const store = createSqliteSessionStore({ path, address: address("agent") });
      await store.append([plan("r1", 0)]);
      await store.close();
      // Root ignores file modes, so the write is tried by an unprivileged child process then.
      const asRoot = process.getuid?.() === 0;
      chmodSync(path, 0o444);
      chmodSync(dir, 0o555);
      if (asRoot) chmodSync(root, 0o755);
      try {
        const out = execFileSync(process.execPath, [bundledFixture(join(process.cwd(), "test", "sessions", "fixtures", "session-append.ts")), path], {
          cwd: process.cwd(),
          ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
        }).toString();
        const result = JSON.parse(out) as { stage: string; code: string | null };
        expect(result.code).toBe("storage_failure");
        expect(["open", "append"]).toContain(result.stage);
      } finally {
        chmodSync(dir, 0o755);
        chmodSync(path, 0o644);
      }
      const reopened = createSqliteSessionStore({ path, address: address("agent") });
      expect((await reopened.head()).lastSeq).toBe(1);
      expect(await reopened.get("blocked/plan/0")).toBeNull();
      expect(await reopened.get("r1/plan/0")).not.toBeNull();
      await reopened.close();
    }
  }, 30_000);

  it("SES-1 processes opening and writing one new session file at once all succeed, with gapless seqs", async () => {
    const path = join(root, "concurrent", "s.sqlite");
    const fixture = join(process.cwd(), "test", "sessions", "fixtures", "session-append.ts");
    const runs = ["w0", "w1", "w2", "w3"];
    const outputs = await Promise.all(runs.map((run) => new Promise<string>((resolve, reject) => {
      execFile(process.execPath, [bundledFixture(fixture), path, run], { cwd: process.cwd() }, (error, stdout) => (error ? reject(error) : resolve(stdout)));
    })));
    for (const out of outputs) expect(JSON.parse(out)).toEqual({ stage: "done", code: null });
    const store = createSqliteSessionStore({ path, address: address("agent") });
    const events = await store.readAfter(0);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
    for (const run of runs) expect((await store.readRun(run)).map((e) => e.eventId)).toEqual(Array.from({ length: 20 }, (_, i) => `${run}/plan/${i}`));
    expect((await store.head()).lastSeq).toBe(80);
    await store.close();
  }, 60_000);

  it("SES-5 a fault inside a write rejects with storage_failure, keeps the cause and commits nothing", async () => {
    const path = join(root, "fault", "s.sqlite");
    const store = createSqliteSessionStore({ path, address: address("agent") });
    await store.append([plan("r1", 0)]);
    // Another connection holds the write lock longer than the store's busy timeout.
    const blocker = new Database(path, { timeout: 0 });
    blocker.exec("BEGIN IMMEDIATE");
    const slow = createSqliteSessionStore({ path, address: address("agent"), busyTimeoutMs: 50 });
    const error = await slow.append([plan("r1", 1)]).catch((e: unknown) => e);
    blocker.exec("ROLLBACK");
    blocker.close();
    expect(isSteamharnessError(error, "storage_failure")).toBe(true);
    expect((error as Error).cause).toBeDefined();
    expect((await store.head()).lastSeq).toBe(1);
    await slow.close();
    await store.close();
  });

  it("SES-1 one file per (storage dir, conversation, session key), Chinese keys and keys with spaces included", async () => {
    const dirs = [join(root, "files-a"), join(root, "files-b")];
    const conversations = [undefined, "conv 1", "会话", "conv-1"];
    const keys = ["agent", "Agent", "会话 一", "会话-一", "a b", "a-b", "a/b", "..", ""];
    const paths = new Set<string>();
    for (const agentStoreDir of dirs) {
      for (const conversationId of conversations) {
        for (const sessionKey of keys) {
          const path = resolveSessionDatabasePath({ agentStoreDir, conversationId, sessionKey });
          expect(resolveSessionDatabasePath({ agentStoreDir, conversationId, sessionKey })).toBe(path);
          expect(path.startsWith(`${agentStoreDir}/`)).toBe(true);
          paths.add(path);
        }
      }
    }
    expect(paths.size).toBe(dirs.length * conversations.length * keys.length);
    // Each is a real, separate file: write a distinct event into each, then read them back.
    const list = [...paths].slice(0, keys.length * 2);
    for (const [i, path] of list.entries()) {
      const store = createSqliteSessionStore({ path, address: address(`k${i}`) });
      await store.append([plan(`run-${i}`, 0)]);
      await store.close();
    }
    for (const [i, path] of list.entries()) {
      expect(existsSync(path)).toBe(true);
      const store = createSqliteSessionStore({ path, address: address(`k${i}`) });
      expect((await store.readAfter(0)).map((e) => e.runId)).toEqual([`run-${i}`]);
      await store.close();
    }
    expect(resolveSessionDatabasePath({ agentStoreDir: dirs[0], sessionKey: "agent", databasePath: join(root, "x.sqlite") })).toBe(join(root, "x.sqlite"));
    // A conversation's sessions share one folder, apart from other conversations'.
    const folder = conversationSessionsDirectory({ agentStoreDir: dirs[0]!, conversationId: "会话" });
    expect(dirname(resolveSessionDatabasePath({ agentStoreDir: dirs[0], conversationId: "会话", sessionKey: "a b" }))).toBe(folder);
    expect(conversationSessionsDirectory({ agentStoreDir: dirs[0]!, conversationId: "conv 1" })).not.toBe(folder);
  });
});
