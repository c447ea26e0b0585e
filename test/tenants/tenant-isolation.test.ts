/**
 * TEN-3: the tenant-isolation contract on every store family the hosts use — memory, SQLite
 * (a shared store seen through `tenantStorage`, and the per-tenant directories of `mcp --http`)
 * and PostgreSQL — and the one encoding behind both namespaces.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { createSqliteStorage } from "../../src/adapters/driven/sqlite/store/sqlite-storage.js";
import { createPostgresStorage } from "../../src/adapters/driven/postgres/postgres-storage.js";
import { tenantDirectory, tenantSegment } from "../../src/app/tenants/tenant-segment.js";
import { tenantProjectId, tenantStorage, tenantStorages } from "../../src/app/tenants/tenant-storage.js";
import { tenantDataDirs } from "../../src/app/workflow-runs/host-options.js";
import { resolveDataDirs } from "../../src/adapters/driven/worker-process/data-dirs.js";
import { openWorkflowStorage } from "../../src/compose/workflow-storage.js";
import { dataDirDefaults, projectFiles } from "../../src/compose/workflow-runs.js";
import type { Storage } from "../../src/ports/storage.js";
import { runTenantIsolationContract } from "../../src/testing/tenant-isolation.contract.js";
import { describePostgres } from "../fixtures/postgres.js";
import { tempDirRemovedAfterAll as makeTempDir } from "../fixtures/temp-dirs.js";

const api = { describe, it, expect };

describe("TEN-3 tenant isolation: memory", () => {
  runTenantIsolationContract(api, () => {
    const base = new MemoryStorage();
    return { store: { forTenant: (tenant) => tenantStorage(base, tenant) }, dispose: () => base.close() };
  });
});

describe("TEN-3 tenant isolation: one SQLite store seen per tenant", () => {
  runTenantIsolationContract(api, () => {
    const base = createSqliteStorage({ directory: join(makeTempDir("tenant-sqlite"), "store") });
    return { store: { forTenant: (tenant) => tenantStorage(base, tenant) }, dispose: () => base.close() };
  });
});

describe("TEN-3 tenant isolation: the per-tenant data dirs of mcp --http", () => {
  runTenantIsolationContract(api, () => {
    const dirs = resolveDataDirs({ dataDir: makeTempDir("tenant-dirs"), agentStoreDir: join(makeTempDir("tenant-agents"), "agents") }, dataDirDefaults());
    const opened: Promise<Storage>[] = [];
    return {
      store: { forTenant: (tenant) => opened[opened.push(openWorkflowStorage(tenantDataDirs(dirs, tenant))) - 1]! },
      dispose: async () => void (await Promise.all(opened.map(async (storage) => (await storage).close()))),
    };
  });
});

describePostgres("TEN-3 tenant isolation: PostgreSQL", (database) => {
  runTenantIsolationContract(api, async () => {
    const base = await createPostgresStorage({ pool: database.pool, schema: database.schema });
    return { store: { forTenant: (tenant) => tenantStorage(base, tenant) }, dispose: () => base.close() };
  });
});

describe("TEN-3 the tenant namespace encoding", () => {
  it("TEN-3: tenant segments are injective, case-safe file names without separators or dot names", () => {
    const tenants = ["key:acme", "key:Acme", "key:ACME", "oauth:acme", "key:a/b", "key:a_2fb", "key:..", "key:.", "key:a\\b", "oauth:用户", "key:" + "x".repeat(250), "key:" + "x".repeat(251)];
    const segments = tenants.map(tenantSegment);
    expect(new Set(segments.map((segment) => segment.toLowerCase())).size).toBe(tenants.length);
    for (const segment of segments) {
      expect(segment).toMatch(/^[a-z0-9_~-]+$/);
      expect(segment.length).toBeLessThanOrEqual(200);
    }
    expect(tenantSegment("key:acme")).toBe("key_3aacme");
    expect(tenantDirectory("/srv/sh/kv", "key:../../etc")).toBe("/srv/sh/kv/tenants/key_3a_2e_2e_2f_2e_2e_2fetc");
    expect(tenantProjectId("key:acme", "p")).not.toBe(tenantProjectId("key:acm", "ep"));
    expect(() => tenantSegment("")).toThrow(expect.objectContaining({ code: "input_validation" }));
  });

  it("TEN-3: a tenant's view refuses explicit session files (one file for every tenant) and closing it leaves the shared store open", async () => {
    const base = createSqliteStorage({ directory: join(makeTempDir("tenant-view"), "store") });
    try {
      const acme = tenantStorage(base, "key:acme");
      expect(acme.sessions!.acceptsDatabasePath).toBe(false);
      const address = { projectId: "p", conversationId: "c", sessionKey: "agent" };
      const databasePath = join(makeTempDir("tenant-explicit"), "s.sqlite");
      await expect(acme.sessions!.open({ address, databasePath, ownerId: "run-1" })).rejects.toMatchObject({ code: "input_validation" });
      await expect(acme.sessions!.leases.acquire({ databasePath }, { ownerId: "run-1" })).rejects.toMatchObject({ code: "input_validation" });
      await acme.kv.set({ projectId: "p" }, "k", 1);
      await acme.close();
      expect((await acme.kv.get({ projectId: "p" }, "k"))?.value).toBe(1);
    } finally {
      await base.close();
    }
  });

  it("TEN-3: tenantStorages makes a tenant's view once per tenant (issue 43: no per-request namespace work), each namespaced, and still refuses a bad tenant key", async () => {
    const base = new MemoryStorage();
    const viewOf = tenantStorages(base);
    const acme = viewOf("key:acme");
    expect(viewOf("key:acme")).toBe(acme);
    expect(viewOf("key:other")).not.toBe(acme);
    await acme.kv.set({ projectId: "p" }, "k", 1);
    expect((await base.kv.get({ projectId: tenantProjectId("key:acme", "p") }, "k"))?.value).toBe(1);
    expect(await viewOf("key:other").kv.get({ projectId: "p" }, "k")).toBeNull();
    expect(() => viewOf("")).toThrow(expect.objectContaining({ code: "input_validation" }) as unknown as Error);
    await base.close();
  });

  it("TEN-3: a tenant's data dirs are folders of the host's, and the host's own dirs are as before", () => {
    const dataDir = makeTempDir("tenant-layout");
    const dirs = resolveDataDirs({ dataDir }, { ...dataDirDefaults(), home: dataDir }, dataDir);
    const scoped = tenantDataDirs(dirs, "key:acme");
    expect(scoped.dataDir).toBe(dirs.dataDir);
    expect(scoped.authDir).toBe(dirs.authDir);
    for (const key of ["kvStoreDir", "persistentValueStoreDir", "fileStoreDir", "fileCreateStoreDir", "agentStoreDir"] as const) {
      expect(scoped[key]).toBe(join(dirs[key], "tenants", "key_3aacme"));
    }
    expect(existsSync(join(dataDir, "kv"))).toBe(false);
    expect(readdirSync(dataDir)).toEqual([]);
  });
});
