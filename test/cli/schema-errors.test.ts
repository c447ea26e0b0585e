// DX-8: a validation error names what is allowed. TypeBox says "Expected union value" for a
// union; steamharness lists the union's literal values, the values of the property that tells its
// object members apart, or its members' kinds — on a CLI configuration error, a project error
// and a tool call's arguments (a real agent run on the offline model).
import { mkdtempSync, rmSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Type } from "@sinclair/typebox";
import { createAgentNode } from "../../src/app/agent-node/create-agent-node.js";
import { runStreamNode } from "../../src/domain/stream-node.js";
import { createNodeContext } from "../../src/compose/node-context.js";
import { MemoryStorage } from "../../src/compose/memory-storage.js";
import { createMemoryToolPermissions } from "../../src/adapters/driven/memory/memory-tool-permissions.js";
import { createMemoryUserInput } from "../../src/adapters/driven/memory/memory-user-input.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import { bundledProject } from "../fixtures/bundled-fixture.js";
import { cleanup, REPO, runCli, tempDir, writeProject } from "./helpers.js";

const NO_MODEL = "test/conversation/fixtures/no-model-assistant";
const API_KINDS = '"openai-responses", "anthropic-messages", "openai-completions"';
let tmp: string;

beforeAll(async () => {
  tmp = await tempDir("sh-schema-errors-");
});
afterAll(async () => {
  await cleanup(tmp);
});

/** The single stderr line of a fatal error. */
function oneLine(stderr: string): string {
  const lines = stderr.split("\n").filter(Boolean);
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe("DX-8 validation errors list the allowed values", () => {
  it("DX-8 config import: an apiKind of 42 is refused with the three API kinds (exit 2)", async () => {
    const data = join(tmp, "data");
    const file = join(tmp, "config.json");
    expect((await runCli(["config", "export", NO_MODEL, "--data-dir", data, "-o", file])).code).toBe(0);
    const document = JSON.parse(await readFile(file, "utf8")) as { currentConfigurationId: string | null; configurations: unknown[] };
    document.currentConfigurationId = "default";
    document.configurations.push({ configurationId: "default", name: "Default", values: { STEAMHARNESS_AGENT_MODELS: [{ id: "main", provider: "openai", model: "m", apiKind: 42, system: false }] } });
    await writeFile(file, JSON.stringify(document));
    const result = await runCli(["config", "import", NO_MODEL, file, "--data-dir", data]);
    expect(result.code).toBe(2);
    const line = oneLine(result.stderr);
    expect(line).toContain(`values/STEAMHARNESS_AGENT_MODELS/0/apiKind: Expected one of ${API_KINDS} (found 42)`);
    expect(line).not.toContain("union value");
  }, 60_000);

  it("DX-8 a conversation project with effort: 42 fails to load with the allowed efforts (exit 2)", async () => {
    const source = await writeProject(join(tmp, "bad-effort-source"), {
      "package.json": JSON.stringify({ name: "bad-effort", type: "module", id: "6b1f0c3e-2d4a-4e5b-8c7d-9e0f1a2b3c4d", projectType: "conversation", main: "conversation.ts" }),
      "conversation.ts": `import { defineAgentConversationExecutor } from ${JSON.stringify(join(REPO, "src/app/conversation/define-executor.ts"))};
export default defineAgentConversationExecutor({ effort: 42 as never, executor: { tools: [], conversation: { recovery: { enabled: false }, durable: { enabled: true } } } });
`,
    });
    // Bundled (bundledProject): the CLI loads plain JavaScript instead of compiling the sources through tsx.
    const project = bundledProject(source, join(tmp, "bad-effort"));
    const result = await runCli(["chat", project, "--data-dir", join(tmp, "data")]);
    expect(result.code).toBe(2);
    expect(oneLine(result.stderr)).toContain('effort: Expected one of "minimal", "low", "medium", "high" (found 42)');
  }, 60_000);

  it("DX-8 a tool called with a bad union argument gets the allowed values and member kinds back", async () => {
    const ran: unknown[] = [];
    const tool: AgentTool = {
      name: "paint",
      label: "paint",
      description: "Paints a shape",
      parameters: Type.Object({
        colour: Type.Union([Type.Literal("red"), Type.Literal("blue")]),
        shape: Type.Optional(Type.Union([Type.Object({ kind: Type.Literal("circle"), radius: Type.Number() }), Type.Object({ kind: Type.Literal("square"), side: Type.Number() })])),
        size: Type.Optional(Type.Union([Type.Number(), Type.Literal("auto")])),
      }),
      async execute(_id, params) {
        ran.push(params);
        return { content: [{ type: "text", text: "painted" }], details: {} };
      },
    };
    const model = createOfflineModel({
      steps: [
        { toolCalls: [{ id: "colour", name: "paint", arguments: { colour: 42 } }] },
        { toolCalls: [{ id: "shape", name: "paint", arguments: { colour: "red", shape: { kind: "hexagon" } } }] },
        { toolCalls: [{ id: "size", name: "paint", arguments: { colour: "red", size: true } }] },
        { text: "done" },
      ],
    });
    const workdir = mkdtempSync(join(tmpdir(), "schema-errors-"));
    try {
      const node = createAgentNode({ models: model, workdir, retryDelayMs: 0, extraTools: [tool] });
      const context = createNodeContext({ projectId: "p", storage: new MemoryStorage(), runId: "r", toolPermissions: createMemoryToolPermissions(), userInput: createMemoryUserInput(), toolCatalog: [{ id: "paint", autoApprove: true }] });
      await runStreamNode(node, { prompt: "paint" }, context);
    } finally {
      rmSync(workdir, { recursive: true, force: true });
    }
    const answer = (id: string) => {
      const message = model.calls.flatMap((call) => call.messages).find((m) => m.role === "toolResult" && m.toolCallId === id) as { content: Array<{ text?: string }> } | undefined;
      return message?.content[0]?.text ?? "";
    };
    expect(ran).toEqual([]);
    expect(answer("colour")).toContain('invalid arguments for paint at /colour: Expected one of "red", "blue"');
    expect(answer("shape")).toContain('invalid arguments for paint at /shape: Expected an object whose kind is one of "circle", "square"');
    expect(answer("size")).toContain('invalid arguments for paint at /size: Expected "auto" or a number');
  }, 60_000);
});
