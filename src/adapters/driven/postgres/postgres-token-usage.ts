import type { KvNamespace } from "../../../ports/kv-store.js";
import type { TokenUsageRecorder } from "../../../ports/token-usage.js";
import { createTokenUsageRecorder, TOKEN_USAGE_TOTAL_KEY } from "../kernel/token-usage.js";
import { postgresCall, type PostgresStoreContext } from "./postgres-database.js";
import { createKvRows, type KvRows } from "./postgres-kv-store.js";

/**
 * The token-usage recorder of the PostgreSQL storage (see the kernel's `createTokenUsageRecorder`):
 * `recordOnce` is one transaction holding the total's row lock. `createKvTokenUsage` on the same
 * KV store takes the same row lock (its `update` of the total), so the two never lose a count.
 *
 * @example
 * const usage = createPostgresTokenUsage(context, { projectId: "p" });
 * await usage.record({ entryId: "run-1:req-1", runId: "run-1", provider: "offline", model: "m", at: Date.now(),
 *   input: 10, output: 5, cacheRead: 0, cacheWrite: 0, total: 15 });
 */
export function createPostgresTokenUsage(context: PostgresStoreContext & { rows?: KvRows }, namespace: KvNamespace): TokenUsageRecorder {
  const { db } = context;
  const rows = context.rows ?? createKvRows(context);
  return createTokenUsageRecorder(
    {
      read: async (ns, key) => (await rows.read(db, ns, key))?.value,
      recordOnce: (ns, entryKey, entryJson, nextTotal) =>
        db.transaction(async (tx) => {
          // The total's row lock serialises recorders; the entry is checked under it.
          const locked = await rows.lock(tx, ns, TOKEN_USAGE_TOTAL_KEY);
          if (await rows.read(tx, ns, entryKey)) {
            // Nothing to count; drop the placeholder a first lock of the total created.
            if (locked === null) await rows.remove(tx, ns, TOKEN_USAGE_TOTAL_KEY);
            return false;
          }
          await rows.write(tx, ns, TOKEN_USAGE_TOTAL_KEY, nextTotal(locked));
          await rows.write(tx, ns, entryKey, entryJson);
          return true;
        }),
    },
    postgresCall(context.state),
    namespace,
  );
}
