import type { ApiKeyStore } from "../../../ports/api-keys.js";
import { createApiKeyStore, type ApiCounterRow, type ApiKeyRow, type ApiKeyRows, type ApiSlotRow, type ApiTenantRow } from "../kernel/api-keys.js";
import { directCall } from "../kernel/store-call.js";
import { createKeySecrets } from "../system/key-secrets.js";

/**
 * API-key rows in maps; every step is synchronous, so nothing interleaves with it in one process.
 *
 * @example
 * const store = createApiKeyStore(memoryApiKeyRows(), createKeySecrets(), directCall, async () => {});
 */
export function memoryApiKeyRows(): ApiKeyRows {
  const keys = new Map<string, ApiKeyRow>();
  const tenants = new Map<string, ApiTenantRow>();
  const counters = new Map<string, ApiCounterRow>();
  const slots = new Map<string, ApiSlotRow>();
  return {
    insertKey(key, tenant) {
      if (keys.has(key.id)) throw new Error(`duplicate key id ${key.id}`);
      tenants.set(tenant.id, { ...tenant });
      keys.set(key.id, { ...key });
    },
    keys: () => [...keys.values()].map((row) => ({ ...row })),
    keyByHash: (hash) => {
      for (const row of keys.values()) if (row.hash === hash) return { ...row };
      return null;
    },
    tenant: (id) => {
      const row = tenants.get(id);
      return row ? { ...row } : null;
    },
    revoke(id, at) {
      const row = keys.get(id);
      if (!row || row.revokedAt !== null) return false;
      row.revokedAt = at;
      return true;
    },
    counterStep(key, decide) {
      const row = counters.get(key);
      const { result, write } = decide(row ? { ...row } : null);
      if (write) counters.set(key, { ...write });
      return result;
    },
    slotStep(tenantId, at, decide) {
      let held = 0;
      for (const [id, slot] of slots) {
        if (slot.tenantId !== tenantId) continue;
        if (slot.expiresAt <= at) slots.delete(id);
        else held++;
      }
      const { result, insert } = decide(held);
      if (insert) slots.set(insert.id, { ...insert });
      return result;
    },
    renewSlot(id, at, expiresAt) {
      const slot = slots.get(id);
      if (!slot || slot.expiresAt <= at) return false;
      slot.expiresAt = expiresAt;
      return true;
    },
    deleteSlot(id) {
      slots.delete(id);
    },
  };
}

/**
 * The in-memory API-key store (BUD-4): the reference adapter, for tests and single-process gateways.
 *
 * @example
 * const keys = createMemoryApiKeyStore();
 * const { secret } = await keys.add({ id: "acme", requestsPerMinute: 60 }, Date.now());
 */
export function createMemoryApiKeyStore(): ApiKeyStore {
  return createApiKeyStore(memoryApiKeyRows(), createKeySecrets(), directCall, async () => {});
}
