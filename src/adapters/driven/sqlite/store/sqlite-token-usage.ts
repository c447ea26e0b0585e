import type { KvNamespace } from "../../../../ports/kv-store.js";
import type { TokenUsageRecorder } from "../../../../ports/token-usage.js";
import { createTokenUsageRecorder, TOKEN_USAGE_TOTAL_KEY, type TokenUsageRows } from "../../kernel/token-usage.js";
import { createKvStatements, type KvStatements, type SqliteStoreContext } from "./sqlite-kv-store.js";
import { sqliteCall } from "./sqlite-support.js";

/**
 * The token-usage rows on SQLite: `recordOnce` is one `BEGIN IMMEDIATE` transaction over the
 * KV statements (synchronous: SQLite's own path, the kernel's callback runs inside it), so a
 * record costs one commit.
 *
 * @example
 * const rows = createSqliteTokenUsageRows(context.db, createKvStatements(context));
 */
export function createSqliteTokenUsageRows(db: SqliteStoreContext["db"], kv: KvStatements): TokenUsageRows {
  return {
    read: (ns, key) => kv.read(ns, key)?.value,
    recordOnce: (ns, entryKey, entryJson, nextTotal) =>
      db.transaction(
        () => {
          if (kv.read(ns, entryKey)) return false;
          kv.write(ns, TOKEN_USAGE_TOTAL_KEY, nextTotal(kv.read(ns, TOKEN_USAGE_TOTAL_KEY)?.value ?? null));
          kv.write(ns, entryKey, entryJson);
          return true;
        },
        { behavior: "immediate" },
      ),
  };
}

/**
 * The token-usage recorder of the SQLite storage (see the kernel's `createTokenUsageRecorder`).
 * Pass the storage's prepared `statements` when making recorders often (one per node context):
 * preparing them costs more than a record.
 *
 * @example
 * const usage = createSqliteTokenUsage({ ...context, statements: createKvStatements(context) }, { projectId: "p" });
 * await usage.record({ entryId: "run-1:req-1", runId: "run-1", provider: "offline", model: "m", at: Date.now(),
 *   input: 10, output: 5, cacheRead: 0, cacheWrite: 0, total: 15 });
 */
export function createSqliteTokenUsage(context: SqliteStoreContext & { statements?: KvStatements }, namespace: KvNamespace): TokenUsageRecorder {
  const rows = createSqliteTokenUsageRows(context.db, context.statements ?? createKvStatements(context));
  return createTokenUsageRecorder(rows, sqliteCall(context.state), namespace);
}
