/**
 * The KV rows (and the token-usage recorder on them) for both SQL dialects (ARCH-8), on `kv_entries`
 * keyed by (project, conversation or "", UTF-16BE sort key): keyset listings on the primary key,
 * never OFFSET; read-modify-write in one transaction holding the entry's lock.
 */
import { TOKEN_USAGE_ENTRY_PREFIX, TOKEN_USAGE_TOTAL_KEY } from "../../../domain/capabilities/reserved-keys.js";
import { checkKvKey, checkKvNamespace, serializeKvValue, type JsonValue } from "../../../domain/store-input.js";
import type { KvNamespace } from "../../../ports/kv-store.js";
import type { TokenUsageEntry, TokenUsageRecorder } from "../../../ports/token-usage.js";
import type { KvRows } from "./kv-store.js";
import { addUsage, checkUsageEntry, readUsageTotal } from "./kv-token-usage.js";
import { fromSortKey, keyRange, sortKey } from "./sort-key.js";
import { then, type Sql, type SqlDriver, type SqlStatement, type SqlSteps } from "./sql-driver.js";
import type { StoreCall } from "./store-call.js";

type KeyParams = { projectId: string; conversationId: string; key: Uint8Array };
const params = (ns: KvNamespace, key: string): KeyParams => ({ projectId: ns.projectId, conversationId: ns.conversationId ?? "", key: sortKey(key) });
const byKey = ({ tables: { kvEntries: kv }, ops: { and, eq } }: SqlDriver, param: (name: keyof KeyParams) => Sql) =>
  and(eq(kv.projectId, param("projectId")), eq(kv.conversationId, param("conversationId")), eq(kv.key, param("key")));

// The hot statements (get, set, delete of one key): SQLite prepares each once per store.
const READ: SqlStatement<KeyParams> = { mode: "get", build: (on, param) => on.db.select({ value: on.tables.kvEntries.value, updatedAt: on.tables.kvEntries.updatedAt }).from(on.tables.kvEntries).where(byKey(on, param)) };
// An update's read of the entry, row-locked (SQLite's transaction runs on the store's driver: prepared once).
const LOCK: SqlStatement<KeyParams> = { mode: "get", build: (on, param) => on.forUpdate(on.db.select({ value: on.tables.kvEntries.value }).from(on.tables.kvEntries).where(byKey(on, param))) };
const REMOVE: SqlStatement<KeyParams> = { mode: "run", build: (on, param) => on.db.delete(on.tables.kvEntries).where(byKey(on, param)) };
const WRITE: SqlStatement<KeyParams & { value: string; updatedAt: number }> = {
  mode: "run",
  build: ({ db, tables: { kvEntries: kv }, ops: { sql } }, param) =>
    db
      .insert(kv)
      .values({ projectId: param("projectId"), conversationId: param("conversationId"), key: param("key"), value: param("value"), updatedAt: param("updatedAt") })
      .onConflictDoUpdate({ target: [kv.projectId, kv.conversationId, kv.key], set: { value: sql`excluded.value`, updatedAt: sql`excluded.updated_at` } }),
};

const read = (on: SqlDriver, ns: KvNamespace, key: string) => on.execute(READ, params(ns, key));
const write = (on: SqlDriver, ns: KvNamespace, key: string, value: string) => on.execute(WRITE, { ...params(ns, key), value, updatedAt: on.clock.now() });
const remove = (on: SqlDriver, ns: KvNamespace, key: string) => on.execute(REMOVE, params(ns, key));

/**
 * Locks the entry for the transaction `tx`; yields its JSON text, or null when absent. SQLite's
 * transaction already holds the database's write lock. PostgreSQL's `FOR UPDATE` locks nothing
 * when there is no row, so an absent key is claimed with a placeholder row (invisible to others
 * until commit; a writer that inserted it meanwhile makes the claim a no-op, then its row is
 * locked): the caller removes or overwrites it.
 */
function* lock(tx: SqlDriver, ns: KvNamespace, key: string): SqlSteps<string | null> {
  const kv = tx.tables.kvEntries;
  for (;;) {
    const row = yield tx.execute(LOCK, params(ns, key));
    if (row || tx.dialect === "sqlite") return row?.value ?? null;
    const claim = tx.db.insert(kv).values({ ...params(ns, key), value: "null", updatedAt: tx.clock.now() }).onConflictDoNothing().returning({ key: kv.key });
    if ((yield tx.all(claim)).length > 0) return null;
  }
}

