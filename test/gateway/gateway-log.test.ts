// DX-9: the shipped assistant works over `steamharness gateway` for the prompt its header
// advertises ("show my configurations"), no internal parser message reaches a client, and the
// gateway logs one line per request and one per failure on stderr (never the token). A real
// gateway process, driven by the official `openai` client.
import { describe, expect, it } from "@jest/globals";
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import OpenAI from "openai";
import { cleanEnv, cleanup, CLI_SOURCE, REPO, tempDir } from "../cli/helpers.js";
import { bundledProject } from "../fixtures/bundled-fixture.js";

const TOKEN = "dx9-token-0123456789abcdef-secret";

/** Starts `steamharness gateway <project>`; resolves its base URL and a reader of its stderr so far. */
async function startGateway(project: string, dataDir: string): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const child = spawn(process.execPath, [...CLI_SOURCE, "gateway", project, "--port", "0", "--data-dir", dataDir], {
    cwd: REPO,
    env: cleanEnv({ STEAMHARNESS_GATEWAY_TOKEN: TOKEN }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", () => {
      const found = /at (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(stderr);
      if (found) resolve(found[1]!);
    });
    child.once("exit", (code) => reject(new Error(`gateway exited (${code}): ${stderr}`)));
  });
  return { child, url, stderr: () => stderr };
}

/** Waits until the gateway's stderr matches (its request line is written when the response closes). */
async function logged(stderr: () => string, pattern: RegExp): Promise<void> {
  for (let i = 0; i < 200 && !pattern.test(stderr()); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  expect(stderr()).toMatch(pattern);
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

describe("DX-9 the examples over the gateway; the gateway's request log", () => {
  it("DX-9 examples/assistant answers 'show my configurations' over both APIs; each request is one log line", async () => {
    const dataDir = await tempDir("sh-dx9-");
    // Bundled (bundledProject): the same examples/assistant sources, loaded without tsx compiling them.
    const { child, url, stderr } = await startGateway(bundledProject("examples/assistant", join(dataDir, "assistant")), dataDir);
    try {
      const client = new OpenAI({ baseURL: url, apiKey: TOKEN, maxRetries: 0 });
      const response = await client.responses.create({ model: "steamharness-example-assistant", input: "show my configurations" });
      expect(response.status).toBe("completed");
      expect(response.output_text).toMatch(/^I cannot read this project's configurations here \(.*\); `steamharness chat` provides them\.$/);
      expect(response.output_text).not.toMatch(/JSON|Unexpected token/);
      const chat = await client.chat.completions.create({ model: "steamharness-example-assistant", messages: [{ role: "user", content: "show my configurations" }] });
      expect(chat.choices[0]!.message.content).toMatch(/^I cannot read this project's configurations here/);
      await client.models.list();
      await expect(new OpenAI({ baseURL: url, apiKey: "not-the-token-000000", maxRetries: 0 }).models.list()).rejects.toMatchObject({ status: 401 });
      await logged(stderr, /GET \/v1\/models 401 \d+ms\n/);
      const lines = stderr().split("\n");
      const requests = lines.filter((line) => / (GET|POST) \/v1\/\S+ \d{3} \d+ms/.test(line));
      expect(requests.map((line) => line.replace(/^\S+ /, "").replace(/ \d+ms.*$/, ""))).toEqual(["POST /v1/responses 200", "POST /v1/chat/completions 200", "GET /v1/models 200", "GET /v1/models 401"]);
      expect(requests[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z POST \/v1\/responses 200 \d+ms$/);
      // One failure line, for the refused token; the token itself is never logged.
      expect(lines.filter((line) => / failure /.test(line))).toEqual([expect.stringMatching(/ failure GET \/v1\/models 401: invalid_api_key: /)]);
      expect(stderr()).not.toContain(TOKEN);
    } finally {
      await stop(child);
      await cleanup(dataDir);
    }
  }, 180_000);

  it("DX-9 an unexpected error in a project is a clean 500 for the client; its details go to the log only", async () => {
    const dataDir = await tempDir("sh-dx9-");
    const { child, url, stderr } = await startGateway(bundledProject("test/gateway/fixtures/broken-assistant", join(dataDir, "broken-assistant")), dataDir);
    try {
      const client = new OpenAI({ baseURL: url, apiKey: TOKEN, maxRetries: 0 });
      const failed = await client.responses.create({ model: "broken-assistant", input: "hello" }).then(
        () => null,
        (error: unknown) => error as { status?: number; message: string },
      );
      expect(failed?.status).toBe(500);
      expect(failed!.message).toContain("[steamharness] [gateway] the run failed with an internal error (the gateway's log has the details)");
      expect(failed!.message).not.toMatch(/JSON|Unexpected token|tool_not_registered/);
      // Streaming: the error event carries the same clean message.
      const stream = await client.chat.completions.create({ model: "broken-assistant", messages: [{ role: "user", content: "hello" }], stream: true });
      const streamed = await (async () => {
        try {
          for await (const chunk of stream) void chunk;
          return "no error";
        } catch (error) {
          return (error as Error).message;
        }
      })();
      expect(streamed).toContain("the run failed with an internal error");
      expect(streamed).not.toMatch(/JSON|Unexpected token/);
      await logged(stderr, /POST \/v1\/chat\/completions 200 \d+ms\n/);
      const lines = stderr().split("\n");
      const failures = lines.filter((line) => / failure /.test(line));
      expect(failures).toHaveLength(2);
      for (const line of failures) expect(line).toMatch(/ failure run run_\S+ conversation \S+: internal: \[steamharness\] \[gateway\] the run failed with an internal error/);
      // The details, under each failure line: the error's own message and where it was thrown.
      expect(stderr()).toMatch(/failure run [^\n]+\n {4}SyntaxError: Unexpected token[^\n]*\n {4}at /);
      expect(lines.filter((line) => / POST \/v1\/(responses|chat\/completions) \d{3} \d+ms/.test(line)).map((line) => line.replace(/^\S+ /, "").replace(/ \d+ms.*$/, ""))).toEqual(["POST /v1/responses 500", "POST /v1/chat/completions 200"]);
      expect(stderr()).not.toContain(TOKEN);
    } finally {
      await stop(child);
      await cleanup(dataDir);
    }
  }, 180_000);
});
