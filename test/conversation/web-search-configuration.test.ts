// OUT-10 end to end: a model entry saved in the local configuration store with `webSearch: true`
// turns the native search on for `steamharness chat` and `steamharness gateway` (real processes,
// a loopback OpenAI Responses server speaking the real wire format), and the first turn's raw
// search items go back on the second turn without ever reaching the output.
import { execFile, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "@jest/globals";
import OpenAI from "openai";
import { cleanEnv, cleanup, CLI_SOURCE, REPO, runCli, tempDir, writeProject } from "../cli/helpers.js";
import { startOpenAIResponsesServer } from "../fixtures/loopback-openai-responses.js";
import type { LoopbackServer, ScriptedReply } from "../fixtures/loopback-server.js";

const KEY = "sk-loopback-web-search";
const searchTurn: ScriptedReply = {
  webSearches: [{ query: "steamharness release", sources: [{ url: "https://example.com/release", title: "Release notes" }] }],
  text: "The latest release is 1.2.",
  usage: { input: 120, output: 30 },
};
const plainTurn: ScriptedReply = { text: "Yes, sure.", usage: { input: 200, output: 3 } };

const servers: LoopbackServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()!.close();
  await cleanup(...dirs.splice(0));
});

/** A conversation project naming no model (its turns read STEAMHARNESS_AGENT_MODELS), and a data dir. */
async function project(): Promise<{ dir: string; dataDir: string }> {
  const root = await tempDir("sh-web-search-");
  dirs.push(root);
  const fixture = join(REPO, "test/conversation/fixtures/no-model-assistant");
  const dir = await writeProject(join(root, "project"), {
    "package.json": readFileSync(join(fixture, "package.json"), "utf8"),
    "conversation.mjs": readFileSync(join(fixture, "conversation.mjs"), "utf8"),
  });
  return { dir, dataDir: join(root, "data") };
}

/** Saves one model entry through `steamharness config import` (export, add, import). */
async function saveEntry(dir: string, dataDir: string, entry: Record<string, unknown>) {
  const exported = await runCli(["config", "export", dir, "--data-dir", dataDir]);
  expect(exported.code).toBe(0);
  const document = JSON.parse(exported.stdout);
  document.currentConfigurationId = "default";
  document.configurations = [{ configurationId: "default", name: "Default", values: { STEAMHARNESS_AGENT_MODELS: [entry] } }];
  const file = join(dataDir, "..", "config.json");
  writeFileSync(file, JSON.stringify(document));
  return runCli(["config", "import", dir, file, "--data-dir", dataDir]);
}

const entryFor = (server: LoopbackServer, extra: Record<string, unknown> = {}) => ({
  id: "main",
  provider: "openai",
  model: "loopback-model",
  apiKind: "openai-responses",
  baseUrl: server.baseUrl,
  apiKeyRef: "LOOPBACK_KEY",
  system: false,
  webSearch: true,
  ...extra,
});

const searchTool = (body: any) => (body.tools ?? []).some((tool: any) => tool.type === "web_search");
const searchItems = (body: any) => (body.input as any[]).filter((item) => item.type === "web_search_call").map((item) => `${item.id}:${item.action?.query}`);

describe("OUT-10 web search from the project configuration", () => {
  it("OUT-10 a model entry with webSearch, reasoning and maxTokens is saved and exported; a wrong type is refused and nothing is written", async () => {
    const { dir, dataDir } = await project();
    const server = await startOpenAIResponsesServer({ apiKey: KEY, replies: [] });
    servers.push(server);
    const saved = await saveEntry(dir, dataDir, entryFor(server, { reasoning: true, maxTokens: 4096, contextWindow: 200000 }));
    expect([saved.code, saved.stderr]).toEqual([0, `[steamharness] configuration store: local ${join(dataDir, "configurations.sqlite")}\n`]);
    const shown = await runCli(["config", "export", dir, "--data-dir", dataDir]);
    expect(JSON.parse(shown.stdout).configurations[0].values.STEAMHARNESS_AGENT_MODELS[0]).toMatchObject({ webSearch: true, reasoning: true, maxTokens: 4096, contextWindow: 200000 });

    const refused = await saveEntry(dir, dataDir, entryFor(server, { webSearch: "yes" }));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("webSearch");
    const after = await runCli(["config", "export", dir, "--data-dir", dataDir]);
    expect(JSON.parse(after.stdout).configurations[0].values.STEAMHARNESS_AGENT_MODELS[0].webSearch).toBe(true);
  }, 120_000);

  it("OUT-10 steamharness chat configured from the store sends the web_search tool and sends the raw search items back on the next turn, never printing them", async () => {
    const { dir, dataDir } = await project();
    const server = await startOpenAIResponsesServer({ apiKey: KEY, replies: [searchTurn, plainTurn] });
    servers.push(server);
    expect((await saveEntry(dir, dataDir, entryFor(server))).code).toBe(0);
    // Typed lines are read one after the other; each turn ends before the next line is taken.
    const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) => {
      const child = execFile(process.execPath, [...CLI_SOURCE, "chat", dir, "--data-dir", dataDir], { cwd: REPO, env: cleanEnv({ LOOPBACK_KEY: KEY }), timeout: 90_000 }, (error, out) =>
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout: out }),
      );
      child.stdin?.end("What is new?\nSure?\n/exit\n");
    });
    expect(code).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(searchTool(server.requests[0]!.body)).toBe(true);
    expect(searchItems(server.requests[1]!.body)).toEqual(["ws_0_0:steamharness release"]);
    expect(stdout).toContain("web_search");
    expect(stdout).toContain("The latest release is 1.2.");
    expect(stdout).toContain("Yes, sure.");
    expect(stdout).not.toContain("ws_0_0");
    expect(stdout).not.toContain("web_search_call");
  }, 120_000);

  it("OUT-10 steamharness gateway configured from the store sends the web_search tool and continues a conversation with the raw search items", async () => {
    const { dir, dataDir } = await project();
    const server = await startOpenAIResponsesServer({ apiKey: KEY, replies: [searchTurn, plainTurn] });
    servers.push(server);
    expect((await saveEntry(dir, dataDir, entryFor(server))).code).toBe(0);
    const token = "gateway-token-0123456789abcdef";
    const child = spawn(process.execPath, [...CLI_SOURCE, "gateway", dir, "--port", "0", "--token-env", "GW_TOKEN", "--data-dir", dataDir], {
      cwd: REPO,
      env: cleanEnv({ GW_TOKEN: token, LOOPBACK_KEY: KEY }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      let stderr = "";
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk.toString();
          const found = /at (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(stderr);
          if (found) resolve(found[1]!);
        });
        child.once("exit", (exitCode) => reject(new Error(`gateway exited (${exitCode}): ${stderr}`)));
      });
      const client = new OpenAI({ baseURL: url, apiKey: token, maxRetries: 0 });
      const first = await client.responses.create({ model: "no-model-assistant", input: "What is new?" });
      expect(first.output_text).toContain("The latest release is 1.2.");
      expect(JSON.stringify(first.output)).not.toContain("ws_0_0");
      const second = await client.responses.create({ model: "no-model-assistant", input: "Sure?", previous_response_id: first.id });
      expect(second.output_text).toContain("Yes, sure.");
      expect(server.requests).toHaveLength(2);
      expect(searchTool(server.requests[0]!.body)).toBe(true);
      expect(searchItems(server.requests[1]!.body)).toEqual(["ws_0_0:steamharness release"]);
    } finally {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
  }, 120_000);
});
