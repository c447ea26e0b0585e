import type { ToolPermissionDecision, ToolPermissions } from "../ports/tool-permissions.js";
import { defineContract, uniqueId, type ContractCases, type ContractFactory, type ContractOptions, type ContractTestApi } from "./contract-support.js";

/** Host-side control of a tool-permissions adapter: records a person's final decision (UI, API call, …). */
export interface ToolPermissionsControl {
  decide(requestId: string, decision: Exclude<ToolPermissionDecision, { outcome: "pending" }>): Promise<void> | void;
}

const request = (requestId: string) => ({ requestId, runId: uniqueId("run"), toolId: "workflow-kv_kv_store", arguments: { action: "get", key: "k" } });

const cases: ContractCases<ToolPermissions, ToolPermissionsControl> = {
  "an undecided request is pending, and stays pending when asked again": async ({ store, expect }) => {
    const id = uniqueId("req");
    expect(await store.request(request(id))).toEqual({ outcome: "pending" });
    expect(await store.request(request(id))).toEqual({ outcome: "pending" });
  },
  "a decision sticks to its request id and applies to no other id": async ({ store, inspect, expect }) => {
    const a = uniqueId("req");
    const b = uniqueId("req");
    await store.request(request(a));
    await inspect!.decide(a, { outcome: "approved" });
    expect(await store.request(request(a))).toEqual({ outcome: "approved" });
    expect(await store.request(request(a))).toEqual({ outcome: "approved" });
    expect(await store.request(request(b))).toEqual({ outcome: "pending" });
  },
  "a denial keeps its reason": async ({ store, inspect, expect }) => {
    const id = uniqueId("req");
    await inspect!.decide(id, { outcome: "denied", reason: "not today" });
    expect(await store.request(request(id))).toEqual({ outcome: "denied", reason: "not today" });
  },
  "an aborted signal rejects the request": async ({ store, expect }) => {
    const controller = new AbortController();
    controller.abort();
    await expect(store.request(request(uniqueId("req")), controller.signal)).rejects.toBeDefined();
  },
};

/**
 * Contract suite for the tool-permissions port (the approval adapter hosts bring): undecided
 * requests are `pending`, decisions stick to their request id and apply to no other id. The
 * factory's `inspect` is the host-side control that records decisions.
 *
 * @example
 * runToolPermissionsContract({ describe, it, expect }, () => {
 *   const store = createMemoryToolPermissions();
 *   return { store, inspect: { decide: (id, d) => store.resolve(id, d) } };
 * });
 */
export function runToolPermissionsContract(
  api: ContractTestApi,
  factory: ContractFactory<ToolPermissions, ToolPermissionsControl>,
  options: ContractOptions<keyof typeof cases & string> = {},
): void {
  defineContract(api, "ToolPermissions", factory, cases, options);
}
