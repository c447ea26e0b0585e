import { describe, expect, it } from "@jest/globals";
import type { AgentToolGroup } from "../../src/app/agent/extensions/types.js";
import { buildToolIndex, toolTerms } from "../../src/domain/agent/tool-index.js";
import { isSteamharnessError } from "../../src/domain/errors.js";
import { harness, offlineNode, runNode } from "../agent/helpers.js";
import { CATALOG_TOOLS, QUERIES, SERVICE_ABOUT, catalogTools } from "./fixtures/tool-catalog.js";

/** The 200 fixture tools as one catalog per service; counts connects per catalog. */
function fixtureCatalogs(calls: string[], connects: string[]): AgentToolGroup[] {
  const tools = catalogTools(calls);
  return Object.keys(SERVICE_ABOUT).map((service) => ({
    name: service,
    description: SERVICE_ABOUT[service],
    entries: CATALOG_TOOLS.filter((entry) => entry.service === service).map(({ name, description }) => ({ name, description })),
    connect: () => {
      connects.push(service);
      return tools.filter((tool) => tool.name.startsWith(`${service}_`));
    },
  }));
}

const permissions = { allow: ["read", "ls", "update_plan", "tool_search"] };
const catalogGrants = Object.keys(SERVICE_ABOUT).map((service) => ({ id: `catalog:${service}`, autoApprove: true }));

describe("EXT-3 BM25 tool index (domain)", () => {
  it("EXT-3 splits names into words and stems them", () => {
    expect(toolTerms("github_createPullRequests")).toEqual(["github", "creat", "pull", "request"]);
  });

  it(`EXT-3 the right tool is in the top 3 for ≥ 90 % of ${QUERIES.length} described tasks over ${CATALOG_TOOLS.length} tools`, () => {
    expect(CATALOG_TOOLS).toHaveLength(200);
    expect(QUERIES).toHaveLength(50);
    const index = buildToolIndex(CATALOG_TOOLS.map((tool) => ({ name: tool.name, description: tool.description, catalog: tool.service, catalogDescription: SERVICE_ABOUT[tool.service] })));
    const misses = QUERIES.filter(([query, expected]) => !index.search(query, 3).some((hit) => hit.entry.name === expected));
    expect(QUERIES.length - misses.length).toBeGreaterThanOrEqual(45);
    // A query about nothing in the catalog finds nothing rather than noise.
    expect(index.search("the of and", 3)).toEqual([]);
  });
});

