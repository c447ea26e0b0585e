import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { bundledFixture } from "../fixtures/bundled-fixture.js";
import { CLI_SOURCE, cleanEnv, cleanup, REPO, runCli, startMcp, tempDir, writeProject } from "../cli/helpers.js";

// SES-10: every host keeps a conversation's sessions in the project-local `.workflow/agents`, and
// a fresh process of the same host sees the history. Each host runs as a real child process.
const sessionFiles = (project: string, folder = join(project, ".workflow", "agents")): string[] =>
  existsSync(folder) ? readdirSync(folder, { recursive: true }).map(String).filter((name) => name.endsWith(".sqlite")) : [];
/** One `steamharness chat` process (the built bin when dist/ is fresh) on `project`, fed `stdin`; resolves its stdout. */
const chatProcess = (project: string, args: string[], stdin: string) =>
  new Promise<string>((resolveRun, rejectRun) => {
    const child = execFile(process.execPath, [...CLI_SOURCE, "chat", project, ...args], { cwd: REPO, env: cleanEnv(), timeout: 60_000 }, (error, stdout) =>
      error ? rejectRun(error) : resolveRun(stdout),
    );
    child.stdin?.end(stdin);
  });
// The projects import the fixtures bundled (plain JavaScript), so the built CLI loads them as a
// user's project is loaded, without tsx; the bundles carry their own copy of the sources.
const fixture = (name: string) => pathToFileURL(bundledFixture(join("test/durable/fixtures", name))).href;

const WORKFLOW = `
import { rememberingTurn } from ${JSON.stringify(fixture("remembering-agent.ts"))};
export default {
  entrypoints: {
    converse: {
      title: "Converse",
      params: [
        { name: "conversationId", type: "string", required: true },
        { name: "prompt", type: "string", required: true },
      ],
      async run(params, context) {
        return { answer: await rememberingTurn(params.prompt, { ...context.node, conversationId: params.conversationId }) };
      },
    },
  },
};
`;

const CONVERSATION = `
import { defineAgentConversationExecutor, createOfflineModel } from ${JSON.stringify(fixture("conversation-kit.ts"))};
const textOf = (content) => (typeof content === "string" ? content : content.map((block) => block.text ?? "").join(""));
export default defineAgentConversationExecutor({
  name: "forgetful-by-declaration",
  models: createOfflineModel({
    steps: (request) => {
      const said = textOf(request.messages.at(-1).content);
      const earlier = request.messages.slice(0, -1).map((message) => textOf(message.content)).join("\\n");
      const colour = /my colour is (\\w+)/.exec(earlier)?.[1];
      return { text: /remember/.test(said) ? (colour ? "I remember " + colour + "." : "I remember nothing.") : "Noted: " + said };
    },
  }),
  retryDelayMs: 0,
  // No durable declaration: SES-10 says the chat's history is durable anyway.
  executor: { tools: [], conversation: { recovery: { enabled: false }, durable: { enabled: false } } },
});
`;

