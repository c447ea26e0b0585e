/**
 * TEN-3: what a host keeps open per tenant (stores, run indexes), made on the tenant's first use
 * and kept for the `max` most recently used tenants; an older one is closed. One cache for every
 * per-tenant resource, so each keeps the same bound and close rules.
 */

/** Something a tenant cache closes when it drops it. */
export interface Closeable {
  close(): Promise<void>;
}

/**
 * A cache of `make(tenant)` results for the `max` most recently used tenants.
 *
 * @example
 * const stores = createTenantCache((tenant) => openStore(tenant), 32);
 * const store = stores.of("key:acme"); // made once, then reused
 * await stores.close();
 */
export function createTenantCache<T extends Closeable>(make: (tenant: string) => T, max: number) {
  const open = new Map<string, T>();
  const closing: Promise<void>[] = [];
  const drop = (item: T) => closing.push(item.close().catch(() => undefined));
  return {
    /** The tenant's item, made now (by `made`, when given) when it has none; it becomes the most recently used. */
    of(tenant: string, made: (tenant: string) => T = make): T {
      const found = open.get(tenant) ?? made(tenant);
      open.delete(tenant);
      open.set(tenant, found);
      for (const [old, item] of open) {
        if (open.size <= max) break;
        open.delete(old);
        drop(item);
      }
      return found;
    },
    /** Forgets the tenant's item if it is still `item` (one that failed, to be made again next time). */
    forget(tenant: string, item: T): void {
      if (open.get(tenant) === item) open.delete(tenant);
    },
    /** Closes every item, and waits for those dropped earlier. */
    async close(): Promise<void> {
      const items = [...open.values()];
      open.clear();
      items.forEach(drop);
      await Promise.all(closing);
    },
  };
}
