import type { Clock } from "../../../../ports/clock.js";
import type { KvNamespace, KvStore } from "../../../../ports/kv-store.js";
import { createKvStore, type KvRows } from "../../kernel/kv-store.js";
import { fromSortKey, keyRange, sortKey } from "../../kernel/sort-key.js";
import { drizzleOrm } from "../shared/drizzle-modules.js";
import { storeTables } from "./schema.js";
import type { StoreDatabase } from "./sqlite-database.js";
import { sqliteCall } from "./sqlite-support.js";

/** What the SQLite adapters share: the database, the clock and whether the store was closed. */
export interface SqliteStoreContext {
  db: StoreDatabase;
  clock: Clock;
  state: { closed: boolean };
}

const params = (ns: KvNamespace, key: string) => ({
  projectId: ns.projectId,
  conversationId: ns.conversationId ?? "",
  key: sortKey(key),
});

/** The KV table's hot statements; see {@link createKvStatements}. */
export type KvStatements = ReturnType<typeof createKvStatements>;

/**
 * The KV table's hot statements, each prepared once on first use: read, upsert and delete of one key. They run in
 * whatever transaction the caller is in; callers check keys and namespaces first.
 *
 * @example
 * const { read, write } = createKvStatements(context);
 * write({ projectId: "p" }, "a", "1");
 */
export function createKvStatements({ db, clock }: Pick<SqliteStoreContext, "db" | "clock">) {
  const { and, eq, sql } = drizzleOrm();
  const { kvEntries } = storeTables();
  const byKey = () =>
    and(
      eq(kvEntries.projectId, sql.placeholder("projectId")),
      eq(kvEntries.conversationId, sql.placeholder("conversationId")),
      eq(kvEntries.key, sql.placeholder("key")),
    );
  // Each prepared on first use and kept: the hot paths skip drizzle's query building, and a
  // process that never touches the KV (or only reads) does not pay for the other statements.
  let getStatement: ReturnType<typeof prepareGet> | undefined;
  let setStatement: ReturnType<typeof prepareSet> | undefined;
  let deleteStatement: ReturnType<typeof prepareDelete> | undefined;
  const prepareGet = () => db.select({ value: kvEntries.value, updatedAt: kvEntries.updatedAt }).from(kvEntries).where(byKey()).prepare();
  const prepareSet = () =>
    db
      .insert(kvEntries)
      .values({
        projectId: sql.placeholder("projectId"),
        conversationId: sql.placeholder("conversationId"),
        key: sql.placeholder("key"),
        value: sql.placeholder("value"),
        updatedAt: sql.placeholder("updatedAt"),
      })
      .onConflictDoUpdate({
        target: [kvEntries.projectId, kvEntries.conversationId, kvEntries.key],
        set: { value: sql`excluded.value`, updatedAt: sql`excluded.updated_at` },
      })
      .prepare();
  const prepareDelete = () => db.delete(kvEntries).where(byKey()).prepare();
  return {
    read: (ns: KvNamespace, key: string) => (getStatement ??= prepareGet()).get(params(ns, key)),
    write: (ns: KvNamespace, key: string, value: string): void => {
      (setStatement ??= prepareSet()).run({ ...params(ns, key), value, updatedAt: clock.now() });
    },
    remove: (ns: KvNamespace, key: string): boolean => (deleteStatement ??= prepareDelete()).run(params(ns, key)).changes > 0,
  };
}

/**
 * The KV rows on SQLite: the hot statements of {@link createKvStatements}, a keyset listing on the
 * primary-key index (never OFFSET) and `modify` in a `BEGIN IMMEDIATE` transaction, so no other
 * connection (in any process) writes in between. SQLite's own path: the transaction is
 * synchronous (better-sqlite3 cannot await inside one), so `modify` runs the kernel's change
 * callback inside it without a promise.
 *
 * @example
 * const rows = createSqliteKvRows({ db, clock });
 */
export function createSqliteKvRows(context: Pick<SqliteStoreContext, "db" | "clock">): KvRows {
  const { and, asc, eq } = drizzleOrm();
  const { kvEntries } = storeTables();
  const { db } = context;
  const { read, write, remove } = createKvStatements(context);
  return {
    read,
    write,
    remove,
    list: (ns, { prefix, after, limit }) =>
      db
        .select()
        .from(kvEntries)
        .where(and(eq(kvEntries.projectId, ns.projectId), eq(kvEntries.conversationId, ns.conversationId ?? ""), ...keyRange(drizzleOrm(), kvEntries.key, { prefix, after })))
        .orderBy(asc(kvEntries.key))
        .limit(limit)
        .all()
        .map((row) => ({ ...row, key: fromSortKey(row.key) })),
    modify: (ns, key, change) =>
      db.transaction(
        () => {
          const next = change(read(ns, key)?.value ?? null);
          if (next === null) remove(ns, key);
          else write(ns, key, next);
        },
        { behavior: "immediate" },
      ),
  };
}

/**
 * The KV port on SQLite: the kernel's KV store over {@link createSqliteKvRows}.
 *
 * @example
 * const kv = createSqliteKvStore({ db, clock, state: { closed: false } });
 */
export function createSqliteKvStore(context: SqliteStoreContext): KvStore {
  return createKvStore(createSqliteKvRows(context), sqliteCall(context.state));
}
