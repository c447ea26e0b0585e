import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import { ElicitRequestSchema, type CallToolResult, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { cleanup, EXAMPLE, startMcp, tempDir, type McpSession } from "./helpers.js";

// Real child processes under tsx on a shared 2-core machine: allow slow starts.
jest.setTimeout(120_000);

let tmp: string;
let session: McpSession;
const asked: ElicitRequest["params"][] = [];
let answers: ElicitResult[] = [];

beforeAll(async () => {
  tmp = await tempDir("sh-example-");
  session = await startMcp(EXAMPLE, ["--data-dir", join(tmp, "data")], { capabilities: { elicitation: { form: {} } } });
  session.client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params);
    return answers.shift() ?? { action: "cancel" };
  });
}, 90_000);
afterAll(async () => {
  await session?.close();
  await cleanup(tmp);
});

async function call(name: string, args: Record<string, unknown>, scripted: ElicitResult[] = []): Promise<CallToolResult> {
  asked.length = 0;
  answers = [...scripted];
  return (await session.client.callTool({ name, arguments: args })) as CallToolResult;
}

describe("the README example workflow project over MCP", () => {
  it("MCP-1 serves greet, plan_trip and remember_topic", async () => {
    const { tools } = await session.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["greet", "remember_topic", "plan_trip"]);
    expect(session.client.getServerVersion()?.name).toBe("workflow-5b0c6a8e-2f4d-4c1a-9e7b-3d2f1a0c9b84");
  });

  it("MCP-7 greet returns its output", async () => {
    expect((await call("greet", { name: "Ada" })).structuredContent).toMatchObject({ status: "success", output: { greeting: "Hello, Ada!" } });
  });

  it("MCP-6 plan_trip asks for the travel style by form and resumes", async () => {
    const result = await call("plan_trip", { destination: "Kyoto", start: "2026-04-01", days: 2 }, [{ action: "accept", content: { pace: "relaxed", budget: 80 } }]);
    expect(asked.map((params) => params.message)).toEqual(["How do you like to travel in Kyoto?"]);
    expect(result.structuredContent).toMatchObject({
      status: "success",
      entrypointTitle: "Plan a trip",
      output: { destination: "Kyoto", start: "2026-04-01", days: 2, pace: "relaxed", budgetPerDay: 80, activities: ["Day 1: 2 sights", "Day 2: 2 sights"] },
    });
  });

  it("MCP-6 remember_topic runs an agent whose KV write is approved by form", async () => {
    const result = await call("remember_topic", { topic: "tea ceremonies" }, [{ action: "accept", content: { decision: "approve" } }]);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.message).toContain("workflow-kv_kv_store");
    expect(result.structuredContent).toMatchObject({ status: "success", output: { answer: "Remembered: tea ceremonies.", stored: "tea ceremonies", toolCalls: 1 } });
  });
});
