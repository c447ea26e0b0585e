import type { ToolPermissionDecision, ToolPermissions } from "../ports/tool-permissions.js";
import { type ContractTestApi, checkSkips, randomTestId } from "./contract-harness.js";

/** What the factory of {@link runToolPermissionsContract} returns. */
export interface ToolPermissionsFixture {
  permissions: ToolPermissions;
  /** Records a person's final decision the way the host does (UI, API call, …). */
  decide(requestId: string, decision: Exclude<ToolPermissionDecision, { outcome: "pending" }>): Promise<void> | void;
  dispose?(): Promise<void> | void;
}

const SKIPS = ["abort-signal"] as const;

/**
 * Contract suite for the tool-permissions port: undecided requests are `pending`, decisions stick
 * to their request id and apply to no other id, denials keep their reason.
 *
 * @example
 * runToolPermissionsContract({ describe, it, expect }, () => {
 *   const permissions = createMemoryToolPermissions();
 *   return { permissions, decide: (id, d) => permissions.resolve(id, d) };
 * });
 */
export function runToolPermissionsContract(
  t: ContractTestApi,
  factory: () => Promise<ToolPermissionsFixture> | ToolPermissionsFixture,
  options: { skip?: Array<(typeof SKIPS)[number]> } = {},
): void {
  const skipped = checkSkips("ToolPermissions", SKIPS, options.skip);
  const request = (requestId: string) => ({ requestId, runId: randomTestId("run"), toolId: "workflow-kv_kv_store", arguments: { action: "get", key: "k" } });
  const withFixture = (fn: (f: ToolPermissionsFixture) => Promise<void>) => async () => {
    const fixture = await factory();
    try {
      await fn(fixture);
    } finally {
      await fixture.dispose?.();
    }
  };

  t.describe("ToolPermissions contract", () => {
    t.it("an undecided request is pending, and stays pending when asked again", withFixture(async ({ permissions }) => {
      const id = randomTestId("req");
      t.expect(await permissions.request(request(id))).toEqual({ outcome: "pending" });
      t.expect(await permissions.request(request(id))).toEqual({ outcome: "pending" });
    }));

    t.it("a decision sticks to its request id and applies to no other id", withFixture(async ({ permissions, decide }) => {
      const a = randomTestId("req");
      const b = randomTestId("req");
      await permissions.request(request(a));
      await decide(a, { outcome: "approved" });
      t.expect(await permissions.request(request(a))).toEqual({ outcome: "approved" });
      t.expect(await permissions.request(request(a))).toEqual({ outcome: "approved" });
      t.expect(await permissions.request(request(b))).toEqual({ outcome: "pending" });
    }));

    t.it("a denial keeps its reason", withFixture(async ({ permissions, decide }) => {
      const id = randomTestId("req");
      await decide(id, { outcome: "denied", reason: "not today" });
      t.expect(await permissions.request(request(id))).toEqual({ outcome: "denied", reason: "not today" });
    }));

    if (!skipped.has("abort-signal")) {
      t.it("an aborted signal rejects the request", withFixture(async ({ permissions }) => {
        const controller = new AbortController();
        controller.abort();
        await t.expect(permissions.request(request(randomTestId("req")), controller.signal)).rejects.toBeDefined();
      }));
    }
  });
}
