/**
 * The storage-native token-usage recorder written once (ARCH-3): the same reserved KV keys and
 * values as `createKvTokenUsage` (`tokenUsage.total`, `tokenUsage.entry.<entryId>`), the entry
 * and the new total written by one atomic row step. The entry key decides whether an entry was
 * counted, so the total needs no list of recent ids. Both recorders may share a store, each
 * checking the entry key before counting; the same entry recorded by both at the same instant
 * could count twice, which the session lease rules out for runs (one owner per run, SES-2).
 */
import { TOKEN_USAGE_ENTRY_PREFIX, TOKEN_USAGE_TOTAL_KEY } from "../../../domain/capabilities/reserved-keys.js";
import { checkKvKey, checkKvNamespace, serializeKvValue, type JsonValue } from "../../../domain/store-input.js";
import type { KvNamespace } from "../../../ports/kv-store.js";
import type { TokenUsageEntry, TokenUsageRecorder } from "../../../ports/token-usage.js";
import { addUsage, checkUsageEntry, readUsageTotal } from "./kv-token-usage.js";
import type { Awaitable, StoreCall } from "./store-call.js";

/** Row access of the recorder, on KV rows; keys arrive checked, values are JSON text. */
export interface TokenUsageRows {
  /** The JSON text under `key`, or null/undefined. */
  read(ns: KvNamespace, key: string): Awaitable<string | null | undefined>;
  /**
   * One atomic step no other recorder interleaves with: when `entryKey` is absent, writes
   * `entryJson` under it and `nextTotal(current total JSON)` under the total key, and resolves
   * `true`; otherwise changes nothing and resolves `false`.
   */
  recordOnce(ns: KvNamespace, entryKey: string, entryJson: string, nextTotal: (current: string | null) => string): Awaitable<boolean>;
}

/** The total key, for row drivers. */
export { TOKEN_USAGE_TOTAL_KEY };

/**
 * The recorder of `namespace` over `rows`, each step run through `call`.
 *
 * @example
 * const usage = createTokenUsageRecorder(rows, sqliteCall(state), { projectId: "p" });
 */
export function createTokenUsageRecorder(rows: TokenUsageRows, call: StoreCall, namespace: KvNamespace): TokenUsageRecorder {
  const ns = checkKvNamespace(namespace);
  const entryKey = (entryId: string) => checkKvKey(`${TOKEN_USAGE_ENTRY_PREFIX}${entryId}`);
  const readJson = async (what: string, key: string): Promise<JsonValue | null> => {
    const json = await call(what, () => rows.read(ns, key));
    return json === null || json === undefined ? null : (JSON.parse(json) as JsonValue);
  };
  return {
    async record(entry: TokenUsageEntry) {
      checkUsageEntry(entry);
      const key = entryKey(entry.entryId);
      const entryJson = serializeKvValue(entry as unknown as JsonValue);
      const nextTotal = (json: string | null): string => {
        const current = json === null ? null : (JSON.parse(json) as JsonValue);
        // A total written by `createKvTokenUsage` keeps its recent ids; this recorder adds none.
        const kept = current !== null && typeof current === "object" && !Array.isArray(current) ? current : {};
        return serializeKvValue({ ...kept, ...addUsage(readUsageTotal(current), entry) });
      };
      return call("token usage record", () => rows.recordOnce(ns, key, entryJson, nextTotal));
    },
    async total() {
      const { input, output, cacheRead, cacheWrite, total } = readUsageTotal(await readJson("token usage total", TOKEN_USAGE_TOTAL_KEY));
      return { input, output, cacheRead, cacheWrite, total };
    },
    async get(entryId) {
      return (await readJson("token usage get", entryKey(entryId))) as unknown as TokenUsageEntry | null;
    },
  };
}
