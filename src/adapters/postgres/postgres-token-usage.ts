import { TOKEN_USAGE_ENTRY_PREFIX, TOKEN_USAGE_TOTAL_KEY } from "../../domain/capabilities/reserved-keys.js";
import { checkKvKey, checkKvNamespace, serializeKvValue, type JsonValue } from "../../domain/store-input.js";
import type { KvNamespace } from "../../ports/kv-store.js";
import type { TokenUsageEntry, TokenUsageRecorder } from "../../ports/token-usage.js";
import { addUsage, checkUsageEntry, readUsageTotal } from "../shared/kv-token-usage.js";
import { guarded, type PostgresStoreContext } from "./postgres-database.js";
import { createKvRows, type KvRows } from "./postgres-kv-store.js";

/**
 * The token-usage recorder of the PostgreSQL storage: the same reserved KV keys and values as
 * `createKvTokenUsage` (`tokenUsage.total`, `tokenUsage.entry.<entryId>`), written together in
 * one transaction that holds the total's row lock. The entry key decides whether an entry was
 * counted, so the total needs no list of recent ids. `createKvTokenUsage` on the same KV store
 * takes the same row lock (its `update` of the total), so the two never lose a count; the same
 * entry recorded by both at the same instant could count twice, which the session lease rules
 * out for runs (one owner per run, SES-2).
 *
 * @example
 * const usage = createPostgresTokenUsage(context, { projectId: "p" });
 * await usage.record({ entryId: "run-1:req-1", runId: "run-1", provider: "offline", model: "m", at: Date.now(),
 *   input: 10, output: 5, cacheRead: 0, cacheWrite: 0, total: 15 });
 */
export function createPostgresTokenUsage(context: PostgresStoreContext & { rows?: KvRows }, namespace: KvNamespace): TokenUsageRecorder {
  const ns = checkKvNamespace(namespace);
  const { db, state } = context;
  const rows = context.rows ?? createKvRows(context);
  const entryKey = (entryId: string) => checkKvKey(`${TOKEN_USAGE_ENTRY_PREFIX}${entryId}`);
  const readJson = async (key: string): Promise<JsonValue | null> => {
    const row = await rows.read(db, ns, key);
    return row ? (JSON.parse(row.value) as JsonValue) : null;
  };
  return {
    async record(entry: TokenUsageEntry) {
      checkUsageEntry(entry);
      const key = entryKey(entry.entryId);
      const entryJson = serializeKvValue(entry as unknown as JsonValue);
      return guarded(state, "token usage record", () =>
        db.transaction(async (tx) => {
          // The total's row lock serialises recorders; the entry is checked under it.
          const locked = await rows.lock(tx, ns, TOKEN_USAGE_TOTAL_KEY);
          const current = locked === null ? null : (JSON.parse(locked) as JsonValue);
          if (await rows.read(tx, ns, key)) {
            // Nothing to count; drop the placeholder a first lock of the total created.
            if (locked === null) await rows.remove(tx, ns, TOKEN_USAGE_TOTAL_KEY);
            return false;
          }
          // A total written by `createKvTokenUsage` keeps its recent ids; this recorder adds none.
          const kept = current !== null && typeof current === "object" && !Array.isArray(current) ? current : {};
          const next = { ...kept, ...addUsage(readUsageTotal(current), entry) };
          await rows.write(tx, ns, TOKEN_USAGE_TOTAL_KEY, serializeKvValue(next as unknown as JsonValue));
          await rows.write(tx, ns, key, entryJson);
          return true;
        }),
      );
    },
    async total() {
      const { input, output, cacheRead, cacheWrite, total } = readUsageTotal(await guarded(state, "token usage total", () => readJson(TOKEN_USAGE_TOTAL_KEY)));
      return { input, output, cacheRead, cacheWrite, total };
    },
    async get(entryId) {
      const key = entryKey(entryId);
      const value = await guarded(state, "token usage get", () => readJson(key));
      return value === null ? null : (value as unknown as TokenUsageEntry);
    },
  };
}
