// The files `steamharness init` writes. Each scaffold is a runnable TypeScript project that
// imports only the package ("steamharness", "steamharness/testing"), runs its test with Node's
// built-in runner through tsx (Node 20 cannot run .ts files itself; tsx is what steamharness
// already uses to load .ts projects, so `npm test` needs no build step and no other runner), and
// type-checks with `tsc --noEmit`. test/package/pack.test.ts installs both from the packed tarball
// and runs their test, typecheck and start scripts.

/** What a template needs to know about the project being created. */
export interface ScaffoldValues {
  /** The npm package name (from the folder name). */
  name: string;
  /** A fresh UUID: the immutable project id. */
  id: string;
  /** Version ranges of the dependencies, from the running steamharness's package.json. */
  ranges: { steamharness: string; tsx: string; typescript: string; typesNode: string };
}

/** The kinds of project `steamharness init` creates. */
export type ScaffoldKind = "workflow" | "conversation";

const TSCONFIG = `${JSON.stringify(
  {
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      lib: ["ES2022"],
      types: ["node"],
      strict: true,
      skipLibCheck: true,
      isolatedModules: true,
      noEmit: true,
    },
    include: ["*.ts", "test/**/*.ts"],
  },
  null,
  2,
)}\n`;

const GITIGNORE = "node_modules/\n.workflow/\n";