/**
 * The kernel's KV rows on a SQL driver.
 *
 * @example
 * const kv = createKvStore(sqlKvRows(driver), sqliteCall(state));
 */
export function sqlKvRows(driver: SqlDriver): KvRows {
  const { db, tables: { kvEntries: kv }, ops } = driver;
  return {
    read: (ns, key) => read(driver, ns, key),
    write: (ns, key, value) => then(write(driver, ns, key, value), () => undefined),
    remove: (ns, key) => then(remove(driver, ns, key), (count) => count > 0),
    list: (ns, { prefix, after, limit }) => {
      const where = ops.and(ops.eq(kv.projectId, ns.projectId), ops.eq(kv.conversationId, ns.conversationId ?? ""), ...keyRange(ops, kv.key, { prefix, after }));
      return then(driver.all(db.select().from(kv).where(where).orderBy(ops.asc(kv.key)).limit(limit)), (rows) => rows.map((row) => ({ ...row, key: fromSortKey(row.key) })));
    },
    modify: (ns, key, change) =>
      driver.transaction(function* (tx) {
        const next = change(yield* lock(tx, ns, key));
        // Removing also drops the placeholder `lock` claimed for an absent key.
        yield next === null ? remove(tx, ns, key) : write(tx, ns, key, next);
      }),
  };
}

/**
 * The storage-native token-usage recorder of `namespace` (ARCH-3), each step through `call`: the
 * same reserved KV keys and values as `createKvTokenUsage` (`tokenUsage.total`,
 * `tokenUsage.entry.<entryId>`). A record is one transaction holding the total's lock, the entry
 * key checked under it (it decides whether an entry was counted, so the total needs no list of
 * recent ids): one commit. `createKvTokenUsage` on the same KV store takes the same lock (its
 * `update` of the total), so the two never lose a count; the same entry recorded by both at the
 * same instant could count twice, which the session lease rules out for runs (one owner per run, SES-2).
 *
 * @example
 * const usage = sqlTokenUsageRecorder(driver, sqliteCall(state), { projectId: "p" });
 */
export function sqlTokenUsageRecorder(driver: SqlDriver, call: StoreCall, namespace: KvNamespace): TokenUsageRecorder {
  const ns = checkKvNamespace(namespace);
  const entryKey = (entryId: string) => checkKvKey(`${TOKEN_USAGE_ENTRY_PREFIX}${entryId}`);
  const readJson = async (what: string, key: string): Promise<JsonValue | null> => {
    const row = await call(what, () => read(driver, ns, key));
    return row ? (JSON.parse(row.value) as JsonValue) : null;
  };
  return {
    async record(entry: TokenUsageEntry) {
      checkUsageEntry(entry);
      const key = entryKey(entry.entryId);
      const entryJson = serializeKvValue(entry as unknown as JsonValue);
      return call("token usage record", () =>
        driver.transaction(function* (tx) {
          const total = yield* lock(tx, ns, TOKEN_USAGE_TOTAL_KEY);
          if (yield read(tx, ns, key)) {
            // Nothing to count; drop the placeholder a first lock of the total claimed.
            if (total === null) yield remove(tx, ns, TOKEN_USAGE_TOTAL_KEY);
            return false;
          }
          const current = total === null ? null : (JSON.parse(total) as JsonValue);
          // A total written by `createKvTokenUsage` keeps its recent ids; this recorder adds none.
          const kept = current !== null && typeof current === "object" && !Array.isArray(current) ? current : {};
          yield write(tx, ns, TOKEN_USAGE_TOTAL_KEY, serializeKvValue({ ...kept, ...addUsage(readUsageTotal(current), entry) }));
          yield write(tx, ns, key, entryJson);
          return true;
        }),
      );
    },
    async total() {
      const { input, output, cacheRead, cacheWrite, total } = readUsageTotal(await readJson("token usage total", TOKEN_USAGE_TOTAL_KEY));
      return { input, output, cacheRead, cacheWrite, total };
    },
    get: async (entryId) => (await readJson("token usage get", entryKey(entryId))) as unknown as TokenUsageEntry | null,
  };
}
