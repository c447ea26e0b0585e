import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { join } from "node:path";
import { ElicitRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { cleanup, REPO, startMcp, tempDir, writeProject, type McpSession } from "./helpers.js";

// DX-2: what a typed workflow's run receives at run time matches its inferred types: defaults
// are present (a file param's default path is imported as a managed file) and a form field the
// client leaves out gets its default. Real child processes on a shared machine: allow slow starts.
jest.setTimeout(90_000);

let tmp: string;
let session: McpSession;

beforeAll(async () => {
  tmp = await tempDir("sh-typed-workflow-");
  await writeProject(join(tmp, "files"), { "template.md": "# Trip\n" });
  const definition = join(REPO, "src/domain/workflow/workflow-definition.js");
  await writeProject(join(tmp, "project"), {
    "package.json": JSON.stringify({ type: "module", id: "8d7f2b1c-3e4a-4f5b-9c6d-7e8f9a0b1c2d", projectType: "workflow", main: "workflow.ts" }),
    "workflow.ts": `import { defineWorkflow } from ${JSON.stringify(definition)};

export default defineWorkflow({
  entrypoints: {
    plan: {
      params: [
        { name: "destination", type: "string", required: true },
        { name: "days", type: "number", default: 3 },
        { name: "template", type: "file", default: ${JSON.stringify(join(tmp, "files", "template.md"))} },
        { name: "start", type: "string", format: "date" },
      ],
      async run(params, context) {
        const answer = await context.userInput.request({
          message: "How do you travel?",
          fields: [
            { name: "pace", type: "string", options: ["relaxed", "packed"], required: true },
            { name: "nights", type: "number", default: 2 },
            { name: "budget", type: "number" },
          ],
        });
        const days: number = params.days;
        const nights: number = answer.nights;
        return { days, nights, destination: params.destination, template: params.template, start: params.start ?? null, answer };
      },
    },
  },
});
`,
  });
  session = await startMcp(join(tmp, "project"), ["--data-dir", join(tmp, "data")], { capabilities: { elicitation: { form: {} } } });
  // The client answers only the required field: `nights` is left out, `budget` too.
  session.client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { pace: "packed" } }));
}, 60_000);

afterAll(async () => {
  await session?.close();
  await cleanup(tmp);
});

describe("DX-2 typed workflows at run time", () => {
  it("DX-2: defaults are present, a file default arrives as the imported managed file, a left-out field gets its default", async () => {
    const result = (await session.client.callTool({ name: "plan", arguments: { destination: "Oslo" } })) as CallToolResult;
    expect({ isError: result.isError, content: result.isError ? result.content : undefined, stderr: result.isError ? session.stderr() : undefined }).toEqual({ isError: undefined });
    const output = result.structuredContent!.output as Record<string, unknown>;
    expect(output).toMatchObject({ days: 3, nights: 2, destination: "Oslo", start: null, answer: { pace: "packed", nights: 2 } });
    expect(output.answer).toEqual({ pace: "packed", nights: 2 });
    expect(output.template).toMatchObject({ name: "template.md", size: 7, fileId: expect.any(String), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });
});
