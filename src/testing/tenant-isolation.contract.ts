import type { SessionAddress, SessionEventInput } from "../ports/session-store.js";
import type { Storage } from "../ports/storage.js";
import { collectAll, defineContract, uniqueId, type ContractCases, type ContractFactory, type ContractOptions, type ContractTestApi } from "./contract-support.js";

/**
 * One backing store and its per-tenant views: `forTenant(tenant)` is the {@link Storage} a
 * request of that tenant runs with (a scoped view, a per-tenant directory, a tenant column…).
 * Two calls with different tenants must share the backing store, as two tenants of one host do.
 */
export interface TenantScopedStorages {
  forTenant(tenant: string): Storage | Promise<Storage>;
}

/** Two tenants of one backing store, and the ids they both use. */
async function tenants(store: TenantScopedStorages) {
  const run = uniqueId("tenant");
  const [a, b] = await Promise.all([store.forTenant(`key:${run}-a`), store.forTenant(`key:${run}-b`)]);
  // The same project, conversation, keys and names on both sides: only the tenant differs.
  return { a, b, projectId: uniqueId("project"), conversationId: uniqueId("conversation") };
}

const plan = (runId: string, i: number): SessionEventInput => ({ eventId: `${runId}/plan/${i}`, runId, type: "plan", payload: { planIndex: i, text: `step ${i}` } });

