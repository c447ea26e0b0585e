import { STORE_LIMITS } from "../../../domain/limits.js";
import { decodeKeyCursor, encodeCursor, listingId } from "../../../domain/page-cursor.js";
import {
  checkKvKey,
  checkKvNamespace,
  checkPageLimit,
  checkPrefix,
  serializeKvValue,
  type JsonValue,
} from "../../../domain/store-input.js";
import type { Clock } from "../../../ports/clock.js";
import type { KvEntry, KvNamespace, KvStore } from "../../../ports/kv-store.js";
import { drizzleOrm } from "../shared/drizzle-modules.js";
import { storeTables } from "./schema.js";
import type { StoreDatabase } from "./sqlite-database.js";
import { assertOpen, fromSortKey, prefixRange, sortKey, withSqliteRetry } from "./sqlite-support.js";

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
 * The KV port on SQLite. Single-statement writes are atomic on their own; `update()` runs in a
 * `BEGIN IMMEDIATE` transaction so no other connection (in any process) writes in between.
 *
 * @example
 * const kv = createSqliteKvStore({ db, clock, state: { closed: false } });
 */
export function createSqliteKvStore({ db, clock, state }: SqliteStoreContext): KvStore {
  const { and, asc, eq, gt, gte, lt } = drizzleOrm();
  const { kvEntries } = storeTables();
  const { read, write, remove } = createKvStatements({ db, clock });

  return {
    async get(nsInput, keyInput) {
      const ns = checkKvNamespace(nsInput);
      const key = checkKvKey(keyInput);
      assertOpen(state.closed);
      const row = withSqliteRetry("kv get", () => read(ns, key));
      return row ? { key, value: JSON.parse(row.value) as JsonValue, updatedAt: row.updatedAt } : null;
    },

    async set(nsInput, keyInput, value) {
      const ns = checkKvNamespace(nsInput);
      const key = checkKvKey(keyInput);
      const json = serializeKvValue(value);
      assertOpen(state.closed);
      withSqliteRetry("kv set", () => write(ns, key, json));
    },

    async delete(nsInput, keyInput) {
      const ns = checkKvNamespace(nsInput);
      const key = checkKvKey(keyInput);
      assertOpen(state.closed);
      return withSqliteRetry("kv delete", () => remove(ns, key));
    },

    async list(nsInput, options = {}) {
      const ns = checkKvNamespace(nsInput);
      const prefix = checkPrefix("prefix", options.prefix, STORE_LIMITS.kvKey);
      const limit = checkPageLimit(options.limit);
      const listing = listingId({ kind: "kv", projectId: ns.projectId, conversationId: ns.conversationId, prefix });
      const after = decodeKeyCursor(listing, options.cursor);
      assertOpen(state.closed);
      const { low, high } = prefixRange(prefix);
      // Keyset pagination: seek past the last key in the primary-key index, never OFFSET.
      const rows = withSqliteRetry("kv list", () =>
        db
          .select()
          .from(kvEntries)
          .where(
            and(
              eq(kvEntries.projectId, ns.projectId),
              eq(kvEntries.conversationId, ns.conversationId ?? ""),
              after === undefined ? gte(kvEntries.key, low) : gt(kvEntries.key, sortKey(after)),
              high === null ? undefined : lt(kvEntries.key, high),
            ),
          )
          .orderBy(asc(kvEntries.key))
          .limit(limit + 1)
          .all(),
      );
      const items: KvEntry[] = rows.slice(0, limit).map((row) => ({
        key: fromSortKey(row.key),
        value: JSON.parse(row.value) as JsonValue,
        updatedAt: row.updatedAt,
      }));
      const more = rows.length > limit;
      return { items, nextCursor: more ? encodeCursor(listing, items[items.length - 1].key) : null };
    },

    async update(nsInput, keyInput, fn) {
      const ns = checkKvNamespace(nsInput);
      const key = checkKvKey(keyInput);
      assertOpen(state.closed);
      // The callback's own error must reach the caller unwrapped; remember it to tell it apart.
      let callbackFailure: { error: unknown } | undefined;
      try {
        return withSqliteRetry("kv update", () =>
          db.transaction(
            () => {
              const row = read(ns, key);
              let next: JsonValue | undefined;
              try {
                next = fn(row ? (JSON.parse(row.value) as JsonValue) : null);
              } catch (error) {
                callbackFailure = { error };
                throw error;
              }
              if (next === undefined) {
                remove(ns, key);
                return null;
              }
              const json = serializeKvValue(next);
              write(ns, key, json);
              return JSON.parse(json) as JsonValue;
            },
            { behavior: "immediate" },
          ),
        );
      } catch (error) {
        if (callbackFailure) throw callbackFailure.error;
        throw error;
      }
    },
  };
}