describe("EXT-3 session.toolSearch over createTools catalogs", () => {
  it("EXT-3 requests carry only tool_search + core tools until a search; found tools are callable next with real schemas; catalogs connect only when needed", async () => {
    const h = harness();
    const calls: string[] = [];
    const connects: string[] = [];
    const { node, model } = offlineNode(
      [
        { toolCalls: [{ name: "tool_search", arguments: { query: "give a customer their money back for a card charge" } }] },
        { toolCalls: [{ name: "payments_refund_payment", arguments: { id: "ch_1" } }] },
        { text: "Refunded." },
      ],
      { h, permissionPolicy: permissions, session: { toolSearch: {} }, createTools: () => ({ tools: [], toolGroups: fixtureCatalogs(calls, connects) }) },
    );
    const outcome = await runNode(node, { prompt: "refund ch_1" }, h.context("run-search", { tools: catalogGrants }));
    expect(outcome.error).toBeUndefined();
    const first = model.calls[0]!.tools.map((tool) => tool.name).sort();
    expect(first).toEqual(["ask_user", "ls", "read", "tool_search", "update_plan"]);
    // The model gives only a query; how many schemas a search adds is the host's maxResults (3).
    expect(model.calls[0]!.tools.find((tool) => tool.name === "tool_search")!.parameters).toEqual({ type: "object", required: ["query"], properties: { query: expect.objectContaining({ type: "string" }) } });
    const second = model.calls[1]!.tools;
    const refund = second.find((tool) => tool.name === "payments_refund_payment");
    expect(refund?.parameters).toMatchObject({ type: "object", properties: { id: { type: "string" } } });
    expect(second.length).toBe(first.length + 3);
    expect(calls).toEqual(["payments_refund_payment:call_1_0"]);
    // Only the catalog whose tool was found was connected.
    expect(connects).toEqual(["payments"]);
    const row = outcome.items.find((item) => (item.content as { tool?: string }).tool === "payments_refund_payment");
    expect((row?.content as { status: string }).status).toBe("completed");
  });

  it("EXT-3 without tool_search in the permission list there is no search and no catalog is connected", async () => {
    const h = harness();
    const connects: string[] = [];
    const { node, model } = offlineNode([{ text: "ok" }], { h, permissionPolicy: { allow: ["read"] }, session: { toolSearch: {} }, createTools: () => ({ tools: [], toolGroups: fixtureCatalogs([], connects) }) });
    await runNode(node, { prompt: "hi" }, h.context("run-nosearch", { tools: catalogGrants }));
    expect(model.calls[0]!.tools.map((tool) => tool.name).sort()).toEqual(["ask_user", "read"]);
    expect(connects).toEqual([]);
  });

  it("EXT-3 a found tool goes through the approval chain; the resumed run (new agent, same storage) still has it loaded from the session log", async () => {
    const h = harness();
    const calls: string[] = [];
    const connects: string[] = [];
    const steps = [
      { toolCalls: [{ name: "tool_search", arguments: { query: "cancel a recurring plan so the customer is not charged" } }] },
      { toolCalls: [{ name: "billing_cancel_subscription", arguments: { id: "sub_9" } }] },
      { text: "Cancelled." },
    ];
    // The billing catalog is granted, but its cancel tool has its own entry: a person approves it.
    const tools = [...catalogGrants, { id: "billing_cancel_subscription" }];
    const options = { h, permissionPolicy: permissions, session: { toolSearch: {} }, createTools: () => ({ tools: [], toolGroups: fixtureCatalogs(calls, connects) }) };
    const { node } = offlineNode(steps, options);
    const paused = await runNode(node, { prompt: "cancel sub_9" }, h.context("run-resume", { tools }));
    expect(isSteamharnessError(paused.error, "user_input_required")).toBe(true);
    expect(calls).toEqual([]);
    const log = await h.storage.sessions!.openUnleased({ address: { projectId: "project-1", sessionKey: "agent" }, create: false });
    const loaded = (await log!.readRun("run-resume")).filter((event) => event.type === "extension");
    expect(loaded.map((event) => event.payload)).toEqual([{ feature: "tool_search", data: expect.objectContaining({ loaded: expect.arrayContaining(["billing_cancel_subscription"]) }) }]);
    h.permissions.resolve((paused.error as { requestId: string }).requestId, { outcome: "approved" });
    const { node: fresh, model } = offlineNode(steps, options);
    const resumed = await runNode(fresh, { prompt: "cancel sub_9" }, h.context("run-resume", { tools }));
    expect(resumed.error).toBeUndefined();
    expect(calls).toEqual(["billing_cancel_subscription:call_1_0"]);
    expect(model.calls[0]!.tools.some((tool) => tool.name === "billing_cancel_subscription")).toBe(true);
  });

  it("EXT-3 a catalog tool called by name without a search connects its catalog then; a disabled tool is never found", async () => {
    const h = harness();
    const calls: string[] = [];
    const connects: string[] = [];
    const { node } = offlineNode(
      [{ toolCalls: [{ name: "dns_whois", arguments: { id: "example.com" } }, { name: "tool_search", arguments: { query: "buy a new website domain name" } }] }, { text: "done" }],
      { h, permissionPolicy: permissions, session: { toolSearch: {} }, createTools: () => ({ tools: [], toolGroups: fixtureCatalogs(calls, connects) }) },
    );
    const outcome = await runNode(node, { prompt: "whois" }, h.context("run-direct", { tools: [...catalogGrants, { id: "dns_register_domain", enabled: false }] }));
    expect(outcome.error).toBeUndefined();
    expect(calls).toEqual(["dns_whois:call_0_0"]);
    // dns was connected by the direct call, before the search ran; the search connected only
    // the catalogs of tools it found.
    expect(connects[0]).toBe("dns");
    const search = outcome.items.find((item) => (item.content as { tool?: string }).tool === "tool_search");
    const result = (search?.content as { result: string }).result;
    expect(result).not.toContain("dns_register_domain");
    const found = result.replace(/^Loaded \(best first\): /, "").replace(/\.$/, "").split(", ");
    expect(found.length).toBeGreaterThan(0);
    const foundCatalogs = new Set(found.map((name) => CATALOG_TOOLS.find((tool) => tool.name === name)!.service));
    expect(connects.slice(1).every((catalog) => foundCatalogs.has(catalog))).toBe(true);
    expect(connects.length).toBeLessThan(Object.keys(SERVICE_ABOUT).length);
  });

  it("EXT-3 session.toolSearch.maxResults bounds what one search loads; the model cannot raise it", async () => {
    const h = harness();
    const { node, model } = offlineNode(
      [
        // A model that invents a limit gets the host's bound all the same.
        { toolCalls: [{ name: "tool_search", arguments: { query: "refund a card charge or cancel a subscription", limit: 20 } }] },
        { text: "ok" },
      ],
      { h, permissionPolicy: permissions, session: { toolSearch: { maxResults: 2 } }, createTools: () => ({ tools: [], toolGroups: fixtureCatalogs([], []) }) },
    );
    const outcome = await runNode(node, { prompt: "look" }, h.context("run-bound", { tools: catalogGrants }));
    expect(outcome.error).toBeUndefined();
    expect(model.calls[1]!.tools.length - model.calls[0]!.tools.length).toBe(2);
    const search = outcome.items.find((item) => (item.content as { tool?: string }).tool === "tool_search");
    expect((search?.content as { result: string }).result).toMatch(/^Loaded \(best first\): \w+, \w+\.$/);
  });
});
