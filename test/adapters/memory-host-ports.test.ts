import { createMemoryToolPermissions } from "../../src/adapters/memory/memory-tool-permissions.js";
import { createMemoryUserInput } from "../../src/adapters/memory/memory-user-input.js";
import { runToolPermissionsContract } from "../../src/testing/tool-permissions.contract.js";
import { runUserInputContract } from "../../src/testing/user-input.contract.js";
import { checkSkips } from "../../src/testing/contract-harness.js";

runToolPermissionsContract({ describe, it, expect }, () => {
  const permissions = createMemoryToolPermissions();
  return { permissions, decide: (id, decision) => permissions.resolve(id, decision) };
});

runUserInputContract({ describe, it, expect }, () => {
  const userInput = createMemoryUserInput();
  return { userInput, respond: (id, response) => userInput.resolve(id, response) };
});

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
});
