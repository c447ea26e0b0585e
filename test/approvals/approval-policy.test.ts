import { readFileSync } from "node:fs";
import { describe, expect, it } from "@jest/globals";
import { loadApprovalPolicy } from "../../src/app/approvals/governed-tool-permissions.js";
import { evaluateApprovalPolicy, parseApprovalPolicy } from "../../src/domain/approvals/policy.js";
import { isSteamharnessError } from "../../src/domain/errors.js";

const examplePolicy = () => readFileSync(new URL("../../examples/approvals/policy.json", import.meta.url), "utf8");
// Wednesday 2026-12-02 at 12:00 and 23:00 UTC.
const noon = Date.UTC(2026, 11, 2, 12, 0);
const night = Date.UTC(2026, 11, 2, 23, 0);

function rejection(value: unknown): { code?: string; field?: string; message: string } {
  try {
    parseApprovalPolicy(value);
  } catch (error) {
    if (isSteamharnessError(error)) return { code: error.code, field: error.field, message: error.message };
    throw error;
  }
  throw new Error("the policy was accepted");
}

describe("GOV-6 approval policy as data", () => {
  it("GOV-6 the example policy file loads and decides allow, ask, deny by tool pattern, arguments, tenant, estimated cost and time window", () => {
    const { policy, version } = loadApprovalPolicy(examplePolicy());
    expect(version).toMatch(/^sha256:[0-9a-f]{64}$/);
    const judge = (toolId: string, args: unknown, extra: { tenant?: string; estimatedCost?: number; at?: number } = {}) => evaluateApprovalPolicy(policy, { toolId, arguments: args, at: noon, ...extra });
    expect(judge("workflow-kv_kv_store", { action: "get", key: "a" })).toMatchObject({ action: "allow", ruleId: "kv-reads" });
    expect(judge("workflow-kv_kv_store", { action: "set", key: "a", value: 1 })).toMatchObject({ action: "ask", rule: null, approvers: "sre", expiresAfterMs: 3_600_000, onExpiry: "deny", escalation: { afterMs: 900_000, to: "security" } });
    expect(judge("deploy_service", { env: "prod" })).toMatchObject({ action: "ask", ruleId: "prod-deploys", expiresAfterMs: 1_800_000, onExpiry: "fail" });
    expect(judge("deploy_service", { env: "prod" }, { at: night })).toMatchObject({ action: "deny", ruleId: "night-freeze", reason: expect.stringContaining("frozen") });
    expect(judge("deploy_service", { env: "staging" }).ruleId).toBeUndefined();
    expect(judge("web_fetch", {}, { estimatedCost: 12 })).toMatchObject({ action: "ask", ruleId: "expensive", approvers: "security" });
    expect(judge("web_fetch", {}, { estimatedCost: 2 }).ruleId).toBeUndefined();
    // A cost bound never matches a call without an estimate.
    expect(judge("web_fetch", {}).ruleId).toBeUndefined();
    expect(judge("bash", { command: "ls" }, { tenant: "key:trial-42" })).toMatchObject({ action: "deny", ruleId: "trial-tenants" });
    expect(judge("bash", { command: "ls" }, { tenant: "key:acme" }).action).toBe("ask");
  });

  it("GOV-6 evaluation is deterministic and the version is the hash of the canonical content (key order and whitespace do not change it; a rule does)", () => {
    const text = examplePolicy();
    const parsed = JSON.parse(text) as Record<string, unknown>;
    const reordered = Object.fromEntries(Object.entries(parsed).reverse());
    const a = loadApprovalPolicy(text);
    expect(loadApprovalPolicy(JSON.stringify(reordered)).version).toBe(a.version);
    expect(loadApprovalPolicy(reordered).version).toBe(a.version);
    const changed = loadApprovalPolicy({ ...parsed, onExpiry: "fail" });
    expect(changed.version).not.toBe(a.version);
    const call = { toolId: "deploy_x", arguments: { env: "prod" }, at: noon };
    expect(evaluateApprovalPolicy(a.policy, call)).toEqual(evaluateApprovalPolicy(a.policy, call));
  });

  it("GOV-6 a bad policy is refused with input_validation naming the field", () => {
    expect(rejection({ rules: [{ tool: "x", action: "maybe" }] })).toMatchObject({ code: "input_validation", field: "/rules/0/action" });
    expect(rejection({ rules: [{ tool: "x", action: "ask", approvers: "ghosts" }] })).toMatchObject({ code: "input_validation", field: "/rules/0/approvers" });
    expect(rejection({ rules: [{ tool: "x", action: "ask", arguments: [{ path: "a", matches: "(" }] }] })).toMatchObject({ code: "input_validation", field: "/rules/0/arguments/0/matches" });
    expect(rejection({ rules: [], expiresAfterMs: 0 })).toMatchObject({ code: "input_validation", field: "/expiresAfterMs" });
    expect(rejection({ rules: [{ tool: "x", action: "allow", window: { from: "25:00", to: "06:00" } }] })).toMatchObject({ code: "input_validation", field: "/rules/0/window/from" });
    expect(rejection({ rules: [], surprise: true })).toMatchObject({ code: "input_validation" });
    expect(() => loadApprovalPolicy("{ not json")).toThrow(expect.objectContaining({ code: "input_validation", field: "/" }));
  });
});