const cases: ContractCases<TenantScopedStorages, undefined> = {
  "TEN-3 KV: another tenant cannot get, list, update, overwrite or delete a key": async ({ store, expect }) => {
    const { a, b, projectId, conversationId } = await tenants(store);
    for (const ns of [{ projectId }, { projectId, conversationId }]) {
      await a.kv.set(ns, "secret", { owner: "a" });
      expect(await b.kv.get(ns, "secret")).toBeNull();
      expect((await b.kv.list(ns)).items).toEqual([]);
      expect((await b.kv.list(ns, { prefix: "sec" })).items).toEqual([]);
      expect(await b.kv.update(ns, "secret", (current) => ({ seen: current }))).toEqual({ seen: null });
      expect(await b.kv.delete(ns, "secret")).toBe(true);
      expect(await b.kv.delete(ns, "secret")).toBe(false);
      await b.kv.set(ns, "secret", { owner: "b" });
      expect((await a.kv.get(ns, "secret"))?.value).toEqual({ owner: "a" });
      expect((await a.kv.list(ns)).items.map((entry) => entry.value)).toEqual([{ owner: "a" }]);
    }
  },

  "TEN-3 knowledge and memory: another tenant cannot get, list, search, overwrite or delete a document": async ({ store, expect }) => {
    const { a, b, projectId } = await tenants(store);
    const ids = ["faq", "memory/preferences"];
    for (const documentId of ids) await a.knowledge.upsert(projectId, { documentId, title: "Tenant A", markdown: "zanzibar quartz marmalade" });
    for (const documentId of ids) {
      expect(await b.knowledge.get(projectId, documentId)).toBeNull();
      expect(await b.knowledge.delete(projectId, documentId)).toBe(false);
    }
    expect((await b.knowledge.list(projectId)).items).toEqual([]);
    expect((await b.knowledge.list(projectId, { idPrefix: "memory/" })).items).toEqual([]);
    expect((await b.knowledge.search(projectId, "zanzibar")).items).toEqual([]);
    await b.knowledge.upsert(projectId, { documentId: "faq", title: "Tenant B", markdown: "other" });
    expect((await a.knowledge.get(projectId, "faq"))?.title).toBe("Tenant A");
    expect((await collectAll((cursor) => a.knowledge.list(projectId, { cursor }))).map((doc) => doc.documentId).sort()).toEqual(ids);
    expect((await a.knowledge.search(projectId, "zanzibar")).items.length).toBe(2);
  },

  "TEN-3 managed files: another tenant cannot get, read or delete a file by its id": async ({ store, expect }) => {
    const { a, b, projectId } = await tenants(store);
    const file = await a.files.put(projectId, new TextEncoder().encode("tenant a's bytes"), { name: "a.txt" });
    expect(await b.files.get(projectId, file.fileId)).toBeNull();
    expect(await b.files.read(projectId, file.fileId)).toBeNull();
    expect(await b.files.delete(projectId, file.fileId)).toBe(false);
    // The same bytes stored by another tenant are that tenant's own file, removable without touching A's.
    const same = await b.files.put(projectId, new TextEncoder().encode("tenant a's bytes"), { name: "b.txt" });
    expect(await b.files.delete(projectId, same.fileId)).toBe(true);
    expect(new TextDecoder().decode((await a.files.read(projectId, file.fileId)) ?? new Uint8Array())).toBe("tenant a's bytes");
    expect((await a.files.get(projectId, file.fileId))?.name).toBe("a.txt");
  },

  "TEN-3 persistent values: another tenant cannot get, list, overwrite or delete a value": async ({ store, expect }) => {
    const { a, b, projectId } = await tenants(store);
    await a.values.set(projectId, "steamharness.run.paused.run-1", { owner: "a" });
    expect(await b.values.get(projectId, "steamharness.run.paused.run-1")).toBeNull();
    expect(await b.values.names(projectId)).toEqual([]);
    expect(await b.values.delete(projectId, "steamharness.run.paused.run-1")).toBe(false);
    await b.values.set(projectId, "steamharness.run.paused.run-1", { owner: "b" });
    expect(await a.values.get(projectId, "steamharness.run.paused.run-1")).toEqual({ owner: "a" });
    expect(await a.values.names(projectId)).toEqual(["steamharness.run.paused.run-1"]);
  },

  "TEN-3 durable sessions: another tenant opens its own session at the same address, never the first tenant's": async ({ store, expect }) => {
    const { a, b, projectId, conversationId } = await tenants(store);
    if (!a.sessions || !b.sessions) throw new Error("[steamharness] the tenant storages give no sessions backend");
    for (const address of [{ projectId, conversationId, sessionKey: "agent" }, { projectId, sessionKey: "agent" }] as SessionAddress[]) {
      const held = await a.sessions.open({ address, ownerId: "run-a" });
      await held.append([plan("run-a", 0)]);
      // A's lease does not make B's session busy: they are different sessions.
      const other = await b.sessions.open({ address, ownerId: "run-b" });
      expect((await other.head()).lastSeq).toBe(0);
      expect(await other.readRun("run-a")).toEqual([]);
      expect(await other.get("run-a/plan/0")).toBeNull();
      // B writing the same event ids writes its own log; A's stays as A wrote it.
      await other.append([plan("run-a", 0), plan("run-a", 1)]);
      await other.close();
      expect((await held.head()).lastSeq).toBe(1);
      await held.close();
      expect(await b.sessions.openUnleased({ address: { ...address, sessionKey: "never-by-b" }, create: false })).toBeNull();
      const reread = await a.sessions.openUnleased({ address, create: false });
      expect((await reread!.readRun("run-a")).map((event) => event.eventId)).toEqual(["run-a/plan/0"]);
      await reread!.close();
    }
    const host = await a.sessions.openHostStore(conversationId, { create: true });
    await host!.setSetting("activeTargetId", "a");
    await host!.close();
    expect(await b.sessions.openHostStore(conversationId, { create: false })).toBeNull();
  },
};

/** Case names of {@link runTenantIsolationContract}, usable in `options.skip`. */
export const TENANT_ISOLATION_CONTRACT_CASES: readonly string[] = Object.keys(cases);

/**
 * TEN-3: the tenant-isolation contract. For each store port — KV, knowledge documents (memory
 * ids included), managed files, persistent values and durable sessions — it writes as tenant A
 * and proves tenant B's storage of the same backing store cannot get, list, search, overwrite or
 * delete it by the same id, key or address, and that B's writes leave A's data as it was.
 *
 * @example
 * runTenantIsolationContract({ describe, it, expect }, async () => {
 *   const host = await openMyHost(); // one backing store
 *   return { store: { forTenant: (tenant) => host.storageFor(tenant) }, dispose: () => host.close() };
 * });
 */
export function runTenantIsolationContract(api: ContractTestApi, factory: ContractFactory<TenantScopedStorages>, options: ContractOptions = {}): void {
  defineContract(api, "TenantIsolation", factory, cases, options);
}
