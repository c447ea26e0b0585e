import { SteamharnessError } from "../../../domain/errors.js";
import type { JsonValue } from "../../../domain/json.js";
import type { KvNamespace, KvStore } from "../../../ports/kv-store.js";
import type { TokenCounts, TokenUsageEntry, TokenUsageRecorder } from "../../../ports/token-usage.js";
// The same reserved keys the KV capability refuses to write (CAP-5).
import { TOKEN_USAGE_ENTRY_PREFIX, TOKEN_USAGE_TOTAL_KEY } from "../../../domain/capabilities/reserved-keys.js";


/** How many recent entry ids the total remembers, to make `record` idempotent without multi-key transactions. */
const RECENT_IDS = 512;

interface StoredTotal extends TokenCounts {
  entries: number;
  recent: string[];
}

const COUNTS = ["input", "output", "cacheRead", "cacheWrite", "total"] as const;

/**
 * The counts of a stored `tokenUsage.total` value (zeros for anything else), with its entry
 * count and remembered ids.
 *
 * @example
 * readUsageTotal(null).total // 0
 */
export function readUsageTotal(value: JsonValue | null): StoredTotal {
  const v = (value !== null && typeof value === "object" && !Array.isArray(value) ? value : {}) as Record<string, unknown>;
  const num = (key: string) => (typeof v[key] === "number" ? (v[key] as number) : 0);
  const counts = Object.fromEntries(COUNTS.map((key) => [key, num(key)])) as unknown as TokenCounts;
  return { ...counts, entries: num("entries"), recent: Array.isArray(v.recent) ? (v.recent.filter((id) => typeof id === "string") as string[]) : [] };
}

/**
 * The total after counting `entry` once more (the remembered ids are left to the caller).
 *
 * @example
 * addUsage(readUsageTotal(null), entry).entries // 1
 */
export function addUsage(total: TokenCounts & { entries: number }, entry: TokenCounts): TokenCounts & { entries: number } {
  const counts = Object.fromEntries(COUNTS.map((key) => [key, total[key] + entry[key]])) as unknown as TokenCounts;
  return { ...counts, entries: total.entries + 1 };
}

/**
 * Rejects an entry without an id or with a count that is not a finite number ≥ 0
 * (`input_validation` naming the field).
 *
 * @example
 * checkUsageEntry({ ...entry, input: -1 }); // throws
 */
export function checkUsageEntry(entry: TokenUsageEntry): void {
  for (const key of COUNTS) {
    if (!Number.isFinite(entry[key]) || entry[key] < 0) {
      throw new SteamharnessError("input_validation", `token usage ${key} must be a finite number ≥ 0`, { field: key });
    }
  }
  if (!entry.entryId) throw new SteamharnessError("input_validation", "token usage entryId is required", { field: "entryId" });
}

/**
 * The default token-usage recorder: keeps usage under the runtime's reserved KV keys
 * (`tokenUsage.total`, `tokenUsage.entry.<entryId>`), in the namespace given (project scope, or
 * a conversation's scope).
 *
 * Idempotency without multi-key transactions: the total is updated first, atomically, and
 * remembers the last 512 entry ids it counted; the entry key is written after. A crash between
 * the two leaves the id in the total, so recording it again does not count it twice.
 *
 * @example
 * const usage = createKvTokenUsage(storage.kv, { projectId });
 * await usage.record({ entryId: "run-1:req-1", runId: "run-1", provider: "offline", model: "m", at: Date.now(),
 *   input: 10, output: 5, cacheRead: 0, cacheWrite: 0, total: 15 });
 */
export function createKvTokenUsage(kv: KvStore, namespace: KvNamespace): TokenUsageRecorder {
  const entryKey = (entryId: string) => `${TOKEN_USAGE_ENTRY_PREFIX}${entryId}`;
  return {
    async record(entry) {
      checkUsageEntry(entry);
      if (await kv.get(namespace, entryKey(entry.entryId))) return false;
      let counted = false;
      await kv.update(namespace, TOKEN_USAGE_TOTAL_KEY, (current) => {
        const total = readUsageTotal(current);
        counted = !total.recent.includes(entry.entryId);
        if (!counted) return current ?? undefined;
        const next: StoredTotal = { ...addUsage(total, entry), recent: [...total.recent, entry.entryId].slice(-RECENT_IDS) };
        return next as unknown as JsonValue;
      });
      await kv.set(namespace, entryKey(entry.entryId), entry as unknown as JsonValue);
      return counted;
    },
    async total() {
      const stored = await kv.get(namespace, TOKEN_USAGE_TOTAL_KEY);
      const { input, output, cacheRead, cacheWrite, total } = readUsageTotal(stored?.value ?? null);
      return { input, output, cacheRead, cacheWrite, total };
    },
    async get(entryId) {
      const stored = await kv.get(namespace, entryKey(entryId));
      return stored ? (stored.value as unknown as TokenUsageEntry) : null;
    },
  };
}
