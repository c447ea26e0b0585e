import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import { ElicitRequestSchema, type CallToolResult, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { decisionsOf, writeApprovingProject } from "../fixtures/approving-project.js";
import { addTenantKey } from "../fixtures/tenant-credentials.js";
import { connectHttp, startHttpMcp } from "../mcp-http/helpers.js";
import { cleanup, KITCHEN, startMcp, tempDir, type McpSession } from "./helpers.js";

// Real child processes under tsx on a shared 2-core machine: allow slow starts.
jest.setTimeout(90_000);

let tmp: string;
let session: McpSession;
const asked: ElicitRequest["params"][] = [];
let answers: ElicitResult[] = [];

beforeAll(async () => {
  tmp = await tempDir("sh-mcp-elicit-");
  session = await startMcp(KITCHEN, ["--data-dir", join(tmp, "data")], { capabilities: { elicitation: { form: {} } } });
  session.client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params);
    const answer = answers.shift();
    if (!answer) throw new Error("no scripted answer left");
    return answer;
  });
}, 60_000);
afterAll(async () => {
  await session?.close();
  await cleanup(tmp);
});

const schemaOf = (index: number) => (asked[index] as { requestedSchema?: unknown }).requestedSchema;

async function callWith(name: string, scripted: ElicitResult[]): Promise<CallToolResult> {
  asked.length = 0;
  answers = [...scripted];
  return (await session.client.callTool({ name, arguments: {} })) as CallToolResult;
}

describe("MCP-6 form elicitation", () => {
  it("MCP-6 a run asking twice is resumed on the same runId each time", async () => {
    const result = await callWith("ask_twice", [
      { action: "accept", content: { answer: "forty-two" } },
      { action: "accept", content: { size: "m", count: 3, sure: true, toppings: ["olives"] } },
    ]);
    expect(result.isError).toBeUndefined();
    expect(asked.map((params) => params.message)).toEqual(["First question?", "Second question?"]);
    expect(schemaOf(0)).toEqual({ type: "object", required: ["answer"], properties: { answer: { title: "answer", type: "string" } } });
    expect(schemaOf(1)).toMatchObject({
      required: ["size"],
      properties: { size: { type: "string", enum: ["s", "m", "l"] }, count: { type: "number" }, sure: { type: "boolean" }, toppings: { type: "array", items: { enum: ["ham", "olives"] } } },
    });
    const output = result.structuredContent!.output as { runId: string; first: unknown; second: unknown };
    expect(output.runId).toBe(result.structuredContent!.runId);
    expect(output.first).toEqual({ answer: "forty-two" });
    expect(output.second).toEqual({ size: "m", count: 3, sure: true, toppings: ["olives"] });
  });

  it("MCP-6 declining an input request ends the run (cancelled, isError)", async () => {
    const result = await callWith("ask_twice", [{ action: "accept", content: { answer: "x" } }, { action: "decline" }]);
    expect(asked).toHaveLength(2);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: "cancelled", error: { code: "cancelled", message: "the user declined the request for input; the run was ended" } });
  });

  it("MCP-6 a tool approval is asked as approve/deny and approve lets the tool run", async () => {
    const result = await callWith("approve", [{ action: "accept", content: { decision: "approve" } }]);
    expect(asked[0]!.message).toContain("send_mail");
    expect(schemaOf(0)).toMatchObject({ required: ["decision"], properties: { decision: { enum: ["approve", "deny"] } } });
    expect(result.structuredContent).toMatchObject({ status: "success", output: { decision: "approved", sent: true } });
  });

  it("MCP-6 deny is passed to the run as a denial", async () => {
    const result = await callWith("approve", [{ action: "accept", content: { decision: "deny" } }]);
    expect(result.structuredContent).toMatchObject({ status: "success", output: { decision: "denied", sent: false } });
  });

  it.each([["decline" as const], ["cancel" as const]])("MCP-6 %s on an approval ends the run without approving anything", async (action) => {
    const result = await callWith("approve", [{ action }]);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: "cancelled", error: { code: "cancelled" } });
    expect(JSON.stringify(result)).not.toContain("approved");
  });

  it("MCP-6 a form with a file field returns interaction_required without asking", async () => {
    const result = await callWith("ask_file", []);
    expect(asked).toHaveLength(0);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      status: "waiting_for_input",
      error: { code: "interaction_required", message: expect.stringContaining("contract is a file field"), pending: { fields: ["contract (file, required)"] } },
    });
  });

  it("MCP-6 an array field without static options returns interaction_required without asking", async () => {
    const result = await callWith("ask_array", []);
    expect(asked).toHaveLength(0);
    expect(result.structuredContent).toMatchObject({
      status: "waiting_for_input",
      error: { code: "interaction_required", message: expect.stringContaining("tags is an array without static options"), pending: { fields: ["tags (string, multiple)"] } },
    });
  });
});

