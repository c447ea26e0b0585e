import { and, asc, eq, gt, gte, lt } from "drizzle-orm";
import { STORE_LIMITS } from "../../domain/limits.js";
import { decodeKeyCursor, encodeCursor, listingId } from "../../domain/page-cursor.js";
import {
  checkKvKey,
  checkKvNamespace,
  checkPageLimit,
  checkPrefix,
  serializeKvValue,
  type JsonValue,
} from "../../domain/store-input.js";
import type { KvEntry, KvNamespace, KvStore } from "../../ports/kv-store.js";
// Pure string ↔ UTF-16BE helpers; they load nothing of SQLite.
import { fromSortKey, prefixRange, sortKey } from "../sqlite/store/sqlite-support.js";
import { guarded, type PostgresQueryable, type PostgresStoreContext } from "./postgres-database.js";

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
 * The KV port on PostgreSQL (`kv_entries`). Single-statement writes are atomic on their own;
 * `update()` is one transaction holding the entry's row lock (see {@link createKvRows}), so no
 * other writer, in any process, interleaves.
 *
 * @example
 * const kv = createPostgresKvStore({ db, tables, clock, state: { closed: false } });
 */
export function createPostgresKvStore(context: PostgresStoreContext): KvStore {
  const { db, tables, state } = context;
  const kv = tables.kvEntries;
  const rows = createKvRows(context);

  return {
    async get(nsInput, keyInput) {
      const ns = checkKvNamespace(nsInput);
      const key = checkKvKey(keyInput);
      const row = await guarded(state, "kv get", () => rows.read(db, ns, key));
      return row ? { key, value: JSON.parse(row.value) as JsonValue, updatedAt: row.updatedAt } : null;
    },

    async set(nsInput, keyInput, value) {
      const ns = checkKvNamespace(nsInput);
      const key = checkKvKey(keyInput);
      const json = serializeKvValue(value);
      await guarded(state, "kv set", () => rows.write(db, ns, key, json));
    },

    async delete(nsInput, keyInput) {
      const ns = checkKvNamespace(nsInput);
      const key = checkKvKey(keyInput);
      return guarded(state, "kv delete", () => rows.remove(db, ns, key));
    },

    async list(nsInput, options = {}) {
      const ns = checkKvNamespace(nsInput);
      const prefix = checkPrefix("prefix", options.prefix, STORE_LIMITS.kvKey);
      const limit = checkPageLimit(options.limit);
      const listing = listingId({ kind: "kv", projectId: ns.projectId, conversationId: ns.conversationId, prefix });
      const after = decodeKeyCursor(listing, options.cursor);
      const { low, high } = prefixRange(prefix);
      // Keyset pagination: seek past the last key in the primary-key index, never OFFSET.
      const found = await guarded(state, "kv list", () =>
        db
          .select()
          .from(kv)
          .where(
            and(
              eq(kv.projectId, ns.projectId),
              eq(kv.conversationId, ns.conversationId ?? ""),
              after === undefined ? gte(kv.key, low) : gt(kv.key, sortKey(after)),
              high === null ? undefined : lt(kv.key, high),
            ),
          )
          .orderBy(asc(kv.key))
          .limit(limit + 1),
      );
      const items: KvEntry[] = found.slice(0, limit).map((row) => ({
        key: fromSortKey(row.key),
        value: JSON.parse(row.value) as JsonValue,
        updatedAt: row.updatedAt,
      }));
      return { items, nextCursor: found.length > limit ? encodeCursor(listing, items[items.length - 1].key) : null };
    },

    async update(nsInput, keyInput, fn) {
      const ns = checkKvNamespace(nsInput);
      const key = checkKvKey(keyInput);
      // The callback's own error must reach the caller unwrapped; remember it to tell it apart.
      let callbackFailure: { error: unknown } | undefined;
      try {
        return await guarded(state, "kv update", () =>
          db.transaction(async (tx) => {
            const current = await rows.lock(tx, ns, key);
            let next: JsonValue | undefined;
            try {
              next = fn(current === null ? null : (JSON.parse(current) as JsonValue));
            } catch (error) {
              callbackFailure = { error };
              throw error;
            }
            if (next === undefined) {
              // Also removes the placeholder `lock` inserted for an absent key.
              await rows.remove(tx, ns, key);
              return null;
            }
            const json = serializeKvValue(next);
            await rows.write(tx, ns, key, json);
            return JSON.parse(json) as JsonValue;
          }),
        );
      } catch (error) {
        if (callbackFailure) throw callbackFailure.error;
        throw error;
      }
    },
  };
}
