import { createMemoryToolPermissions } from "../../src/adapters/driven/memory/memory-tool-permissions.js";
import { createMemoryUserInput } from "../../src/adapters/driven/memory/memory-user-input.js";
import { createKvTokenUsage } from "../../src/adapters/driven/kernel/kv-token-usage.js";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { runToolPermissionsContract } from "../../src/testing/tool-permissions.contract.js";
import { runUserInputContract } from "../../src/testing/user-input.contract.js";
import { runTokenUsageContract } from "../../src/testing/token-usage.contract.js";
import { checkSkips } from "../../src/testing/contract-harness.js";

runToolPermissionsContract({ describe, it, expect }, () => {
  const store = createMemoryToolPermissions();
  return { store, inspect: { decide: (id, decision) => store.resolve(id, decision) } };
});

runUserInputContract({ describe, it, expect }, () => {
  const store = createMemoryUserInput();
  return { store, inspect: { respond: (id, response) => store.resolve(id, response) } };
});

runTokenUsageContract({ describe, it, expect }, () => ({ store: createKvTokenUsage(new MemoryStorage().kv, { projectId: "p" }) }));
runTokenUsageContract({ describe, it, expect }, () => ({ store: createKvTokenUsage(new MemoryStorage().kv, { projectId: "p", conversationId: "c" }) }));

describe("memory host ports", () => {
  it("PORT-1 an unknown skip name fails the suite", () => {
    expect(() => checkSkips("KvStore", ["large-values"], ["large-value"])).toThrow(/unknown skip name\(s\) large-value/);
    expect([...checkSkips("KvStore", ["large-values"], ["large-values"])]).toEqual(["large-values"]);
  });

  it("scripted decisions are recorded once final and pending ids are listed", async () => {
    const permissions = createMemoryToolPermissions({ decide: (req) => (req.toolId === "a" ? { outcome: "approved" } : { outcome: "pending" }) });
    const base = { runId: "r", arguments: null };
    expect(await permissions.request({ ...base, requestId: "1", toolId: "a" })).toEqual({ outcome: "approved" });
    expect(await permissions.request({ ...base, requestId: "2", toolId: "b" })).toEqual({ outcome: "pending" });
    expect(permissions.pending()).toEqual(["2"]);
    permissions.resolve("2", { outcome: "denied" });
    expect(permissions.pending()).toEqual([]);
    expect(permissions.requests).toHaveLength(2);
  });

  it("token usage lives under the reserved KV keys and survives a crash between total and entry writes", async () => {
    const storage = new MemoryStorage();
    const ns = { projectId: "p" };
    const usage = createKvTokenUsage(storage.kv, ns);
    const e = { entryId: "run-1:req-1", runId: "run-1", provider: "offline", model: "m", at: 1, input: 2, output: 3, cacheRead: 0, cacheWrite: 0, total: 5 };
    await usage.record(e);
    expect((await storage.kv.get(ns, "tokenUsage.entry.run-1:req-1"))?.value).toMatchObject({ total: 5 });
    // Simulate a crash after the total was updated but before the entry key was written.
    await storage.kv.delete(ns, "tokenUsage.entry.run-1:req-1");
    expect(await usage.record(e)).toBe(false);
    expect((await usage.total()).total).toBe(5);
  });
});