describe("DX-4 elicitation answers are checked against the form", () => {
  it("DX-4 an answer outside the enum ends the run with input_validation naming the field and the allowed values", async () => {
    const result = await callWith("ask_twice", [
      { action: "accept", content: { answer: "x" } },
      { action: "accept", content: { size: "xl", count: 1 } },
    ]);
    expect(asked).toHaveLength(2);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      status: "failed",
      error: { code: "input_validation", message: 'the answer to "Second question?" does not fit the form: size must be one of "s", "m", "l" (got "xl")' },
    });
  });

  it("DX-4 a required field left out and a decision outside approve/deny are input_validation, never an approval", async () => {
    const missing = await callWith("ask_twice", [{ action: "accept", content: {} }]);
    expect(missing.structuredContent).toMatchObject({ error: { code: "input_validation", message: expect.stringContaining("answer is required") } });
    const approval = await callWith("approve", [{ action: "accept", content: { decision: "sure" } }]);
    expect(approval.structuredContent).toMatchObject({
      status: "failed",
      error: { code: "input_validation", message: 'the answer to the approval of tool send_mail does not fit the form: decision must be one of "approve", "deny" (got "sure")' },
    });
  });
});

describe("MCP-6 integer fields and labelled choices over stdio", () => {
  it("MCP-6 an integer field and labelled options reach the client as an integer field and titled choices, and the run gets the values", async () => {
    const result = await callWith("ask_kinds", [{ action: "accept", content: { age: 41, plan: "pro", addons: ["sso", "audit"] } }]);
    expect(schemaOf(0)).toEqual({
      type: "object",
      required: ["age", "plan"],
      properties: {
        age: { title: "age", type: "integer", default: 30 },
        plan: { title: "plan", type: "string", oneOf: [{ const: "free", title: "Free plan" }, { const: "pro", title: "Pro plan" }] },
        addons: { title: "addons", type: "array", items: { anyOf: [{ const: "sso", title: "Single sign-on" }, { const: "audit", title: "audit" }] } },
      },
    });
    expect(result.structuredContent).toMatchObject({ status: "success", output: { age: 41, plan: "pro", addons: ["sso", "audit"] } });
  });

  it("DX-4 a fraction for an integer field, or a label for a labelled choice, ends the run with input_validation", async () => {
    const fraction = await callWith("ask_kinds", [{ action: "accept", content: { age: 41.5, plan: "pro" } }]);
    expect(fraction.structuredContent).toMatchObject({ status: "failed", error: { code: "input_validation", message: expect.stringContaining("age must be a whole number (got 41.5)") } });
    const label = await callWith("ask_kinds", [{ action: "accept", content: { age: 41, plan: "Pro plan" } }]);
    expect(label.structuredContent).toMatchObject({ status: "failed", error: { code: "input_validation", message: expect.stringContaining('plan must be one of "free", "pro" (got "Pro plan")') } });
  });
});

describe("UI-7 who answered an MCP form is recorded in the run's session", () => {
  /** Calls `mail` on `client` (an agent asking approval of send_mail), approving the form; the run id and the decisions its session keeps. */
  async function approveMail(client: Client, project: string, data: string) {
    const forms: ElicitRequest["params"][] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => (forms.push(request.params), { action: "accept", content: { decision: "approve" } }));
    const result = (await client.callTool({ name: "mail", arguments: {} })) as CallToolResult;
    expect(forms.map((form) => form.message)).toEqual([expect.stringContaining("send_mail")]);
    expect(result.structuredContent).toMatchObject({ status: "success", output: { answer: "sent" } });
    const runId = result.structuredContent!.runId as string;
    return decisionsOf([project, data], runId);
  }

  it("UI-7 over stdio: an agent's approval and question answered in the client's forms are recorded as answered by mcp", async () => {
    const project = await writeApprovingProject(join(tmp, "ui7-stdio"));
    const data = join(tmp, "ui7-stdio-data");
    const stdio = await startMcp(project, ["--data-dir", data, "--workers", "1"], { capabilities: { elicitation: { form: {} } } });
    try {
      expect(await approveMail(stdio.client, project, data)).toEqual([expect.objectContaining({ outcome: "approved", answeredBy: { surface: "mcp", at: expect.any(Number) } })]);
      // A question (ask_user) answered in the form: recorded alike.
      stdio.client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { answer: "blue" } }));
      const asked = (await stdio.client.callTool({ name: "ask", arguments: {} })) as CallToolResult;
      expect(asked.structuredContent).toMatchObject({ status: "success", output: { answer: expect.stringContaining("blue") } });
      expect(await decisionsOf([project, data], asked.structuredContent!.runId as string)).toEqual([expect.objectContaining({ outcome: "answered", values: { answer: "blue" }, answeredBy: { surface: "mcp", at: expect.any(Number) } })]);
    } finally {
      await stdio.close();
    }
  });

  it("UI-7 over HTTP with an API key: recorded with the key's tenant and subject (mcp-http), never its secret", async () => {
    const project = await writeApprovingProject(join(tmp, "ui7-http"));
    const data = join(tmp, "ui7-http-data");
    const keys = ["--store", join(tmp, "ui7-keys")];
    const secret = await addTenantKey(keys, "acme");
    const server = await startHttpMcp(project, ["--keys", ...keys, "--data-dir", data, "--workers", "1"]);
    const client = await connectHttp(server.url, { capabilities: { elicitation: { form: {} } }, transport: { requestInit: { headers: { authorization: `Bearer ${secret}` } } } });
    try {
      const decisions = await approveMail(client, project, data);
      expect(decisions).toEqual([expect.objectContaining({ outcome: "approved", answeredBy: { surface: "mcp-http", tenant: "key:acme", subject: expect.any(String), at: expect.any(Number) } })]);
      expect(JSON.stringify(decisions)).not.toContain(secret);
    } finally {
      await client.close();
      await server.stop();
    }
  });
});
