import { and, asc, eq, gt, gte, lt, or } from "drizzle-orm";
import type { KvNamespace, KvStore } from "../../../ports/kv-store.js";
import { createKvStore, type KvRows as KernelKvRows } from "../kernel/kv-store.js";
import { fromSortKey, keyRange, sortKey } from "../kernel/sort-key.js";
import { postgresCall, type PostgresQueryable, type PostgresStoreContext } from "./postgres-database.js";

/** The row operations on `kv_entries` the KV store and the token-usage recorder share. */
export type KvRows = ReturnType<typeof createKvRows>;

/**
 * Row operations on `kv_entries`, each on the given handle or transaction. `lock` is the
 * read-modify-write primitive: it row-locks the entry until the transaction ends, creating a
 * placeholder row when the key is absent so that a concurrent writer of that key waits too
 * (a `SELECT … FOR UPDATE` alone locks nothing when there is no row yet).
 *
 * @example
 * const rows = createKvRows(context);
 * await db.transaction(async (tx) => { const current = await rows.lock(tx, ns, "k"); await rows.write(tx, ns, "k", "1"); });
 */
export function createKvRows({ tables, clock }: Pick<PostgresStoreContext, "tables" | "clock">) {
  const kv = tables.kvEntries;
  const where = (ns: KvNamespace, key: string) =>
    and(eq(kv.projectId, ns.projectId), eq(kv.conversationId, ns.conversationId ?? ""), eq(kv.key, sortKey(key)));

  const rows = {
    read: async (q: PostgresQueryable, ns: KvNamespace, key: string) =>
      (await q.select({ value: kv.value, updatedAt: kv.updatedAt }).from(kv).where(where(ns, key)).limit(1))[0] ?? null,

    write: async (q: PostgresQueryable, ns: KvNamespace, key: string, value: string): Promise<void> => {
      const updatedAt = clock.now();
      await q
        .insert(kv)
        .values({ projectId: ns.projectId, conversationId: ns.conversationId ?? "", key: sortKey(key), value, updatedAt })
        .onConflictDoUpdate({ target: [kv.projectId, kv.conversationId, kv.key], set: { value, updatedAt } });
    },

    remove: async (q: PostgresQueryable, ns: KvNamespace, key: string): Promise<boolean> =>
      ((await q.delete(kv).where(where(ns, key))).rowCount ?? 0) > 0,

    /** Locks the entry for this transaction; resolves its JSON text, or `null` when it was absent. */
    lock: async (tx: PostgresQueryable, ns: KvNamespace, key: string): Promise<string | null> => {
      for (;;) {
        const [row] = await tx.select({ value: kv.value }).from(kv).where(where(ns, key)).for("update");
        if (row) return row.value;
        // Absent: claim the key with a placeholder (invisible to others until commit). A writer
        // that inserted it meanwhile makes this a no-op after it commits; then lock that row.
        const claimed = await tx
          .insert(kv)
          .values({ projectId: ns.projectId, conversationId: ns.conversationId ?? "", key: sortKey(key), value: "null", updatedAt: clock.now() })
          .onConflictDoNothing()
          .returning({ key: kv.key });
        if (claimed.length > 0) return null;
      }
    },
  };
  return rows;
}

/**
 * The kernel's KV rows on the pool: {@link createKvRows} bound to `db`, a keyset listing on the
 * primary key (never OFFSET) and `modify` in one transaction holding the entry's row lock.
 *
 * @example
 * const kv = createKvStore(kernelKvRows(context, createKvRows(context)), postgresCall(state));
 */
function kernelKvRows({ db, tables }: PostgresStoreContext, rows: KvRows): KernelKvRows {
  const kv = tables.kvEntries;
  return {
    read: (ns, key) => rows.read(db, ns, key),
    write: (ns, key, value) => rows.write(db, ns, key, value),
    remove: (ns, key) => rows.remove(db, ns, key),
    list: async (ns, { prefix, after, limit }) =>
      (
        await db
          .select()
          .from(kv)
          .where(and(eq(kv.projectId, ns.projectId), eq(kv.conversationId, ns.conversationId ?? ""), ...keyRange({ gt, gte, lt, or }, kv.key, { prefix, after })))
          .orderBy(asc(kv.key))
          .limit(limit)
      ).map((row) => ({ ...row, key: fromSortKey(row.key) })),
    modify: (ns, key, change) =>
      db.transaction(async (tx) => {
        const next = change(await rows.lock(tx, ns, key));
        // Removing also drops the placeholder `lock` inserted for an absent key.
        if (next === null) await rows.remove(tx, ns, key);
        else await rows.write(tx, ns, key, next);
      }),
  };
}

/**
 * The KV port on PostgreSQL (`kv_entries`): the kernel's KV store over {@link createKvRows}.
 * Single-statement writes are atomic on their own; `modify` is one transaction holding the
 * entry's row lock, so no other writer, in any process, interleaves.
 *
 * @example
 * const kv = createPostgresKvStore({ db, tables, clock, state: { closed: false } });
 */
export function createPostgresKvStore(context: PostgresStoreContext): KvStore {
  return createKvStore(kernelKvRows(context, createKvRows(context)), postgresCall(context.state));
}