describe("SES-10 sessions default to the project-local .workflow/agents for every host", () => {
  let root: string;
  let workflowProject: string;
  beforeAll(async () => {
    root = await tempDir("ses10-");
    workflowProject = await writeProject(join(root, "workflow-project"), {
      "package.json": JSON.stringify({ name: "ses10-workflow", type: "module", id: "7d3c1a52-0b6e-4f8a-9c2d-5e4f3a2b1c0d", projectType: "workflow", main: "workflow.mjs" }),
      "workflow.mjs": WORKFLOW,
    });
  });
  afterAll(async () => {
    await cleanup(root);
  });

  it("SES-10 run: `steamharness run` keeps the conversation in <project>/.workflow/agents, and a second run sees it", async () => {
    const dataDir = join(root, "run-data");
    const run = (prompt: string) =>
      runCli(["run", workflowProject, "converse", "--params", JSON.stringify({ conversationId: "run-conv", prompt }), "--json", "--data-dir", dataDir]);
    const first = await run("my colour is teal");
    expect(first.code).toBe(0);
    expect(sessionFiles(workflowProject).some((file) => file.startsWith("run-conv-"))).toBe(true);
    const second = await run("do you remember?");
    expect(JSON.parse(second.stdout)).toMatchObject({ status: "success", result: { data: { output: { answer: "I remember teal." } } } });
    expect(existsSync(join(dataDir, "agent-sessions"))).toBe(false);
  }, 120_000);

  it("SES-10 mcp: `steamharness mcp` keeps the conversation in <project>/.workflow/agents, and a fresh server sees it", async () => {
    const dataDir = join(root, "mcp-data");
    const converse = async (prompt: string) => {
      const session = await startMcp(workflowProject, ["--data-dir", dataDir]);
      try {
        return (await session.client.callTool({ name: "converse", arguments: { conversationId: "mcp-conv", prompt } })).structuredContent;
      } finally {
        await session.close();
      }
    };
    expect(await converse("my colour is amber")).toMatchObject({ status: "success" });
    expect(sessionFiles(workflowProject).some((file) => file.startsWith("mcp-conv-"))).toBe(true);
    expect(await converse("do you remember?")).toMatchObject({ status: "success", output: { answer: "I remember amber." } });
    expect(existsSync(join(dataDir, "agent-sessions"))).toBe(false);
  }, 120_000);

  it("SES-10 chat: a conversation project without `durable.enabled` still keeps its history in <project>/.workflow/agents", async () => {
    const project = await writeProject(join(root, "chat-project"), {
      "package.json": JSON.stringify({ name: "ses10-chat", type: "module", id: "2b9e4c71-5a3d-4e6f-8b1c-0d9e8f7a6b5c", projectType: "conversation", main: "conversation.mjs" }),
      "conversation.mjs": CONVERSATION,
    });
    const dataDir = join(root, "chat-data");
    const chat = (stdin: string, ...extra: string[]) => chatProcess(project, ["--data-dir", dataDir, "--conversation", "chat-conv", ...extra], stdin);
    const first = await chat("my colour is violet\n/exit\n", "--new");
    expect(first).toContain("Noted: my colour is violet");
    expect(first).toContain("(resume with --conversation chat-conv)");
    expect(sessionFiles(project).some((file) => file.startsWith("chat-conv-"))).toBe(true);
    expect(await chat("do you remember?\n/exit\n")).toContain("I remember violet.");
  }, 120_000);

  it("SES-10 run, mcp and chat with --agent-store-dir keep the sessions there (not in the project folder), and a fresh process sees them; run and mcp refuse a relative path", async () => {
    const store = join(root, "chosen-sessions");
    const project = await writeProject(join(root, "elsewhere-project"), {
      "package.json": JSON.stringify({ name: "ses10-elsewhere", type: "module", id: "5e0a9b3c-7d21-4c8e-9f6a-1b2c3d4e5f60", projectType: "workflow", main: "workflow.mjs" }),
      "workflow.mjs": WORKFLOW,
    });
    const dataDir = join(root, "elsewhere-data");
    const run = (prompt: string, extra: string[] = ["--agent-store-dir", store]) =>
      runCli(["run", project, "converse", "--params", JSON.stringify({ conversationId: "elsewhere-conv", prompt }), "--json", "--data-dir", dataDir, ...extra]);
    expect((await run("my colour is jade")).code).toBe(0);
    expect(sessionFiles(project, store).some((file) => file.startsWith("elsewhere-conv-"))).toBe(true);
    expect(sessionFiles(project)).toEqual([]);
    expect(JSON.parse((await run("do you remember?")).stdout)).toMatchObject({ status: "success", result: { data: { output: { answer: "I remember jade." } } } });
    // mcp on the same folder finds the conversation run wrote.
    const session = await startMcp(project, ["--data-dir", dataDir, "--agent-store-dir", store]);
    try {
      const result = await session.client.callTool({ name: "converse", arguments: { conversationId: "elsewhere-conv", prompt: "do you remember?" } });
      expect(result.structuredContent).toMatchObject({ status: "success", output: { answer: "I remember jade." } });
    } finally {
      await session.close();
    }
    expect(sessionFiles(project)).toEqual([]);
    const relative = await run("my colour is red", ["--agent-store-dir", "sessions"]);
    expect(relative.code).toBe(2);
    expect(JSON.parse(relative.stdout)).toMatchObject({ error: { code: "input_validation", message: expect.stringContaining("--agent-store-dir must be an absolute directory path") } });

    const chatProject = await writeProject(join(root, "elsewhere-chat"), {
      "package.json": JSON.stringify({ name: "ses10-elsewhere-chat", type: "module", id: "6f1b0c4d-8e32-4d9f-a07b-2c3d4e5f6071", projectType: "conversation", main: "conversation.mjs" }),
      "conversation.mjs": CONVERSATION,
    });
    const chatStore = join(root, "chosen-chat-sessions");
    const chat = (stdin: string, ...extra: string[]) => chatProcess(chatProject, ["--data-dir", dataDir, "--conversation", "chat-elsewhere", "--agent-store-dir", chatStore, ...extra], stdin);
    expect(await chat("my colour is cyan\n/exit\n", "--new")).toContain("Noted: my colour is cyan");
    expect(sessionFiles(chatProject, chatStore).some((file) => file.startsWith("chat-elsewhere-"))).toBe(true);
    expect(sessionFiles(chatProject)).toEqual([]);
    expect(await chat("do you remember?\n/exit\n")).toContain("I remember cyan.");
  }, 180_000);

  it("SES-10 library: createSqliteStorage({ directory: \".workflow/store\" }) keeps sessions in <project>/.workflow/agents across processes", async () => {
    const project = join(root, "library-project");
    await writeProject(project, { "README.md": "a host's project folder\n" });
    const host = (prompt: string) =>
      new Promise<{ answer: string; agentStoreDir: string }>((resolveRun, rejectRun) => {
        execFile(process.execPath, [bundledFixture("test/durable/fixtures/library-host.ts"), "lib-conv", prompt], { cwd: project, env: cleanEnv(), timeout: 60_000 }, (error, stdout) =>
          error ? rejectRun(error) : resolveRun(JSON.parse(stdout.trim().split("\n").at(-1)!)),
        );
      });
    const first = await host("my colour is ochre");
    expect(first.agentStoreDir).toBe(join(project, ".workflow", "agents"));
    expect(sessionFiles(project).some((file) => file.startsWith("lib-conv-"))).toBe(true);
    expect(existsSync(join(project, ".workflow", "store", "agents"))).toBe(false);
    expect((await host("do you remember?")).answer).toBe("I remember ochre.");
  }, 120_000);
});