function packageJson(kind: ScaffoldKind, values: ScaffoldValues, main: string, scripts: Record<string, string>): string {
  const manifest = {
    name: values.name,
    version: "0.1.0",
    private: true,
    type: "module",
    id: values.id,
    projectType: kind,
    main,
    scripts,
    dependencies: { steamharness: values.ranges.steamharness },
    devDependencies: { "@types/node": values.ranges.typesNode, tsx: values.ranges.tsx, typescript: values.ranges.typescript },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

const WORKFLOW = `/**
 * A steamharness workflow project. Each entrypoint is a tool: \`npm start\` runs \`greet\` once,
 * \`npx steamharness mcp "$PWD"\` serves every entrypoint to an MCP client over stdio.
 */
import { defineWorkflow } from "steamharness";

export default defineWorkflow({
  entrypoints: {
    greet: {
      title: "Greet",
      description: "Say hello, and count the greetings in the project's KV store.",
      // The static params are the tool's input schema (MCP clients and \`--params\` are checked against it).
      params: [
        { name: "name", type: "string", default: "world", description: "Who to greet" },
        { name: "style", type: "string", options: ["plain", "excited"], default: "plain", description: "How to say it" },
      ],
      // \`params\` takes its type from the declarations above; \`context\` is the run's WorkflowRunContext.
      async run(params, context) {
        const namespace = { projectId: context.projectId };
        const previous = await context.kv.get(namespace, "greetings");
        const count = (typeof previous?.value === "number" ? previous.value : 0) + 1;
        await context.kv.set(namespace, "greetings", count);
        context.log.info("greeted", { name: params.name, count }); // logs go to stderr, never to the result
        const greeting = \`Hello, \${params.name}\${params.style === "excited" ? "!" : "."}\`;
        return { errCode: 0, errMessage: "", output: { greeting, count } };
      },
    },
  },
});
`;

const WORKFLOW_TEST = `import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { buildStructureReport, parseWorkflowManifest, type WorkflowRunReport } from "steamharness";
import workflow from "../workflow.js";

const projectDir = fileURLToPath(new URL("..", import.meta.url));

/** The installed steamharness CLI (node_modules/steamharness, its package.json "bin"). */
async function steamharnessBin(): Promise<string> {
  const manifest = createRequire(import.meta.url).resolve("steamharness/package.json");
  const { bin } = JSON.parse(await readFile(manifest, "utf8")) as { bin: { steamharness: string } };
  return join(dirname(manifest), bin.steamharness);
}

/** Runs one entrypoint the way a host does (\`steamharness run --json\`: a worker process, params checked). */
async function run(entrypoint: string, params: object, dataDir: string): Promise<WorkflowRunReport> {
  const args = [await steamharnessBin(), "run", projectDir, entrypoint, "--params", JSON.stringify(params), "--json", "--data-dir", dataDir];
  const { stdout } = await promisify(execFile)(process.execPath, args);
  return JSON.parse(stdout) as WorkflowRunReport;
}

test("the structure report lists greet and its params", async () => {
  const manifest = parseWorkflowManifest(JSON.parse(await readFile(join(projectDir, "package.json"), "utf8")));
  const report = buildStructureReport(manifest, workflow);
  assert.deepEqual(report.entrypoints.map((entry) => entry.id), ["greet"]);
  assert.deepEqual(report.entrypoints[0]!.params.map((param) => param.name), ["name", "style"]);
});

test("greet runs in a worker and counts its greetings in the KV store", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "workflow-test-"));
  try {
    const first = await run("greet", { name: "Ada", style: "excited" }, dataDir);
    assert.equal(first.status, "success");
    assert.deepEqual(first.result.data.output, { greeting: "Hello, Ada!", count: 1 });
    const second = await run("greet", {}, dataDir);
    assert.deepEqual(second.result.data.output, { greeting: "Hello, world.", count: 2 });
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
`;

const CONVERSATION = `/**
 * A steamharness conversation project: one agent you talk to (\`npm start\` opens a chat).
 *
 * It runs on the offline model by default: a scripted stand-in that needs no key and no network.
 * To talk to a real model, \`npm install @mariozechner/pi-ai\` and set OPENAI_API_KEY (and
 * OPENAI_MODEL to pick one); or delete the \`models\` option and configure a model for the project
 * (STEAMHARNESS_AGENT_MODELS, see README.md).
 */
import { defineAgentConversationExecutor } from "steamharness";
import { createProjectCapabilityTools } from "steamharness/capabilities";
import type { ModelMessage, ModelRequest } from "steamharness/ports";
import { createOfflineModel, type OfflineStep } from "steamharness/testing";

const KV_TOOL = "workflow-kv_kv_store";

const textOf = (message: ModelMessage): string =>
  typeof message.content === "string" ? message.content : message.content.map((block) => (block.type === "text" ? block.text : "")).join("");

/** The offline model's script: "remember <note>" stores the note in the project KV store, "recall" reads it back. */
function offlineStep(request: ModelRequest): OfflineStep {
  const last = request.messages[request.messages.length - 1]!;
  const asked = textOf(request.messages.filter((message) => message.role === "user").pop()!);
  const remember = /remember (.+)/i.exec(asked);
  if (last.role === "toolResult") {
    if (remember) return { text: \`Noted: \${remember[1]}\` };
    const result = JSON.parse(textOf(last) || "null") as { value?: unknown } | null;
    return { text: result?.value === undefined ? "I have nothing noted yet." : \`Your note: \${String(result.value)}\` };
  }
  if (remember) return { toolCalls: [{ name: KV_TOOL, arguments: { action: "set", key: "note", value: remember[1]! } }] };
  if (/recall/i.test(asked)) return { toolCalls: [{ name: KV_TOOL, arguments: { action: "get", key: "note" } }] };
  return { text: "Hello! I run on the offline model. Try “remember buy milk”, then “recall”." };
}

const apiKey = process.env.OPENAI_API_KEY;

export default defineAgentConversationExecutor({
  name: "assistant",
  systemPrompt: "You are a concise assistant. Keep the notes the user asks you to remember in the KV store.",
  ...(apiKey
    ? { provider: "openai", model: process.env.OPENAI_MODEL ?? "gpt-4.1-mini", apiKind: "openai-responses" as const, baseUrl: "https://api.openai.com/v1", apiKey }
    : { models: createOfflineModel({ steps: offlineStep }) }),
  createTools: (context) => createProjectCapabilityTools({ context }),
  executor: {
    // The host's tool catalog: a tool missing here is refused; autoApprove runs it without asking.
    tools: [{ id: KV_TOOL, enabled: true, autoApprove: true }],
    // Keep the conversation in SQLite, so \`steamharness chat . --conversation <id>\` continues it.
    conversation: { recovery: { enabled: true }, durable: { enabled: true } },
  },
});
`;

const CONVERSATION_TEST = `import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { createAgentNode, createNodeContext, finalText, loadAgentConversationProject, runStreamNode } from "steamharness";
import { MemoryStorage } from "steamharness/memory";

const projectDir = fileURLToPath(new URL("..", import.meta.url));
delete process.env.OPENAI_API_KEY; // the test always runs on the offline model

test("the assistant keeps a note in the KV store and reads it back", async () => {
  const project = await loadAgentConversationProject(projectDir);
  const storage = new MemoryStorage();
  try {
    const node = createAgentNode(project.executor.agent);
    const context = () => createNodeContext({ projectId: project.manifest.id, storage, toolCatalog: [...project.executor.toolCatalog] });
    const first = await runStreamNode(node, { prompt: "remember buy milk" }, context());
    assert.equal(finalText(first.output), "Noted: buy milk");
    assert.equal((await storage.kv.get({ projectId: project.manifest.id }, "note"))?.value, "buy milk");
    const { output } = await runStreamNode(node, { prompt: "recall" }, context());
    assert.equal(output.errCode, 0);
    assert.equal(finalText(output), "Your note: buy milk");
  } finally {
    await storage.close();
  }
});
`;

function readme(kind: ScaffoldKind, values: ScaffoldValues): string {
  if (kind === "workflow") {
    return `# ${values.name}

A [steamharness](https://www.npmjs.com/package/steamharness) workflow project: \`workflow.ts\`
default-exports the entrypoints; \`package.json\` holds the project \`id\` (a UUID, never change it),
\`projectType\` and \`main\`.

\`\`\`sh
npm install
npm start                      # steamharness run . greet (data in ~/.steamharness; --data-dir to change)
npx steamharness run . greet --params '{"name":"Ada","style":"excited"}' --json
npx steamharness structure .   # the entrypoints and their params
npm test                       # node --test through tsx
npm run typecheck              # tsc --noEmit
\`\`\`

Serve it to an MCP client (Claude Desktop, Cursor, the MCP Inspector, …):

\`\`\`json
{ "mcpServers": { "workflow-${values.id}": { "command": "npx", "args": ["steamharness", "mcp", "/absolute/path/to/${values.name}"] } } }
\`\`\`
`;
  }
  return `# ${values.name}

A [steamharness](https://www.npmjs.com/package/steamharness) conversation project:
\`conversation.ts\` default-exports the agent and its tool catalog; \`package.json\` holds the
project \`id\` (a UUID, never change it), \`projectType\` and \`main\`.

\`\`\`sh
npm install
npm start              # steamharness chat . — type "remember buy milk", then "recall"; /exit ends it
npm test               # node --test through tsx, on the offline model
npm run typecheck      # tsc --noEmit
\`\`\`

## A real model

The project runs on the offline model (scripted, no key, no network) until you give it a real one:

- **An OpenAI key**: \`npm install @mariozechner/pi-ai\`, then \`OPENAI_API_KEY=sk-... npm start\`
  (\`OPENAI_MODEL\` picks the model; the key is passed explicitly in \`conversation.ts\`).
- **A configured model**: delete the \`models\` option (and the OpenAI branch) in \`conversation.ts\`;
  the chat then uses the first \`STEAMHARNESS_AGENT_MODELS\` entry of the project's current
  configuration, and when there is none it prints the \`steamharness config export\` / \`import\`
  steps that add one. Entries name their key by \`apiKeyRef\` (an environment variable), never hold it.
`;
}

/**
 * The files of a scaffold, by path relative to the project folder.
 *
 * @example
 * const files = scaffoldFiles("workflow", { name: "hello", id: randomUUID(), ranges });
 * Object.keys(files) // ["package.json", "tsconfig.json", "workflow.ts", "test/workflow.test.ts", "README.md", ".gitignore"]
 */
export function scaffoldFiles(kind: ScaffoldKind, values: ScaffoldValues): Record<string, string> {
  const main = kind === "workflow" ? "workflow.ts" : "conversation.ts";
  const scripts =
    kind === "workflow"
      ? { start: "steamharness run . greet", test: "tsx --test test/workflow.test.ts", typecheck: "tsc --noEmit" }
      : { start: "steamharness chat .", test: "tsx --test test/conversation.test.ts", typecheck: "tsc --noEmit" };
  return {
    "package.json": packageJson(kind, values, main, scripts),
    "tsconfig.json": TSCONFIG,
    [main]: kind === "workflow" ? WORKFLOW : CONVERSATION,
    [`test/${kind}.test.ts`]: kind === "workflow" ? WORKFLOW_TEST : CONVERSATION_TEST,
    "README.md": readme(kind, values),
    ".gitignore": GITIGNORE,
  };
}
