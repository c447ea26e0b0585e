import { checkKvKey, checkKvNamespace, serializeKvValue, type JsonValue } from "../../../domain/store-input.js";
import { TOKEN_USAGE_ENTRY_PREFIX, TOKEN_USAGE_TOTAL_KEY } from "../../../domain/capabilities/reserved-keys.js";
import type { KvNamespace } from "../../../ports/kv-store.js";
import type { TokenUsageEntry, TokenUsageRecorder } from "../../../ports/token-usage.js";
import { addUsage, checkUsageEntry, readUsageTotal } from "../../shared/kv-token-usage.js";
import { createKvStatements, type KvStatements, type SqliteStoreContext } from "./sqlite-kv-store.js";
import { assertOpen, withSqliteRetry } from "./sqlite-support.js";

/**
 * The token-usage recorder of the SQLite storage: the same reserved KV keys and values as
 * `createKvTokenUsage` (`tokenUsage.total`, `tokenUsage.entry.<entryId>`), written together in
 * one `BEGIN IMMEDIATE` transaction. The entry key decides whether an entry was counted, so the
 * total needs no list of recent ids and a record costs one commit instead of two. Both recorders
 * may share a store, each checking the entry key before counting; the same entry recorded by
 * both at the same instant could count twice, which the session lease rules out for runs (one
 * owner per run, SES-2). Pass the storage's prepared `statements` when making recorders often
 * (one per node context): preparing them costs more than a record.
 *
 * @example
 * const usage = createSqliteTokenUsage({ ...context, statements: createKvStatements(context) }, { projectId: "p" });
 * await usage.record({ entryId: "run-1:req-1", runId: "run-1", provider: "offline", model: "m", at: Date.now(),
 *   input: 10, output: 5, cacheRead: 0, cacheWrite: 0, total: 15 });
 */
export function createSqliteTokenUsage(context: SqliteStoreContext & { statements?: KvStatements }, namespace: KvNamespace): TokenUsageRecorder {
  const ns = checkKvNamespace(namespace);
  const kv = context.statements ?? createKvStatements(context);
  const entryKey = (entryId: string) => checkKvKey(`${TOKEN_USAGE_ENTRY_PREFIX}${entryId}`);
  const readJson = (key: string): JsonValue | null => {
    const row = kv.read(ns, key);
    return row ? (JSON.parse(row.value) as JsonValue) : null;
  };
  return {
    async record(entry: TokenUsageEntry) {
      checkUsageEntry(entry);
      const key = entryKey(entry.entryId);
      const entryJson = serializeKvValue(entry as unknown as JsonValue);
      assertOpen(context.state.closed);
      return withSqliteRetry("token usage record", () =>
        context.db.transaction(
          () => {
            if (kv.read(ns, key)) return false;
            const current = readJson(TOKEN_USAGE_TOTAL_KEY);
            const total = readUsageTotal(current);
            // A total written by `createKvTokenUsage` keeps its recent ids; this recorder adds none.
            const next = { ...(current !== null && typeof current === "object" && !Array.isArray(current) ? current : {}), ...addUsage(total, entry) };
            kv.write(ns, TOKEN_USAGE_TOTAL_KEY, serializeKvValue(next as unknown as JsonValue));
            kv.write(ns, key, entryJson);
            return true;
          },
          { behavior: "immediate" },
        ),
      );
    },
    async total() {
      assertOpen(context.state.closed);
      const { input, output, cacheRead, cacheWrite, total } = readUsageTotal(withSqliteRetry("token usage total", () => readJson(TOKEN_USAGE_TOTAL_KEY)));
      return { input, output, cacheRead, cacheWrite, total };
    },
    async get(entryId) {
      const key = entryKey(entryId);
      assertOpen(context.state.closed);
      const value = withSqliteRetry("token usage get", () => readJson(key));
      return value === null ? null : (value as unknown as TokenUsageEntry);
    },
  };
}
